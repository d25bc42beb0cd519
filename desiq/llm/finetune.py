"""``desiq finetune``: LoRA fine-tuning of a multimodal LLM on Social-IQ questions, with the LoRA runner.

Each labelled question becomes one training pair: the request exactly as ``desiq eval`` sends it for
the original question (prompt text, and the video, audio or transcript of the input setting), and
the target the prompt asks for (``PromptSpec.answer``: with the default prompt the letter and the
text of the correct option), followed by `` Explanation: ...`` when a teacher file explains the
question (rows of ``id`` and ``explanation``, ids as ``desiq`` numbers questions: ``<qid>@<position>``).
Media are decoded (and cached) before training; a question whose media cannot be decoded is
trained without them, and counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desiq.data import qa_data
from desiq.inputs import InputSetting
from desiq.llm.conditions import ORIGINAL, Asked
from desiq.llm.evaluate import model_media
from desiq.llm.prompts import DEFAULT_PROMPT, get_prompt
from desiq.llm.requests import TASK, Built, RequestBuilder
from desiq.records import MCQAItem, all_options
from mmsoc.core.io import UsageError
from mmsoc.core.paths import file_sha256
from mmsoc.media.base import MediaError
from mmsoc.models.base import Audio, Video
from mmsoc.models.registry import MediaSettings, checkpoint_of

if TYPE_CHECKING:
    from mmsoc.media.clips import MediaStore
    from mmsoc.models.inputs import ModelInputs
    from mmsoc.runners.finetune.explanations import Explanation
    from mmsoc.runners.finetune.lora_training import TrainResult


@dataclass(frozen=True)
class FinetuneOptions:
    inputs: str = "q+a+t+v"
    split: str | None = None
    limit: int | None = None
    explanations: Path | None = None
    prompt: str = DEFAULT_PROMPT
    prompts_file: Path | None = None
    media: MediaSettings = field(default_factory=MediaSettings)
    progress: bool = False
    chat_template: str | None = None
    """A chat-template file that replaces the checkpoint's own (the prompts ``desiq eval`` would send)."""
    max_context: int | None = None
    fit: str = "drop"
    format: str = "auto"
    """The MCQA format of the file read (``--format``; auto: recognised by its content)."""
    """Over the context: ``drop`` frames, then transcript tokens; ``error`` skips the question as a problem."""


def _decodable(built: Built, builder: RequestBuilder, asked: Asked, store: MediaStore | None) -> Built:
    """The request, or the same question without the media that cannot be decoded (``store``: where media are
    decoded; None: not checked)."""
    if store is None:
        return built
    bad = []
    for path in built.request.media(Video):
        try:
            store.clip(path)
        except MediaError:
            bad.append("video")
    for path in built.request.media(Audio):
        try:
            store.waveform(path)
        except MediaError:
            bad.append("audio")
    return builder.build(asked, bad) if bad else built


def training_items(
    items: list[MCQAItem],
    builder: RequestBuilder,
    inputs: ModelInputs | None,
    explanations: Mapping[tuple[str, str], Explanation] | None,
    fit: str = "drop",
) -> tuple[list, list[dict[str, str]], dict[str, int]]:
    """(training pairs, problems, counts): each prompt fitted to the context of ``inputs`` (the model's input
    side; None: not fitted) as ``desiq eval`` fits it (frames dropped, then transcript tokens); counts of
    questions trained without some of their media, with frames dropped, and the transcript tokens dropped."""
    from desiq.llm.run import fit_asked
    from mmsoc.runners.finetune.data import TrainItem
    from mmsoc.runners.finetune.explanations import find_explanation
    from mmsoc.tasks.kinds.base import with_explanation

    pairs, problems = [], []
    counts = {"without_media": 0, "frames_dropped": 0, "transcript_tokens_dropped": 0, "max_prompt_tokens": 0}
    for item in items:
        if item.answer_idx is None:
            problems.append({"id": item.id, "problem": "no answer key"})
            continue
        asked = Asked(ORIGINAL, all_options(len(item.options)), 0, item, item.id)
        found = find_explanation(explanations, TASK, item.id) if explanations is not None else None
        decodable = _decodable(builder.build(asked), builder, asked, inputs.media if inputs is not None else None)
        target = with_explanation(decodable.answers[item.answer_idx], found.explanation if found else None)
        mask = [m for m in ("video", "audio") if m in decodable.missing]
        reserve = inputs.text_tokens(f" {target}") + 1 if inputs is not None else 0

        def target_tokens(_: Built, n: int = reserve) -> int:
            return n

        (built,) = fit_asked(inputs, builder, [asked], [mask], target_tokens, fit)
        if not isinstance(built, Built):
            problems.append({"id": item.id, "problem": f"{type(built).__name__}: {built}"})
            continue
        counts["without_media"] += bool(built.missing)
        counts["frames_dropped"] += built.frames_dropped
        counts["transcript_tokens_dropped"] += built.transcript_tokens_dropped
        counts["max_prompt_tokens"] = max(counts["max_prompt_tokens"], built.prompt_tokens or 0)
        pairs.append(TrainItem(built.request, target, explained=found is not None))
    return pairs, problems, counts


