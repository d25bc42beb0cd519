"""``desiq eval`` as a function: plan the asked questions, run them into the run folder, write the reports.

RUN_DIR/config.json       the run's identity (model, adapter, data and its sha256, split, inputs and how
                          each medium reaches the model, answer mode, conditions, seed, prompt version,
                          frames; ``limit`` may grow, never shrink)
RUN_DIR/predictions.jsonl one row per (question, condition, rotation)
RUN_DIR/metrics.json      ``desiq.llm.metrics``
RUN_DIR/table.md          ``desiq.llm.table``
RUN_DIR/submission.jsonl  unlabelled questions only: the QA file's rows plus ``answer_idx``, in input order
RUN_DIR/problems.jsonl    questions that could not be asked, with the reason
RUN_DIR/conditions/       each condition's questions as asked, as Social-IQ 2.0 files (CONDITION.CONFIG.jsonl;
                          circular: every rotation, rotation after rotation), to inspect or reuse
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from desiq.data import QAData, qa_data
from desiq.formats import read_note
from desiq.formats.mcqa_fields import Mapping
from desiq.inputs import InputSetting
from desiq.llm.answers import PARSE_RULES
from desiq.llm.conditions import ORIGINAL, ask, parse_conditions
from desiq.llm.prompts import DEFAULT_PROMPT, get_prompt
from desiq.llm.requests import RequestBuilder
from desiq.llm.run import ANSWER_MODES, Answerer, run_asked
from mmsoc.core.cli import note
from mmsoc.core.io import UsageError, write_text
from mmsoc.core.paths import file_sha256
from mmsoc.models.base import GenerationSettings
from mmsoc.models.registry import MediaSettings, ModelOptions, resolve
from mmsoc.runners.failures import MaxFailures


@dataclass(frozen=True)
class EvalOptions:
    """Everything ``desiq eval`` takes besides the model, data and run folder."""

    split: str | None = None
    inputs: str = "q+a+t+v"
    answer: str = "loglik"
    parse: str = "lenient"
    conditions: str | None = None
    seed: int = 0
    limit: int | None = None
    batch_size: int | str = 8
    prompt: str = DEFAULT_PROMPT
    prompts_file: Path | None = None
    max_new_tokens: int = 32
    fit: str = "drop"
    """Over the context: ``drop`` frames, then transcript tokens; ``error`` refuses the question."""
    log_prompts: bool = False
    """Write the exact prompt text into each prediction row."""
    progress: bool = False
    min_clusters: int = 10
    """The fewest videos an interval and a verdict are drawn from."""
    model: ModelOptions = field(default_factory=ModelOptions)
    """How the model is loaded, prompted and run (dtype, device, adapter, media, chat template, server ...)."""
    mapping: Mapping | None = None
    """The field mapping of a generic MCQA file (``--fields`` / ``--schema``)."""
    media_root: Path | None = None
    """The folder a generic file's media column lies under (``--media-root``)."""
    format: str = "auto"
    """The MCQA format of the file read (``--format``; auto: recognised by its content)."""
    max_failures: str | None = None
    """Questions (each under a condition) the run may fail and still succeed: N or P% (``--max-failures``)."""

    @property
    def media(self) -> MediaSettings:
        return self.model.media


def model_media(model: str, media: MediaSettings) -> tuple[frozenset[str], dict[str, object], int | None]:
    """What a model reads, how it takes video (for the run's configuration) and the frames its family
    always reads (None: the run's), from its files alone (no weights are loaded)."""
    from mmsoc.models.registry import BACKENDS, DEFAULT_BACKEND, resolve

    entry, arg = resolve(model)
    if entry is not BACKENDS.get(DEFAULT_BACKEND):
        return entry.modalities, {}, None
    from mmsoc.models.recipes import describe

    recipe = describe(arg, media.video_as)
    fixed = recipe.num_frames
    how: dict[str, object] = {
        "video_input": recipe.video,
        "num_frames": fixed or (None if media.fps else media.num_frames),
        "fps": None if fixed else media.fps,
        "video_metadata": recipe.metadata,
        "audio_input": recipe.audio,
        "video_kwargs": recipe.video_kwargs,
    }
    return recipe.modalities, how, fixed


def model_identity(model: str, options: EvalOptions, settings: GenerationSettings) -> dict[str, Any]:
    """What the run records of how the model is run: prompt format, decoding, context budget, kernels."""
    from mmsoc.models.inputs import describe_model

    written = settings if options.answer == "generate" else None
    run = options.model
    return {
        "device_map": run.device_map,
        "attn_implementation": run.attn_implementation,
        "prefix_cache": run.prefix_cache,
        "max_context": run.max_context,
        "fit": options.fit,
        "log_prompts": options.log_prompts,
        **describe_model(model, written, run.chat_template, run.generation_config, run.api_base),
    }


def write_conditions(asked: list, folder: Path) -> None:
    """Each (condition, configuration)'s questions as asked, as a Social-IQ 2.0 file."""
    from desiq.formats.siq2 import write_siq2

    groups: dict[str, list] = {}
    for a in sorted(asked, key=lambda a: a.rotation):  # stable: question order within each rotation
        groups.setdefault(f"{a.condition}.{a.config}.jsonl", []).append(a.item)
    for name, items in groups.items():
        write_siq2(folder / name, items)


