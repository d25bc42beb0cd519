"""An evaluation run's identity: what must match for a rerun on the same RUN_DIR to resume it."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from mmsoc.models.base import GenerationSettings
from mmsoc.tasks.data.dataset import TEXT_LENGTH


@dataclass(frozen=True)
class RunConfig:
    """Everything that changes results. Batch size, limit and device do not, so they are left out."""

    model: str
    tasks: tuple[str, ...]
    data: str
    split: str = "test"
    adapter: str | None = None
    seeds: tuple[int, ...] | None = (0, 1, 2)
    greedy: bool = False
    max_new_tokens: int = 256
    top_p: float | None = 0.9
    temperature: float | None = 1.0
    dtype: str = "auto"
    """As asked (``auto``: the checkpoint's on a GPU, float32 on the CPU); runtime.json has what was loaded."""
    prompt_version: dict[str, str] | None = None
    """Task -> version of the prompt it was asked with."""
    text_length: int = TEXT_LENGTH
    """Words of a news text kept (MM-Soc's ``truncate_input``, ``--text_input_length 128``); 0 = all."""
    device_map: str | None = None
    attn_implementation: str | None = None
    """As asked (None: sdpa where the model has it); runtime.json has the kernel the model ran."""
    chat_template: str | None = None
    """A template file used instead of the checkpoint's, and the sha256 of its bytes."""
    chat_template_sha256: str | None = None
    generation_config: str = "neutral"
    max_context: int | None = None
    fit: str = "drop"
    """A request over the context: ``drop`` frames, then words of the text; ``error`` refuses it."""
    prompt_format: dict | None = None
    """Where the prompt format comes from (``mmsoc.models.prompting``), for an in-process model."""
    decoding: dict | None = None
    """Every effective decoding setting (``mmsoc.models.decoding``)."""
    api_base: str | None = None
    """The server of a model on one (``--api-base``): another server is another run."""

    @classmethod
    def create(cls, settings: GenerationSettings, seeds: tuple[int, ...] | None, **fields) -> RunConfig:
        """A config whose generation fields come from ``settings`` (sampling fields None when greedy)."""
        if settings.greedy:
            return cls(
                greedy=True, seeds=None, max_new_tokens=settings.max_new_tokens, top_p=None, temperature=None, **fields
            )
        if not seeds:
            raise ValueError("sampling needs at least one seed (or use greedy decoding)")
        return cls(
            greedy=False,
            seeds=tuple(seeds),
            max_new_tokens=settings.max_new_tokens,
            top_p=settings.top_p,
            temperature=settings.temperature,
            **fields,
        )

    @property
    def settings(self) -> GenerationSettings:
        if self.greedy:
            return GenerationSettings(greedy=True, max_new_tokens=self.max_new_tokens)
        assert self.top_p is not None and self.temperature is not None  # a sampling run records both
        return GenerationSettings(False, self.max_new_tokens, self.top_p, self.temperature)

    @property
    def run_seeds(self) -> tuple[int | None, ...]:
        """Seeds to run: the configured ones, or a single None for greedy decoding."""
        return (None,) if self.greedy else tuple(self.seeds or ())

    def to_json(self) -> dict:
        row = asdict(self)
        row["tasks"] = list(self.tasks)
        row["seeds"] = None if self.seeds is None else list(self.seeds)
        return row