def _model_inputs(checkpoint: str, options: FinetuneOptions) -> ModelInputs:
    """The checkpoint's input side (no weights), which fits each prompt to the context as ``desiq eval`` does."""
    from mmsoc.models.inputs import ModelInputs
    from mmsoc.models.registry import ModelOptions

    settings = ModelOptions(media=options.media, chat_template=options.chat_template, max_context=options.max_context)
    return ModelInputs.from_files(checkpoint, settings)


def finetune(
    model: str,
    data: Path,
    out: Path,
    options: FinetuneOptions,
    lora: tuple[int, int, float, str, bool],
    train: dict[str, Any],
    resume: bool = False,
) -> TrainResult | None:
    """Train the adapter into ``out``; the main process returns the TrainResult (others None)."""
    checkpoint = checkpoint_of(model, "desiq finetune trains")  # before the training stack is imported
    from mmsoc.core.distributed import process_state
    from mmsoc.core.io import write_jsonl
    from mmsoc.models.loading import load_hf_model
    from mmsoc.runners.finetune.explanations import read_explanations
    from mmsoc.runners.finetune.lora_targets import layer_names
    from mmsoc.runners.finetune.lora_training import (
        LoraSettings,
        TrainSettings,
        check_out_dir,
        resolve_precision,
        run_identity,
        train_lora,
    )

    source = qa_data(data, options.split, default_split="train", format=options.format)
    items = source.items()[: options.limit]
    setting = InputSetting.parse(options.inputs)
    source.require_media(setting)
    prompt = get_prompt(options.prompt, options.prompts_file)
    reads, how, _ = model_media(model, options.media)
    builder = RequestBuilder(prompt, setting, source.media_root, reads)
    inputs = _model_inputs(checkpoint, options)
    table = read_explanations(options.explanations) if options.explanations else None
    pairs, problems, counts = training_items(items, builder, inputs, table, options.fit)
    if not pairs:
        raise UsageError(f"{source.qa}: no labelled questions to train on")
    rank, alpha, dropout, targets, mlp = lora
    lora_settings = LoraSettings(rank, alpha, dropout, layer_names(targets), mlp)
    settings = TrainSettings(**train)
    meta = {
        "command": "desiq finetune",
        "data": str(source.qa.resolve()),
        "data_sha256": file_sha256(source.qa),
        "media_root": str(source.media_root.resolve()) if source.media_root else None,
        "split": source.split,
        "inputs": setting.name,
        "media": {**builder.plan, **how},
        "prompt": prompt.version,
        "limit": options.limit,
        "explanations": str(options.explanations) if options.explanations else None,
        "explained": sum(p.explained for p in pairs),
        "skipped": len(problems),
        **counts,
        "prompt_format": inputs.format.describe(),
        "context": {"max_context": inputs.context_length, "fit": options.fit},
        **({"format": options.format} if options.format != "auto" else {}),
    }
    check_out_dir(out, resume, run_identity(lora_settings, settings, pairs, meta))  # before loading the model
    dtype = "bfloat16" if resolve_precision(settings.precision) == "bf16" else "float32"
    base, processor, family = load_hf_model(checkpoint, dtype)

    result = train_lora(
        base,
        processor,
        family,
        pairs,
        out,
        lora_settings,
        settings,
        resume=resume,
        meta=meta,
        progress=options.progress,
        inputs=inputs,
    )
    if not process_state().is_main_process:
        return None
    if problems:
        write_jsonl(out / "problems.jsonl", problems)
    return result