def _check_backend(model: str, answer: str) -> None:
    """Refuse, before any data is read, a backend that cannot answer a question the way ``answer`` asks."""
    backend = resolve(model)[0]
    if not (backend.scores or backend.free_text):
        raise UsageError(
            f"--model {model}: the {backend.name} backend can neither score a question's options nor write "
            "an answer to it (it answers only an MM-Soc task's own labels)"
        )
    if answer == "generate" and not backend.free_text:
        raise UsageError(f"the {backend.name} backend only scores options: use --answer loglik")


def evaluate(model: str, data: Path, out: Path, options: EvalOptions = EvalOptions()) -> dict[str, Any] | None:
    """Run (or resume) ``desiq eval``; the main process returns metrics.json (others None)."""
    if options.answer not in ANSWER_MODES:
        raise UsageError(f"--answer {options.answer!r}: choose {' or '.join(ANSWER_MODES)}")
    if options.parse not in PARSE_RULES:
        raise UsageError(f"--parse {options.parse!r}: choose one of {', '.join(PARSE_RULES)}")
    _check_backend(model, options.answer)
    max_failures = MaxFailures.parse(options.max_failures)
    source = qa_data(
        data,
        options.split,
        default_split="val",
        mapping=options.mapping,
        media_root=options.media_root,
        format=options.format,
    )
    reading = source.reading()
    note(read_note(reading))
    items = reading.items
    labelled = all(item.labelled for item in items)
    if not labelled and any(item.labelled for item in items):
        raise UsageError(f"{source.qa} mixes labelled and unlabelled questions; split them into two files")
    setting = InputSetting.parse(options.inputs)
    source.require_media(setting, items)
    conditions = parse_conditions(options.conditions, labelled)
    prompt = get_prompt(options.prompt, options.prompts_file)
    if options.parse == "challenge" and not all(label.isdigit() for label in prompt.labels):
        raise UsageError(
            f"--parse challenge reads option indices; prompt {prompt.name} labels options "
            f"{', '.join(prompt.labels)} (use --prompt siq2-challenge-v1)"
        )
    settings = GenerationSettings(greedy=True, max_new_tokens=options.max_new_tokens)
    reads, how, _ = model_media(model, options.media)
    builder = RequestBuilder(prompt, setting, source.media_folder(items), reads)
    asked = ask(items, conditions, options.seed, options.limit)
    identity = _identity(model, options, source, setting, conditions, prompt.version, {**builder.plan, **how}, settings)

    def make_answerer() -> Answerer:
        from mmsoc.models.registry import make_model

        backend = make_model(model, replace(options.model, batch_size=options.batch_size))
        return Answerer(backend, builder, options.answer, settings, options.fit, options.log_prompts)

    answered = run_asked(asked, identity, out, make_answerer, options.progress)
    if answered is None:
        return None
    write_conditions(asked, out / "conditions")
    metrics = _reports(
        answered.rows, out, model, options, source, setting, conditions, prompt.version, identity["media"], labelled
    )
    said = answered.tally.verdict(max_failures)  # raises RunFailed once the reports are written
    if said:
        note(said)
    return metrics


def _identity(
    model: str,
    options: EvalOptions,
    source: QAData,
    setting: InputSetting,
    conditions: Sequence[str],
    prompt_version: str,
    media: dict[str, object],
    settings: GenerationSettings,
) -> dict[str, Any]:
    """The run's identity (config.json): a rerun with another one is refused."""
    return {
        "command": "desiq eval",
        "model": model,
        "adapter": options.model.adapter,
        "data": str(source.qa.resolve()),
        "data_sha256": file_sha256(source.qa),
        "media_root": str(source.media_root.resolve()) if source.media_root else None,
        "split": source.split,
        "inputs": setting.name,
        "media": media,
        "answer": options.answer,
        "conditions": list(conditions),
        "seed": options.seed,
        "prompt": prompt_version,
        "max_new_tokens": options.max_new_tokens if options.answer == "generate" else None,
        "dtype": options.model.dtype,
        "limit": options.limit,
        **({"fields": options.mapping.describe()} if options.mapping else {}),
        # a named format reads the file its way; auto is fixed by the file's bytes (data_sha256)
        **({"format": options.format} if options.format != "auto" else {}),
        **model_identity(model, options, settings),
    }


def _reports(
    rows: list[dict[str, Any]],
    out: Path,
    model: str,
    options: EvalOptions,
    source: QAData,
    setting: InputSetting,
    conditions: Sequence[str],
    prompt_version: str,
    media: dict[str, object],
    labelled: bool,
) -> dict[str, Any]:
    """metrics.json, table.md and, for unlabelled questions asked as they are, submission.jsonl; returns the
    metrics."""
    from desiq.llm.metrics import context_totals, run_metrics
    from mmsoc.core.runfolder import RunFolder

    header = {
        "model": model,
        "adapter": options.model.adapter,
        "inputs": setting.name,
        "split": source.split,
        "prompt": prompt_version,
        "media": media,
        "conditions": list(conditions),
        "seed": options.seed,
    }
    metrics = run_metrics(rows, conditions, options.answer, options.parse, options.seed, header, options.min_clusters)
    metrics["context"] = context_totals(rows)
    from desiq.llm.table import run_markdown

    folder = RunFolder(out)
    folder.write_metrics(metrics)
    write_text(out / "table.md", run_markdown(metrics))
    if not labelled and ORIGINAL in conditions:
        from desiq.llm.submission import write_submission

        metrics["submission"] = write_submission(source.qa, rows, out / "submission.jsonl")
    return metrics
