"""A model as judge: each battle asked in both orders, answers parsed strictly and leniently, through the
run folder (identity, lock, append log, resume) every other command uses.

Rows are keyed by (battle, order, digest): a battle whose content changed is judged again. A battle gets
one vote when both orders parse: their label if they agree (mapped back to the file's A/B), else a tie,
as FastChat's MT-bench pairwise judge scores inconsistent answers. A battle with an unparseable answer
gets no vote and is listed in problems.jsonl.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmsoc.arena.judge_prompts import JudgePrompt
from mmsoc.arena.media import IMAGE_TYPES, data_root, resolve_inside
from mmsoc.arena.records import Battle, Vote
from mmsoc.core.io import UsageError
from mmsoc.core.jsonl_log import JsonlAppender
from mmsoc.core.progress import track
from mmsoc.core.runfolder import RunFolder
from mmsoc.models.base import GenerationSettings, Image, Model, Part, Request, Text, Video

ORDERS = ("AB", "BA")
"""AB shows response_a first (as A); BA shows response_b first."""
TASK = "arena-judge"
SWAP = {"A": "B", "B": "A", "tie": "tie", "both_bad": "both_bad"}

_STRICT = re.compile(r"\[\[(A|B|tie|both_bad)\]\]")
_BRACKET = re.compile(r"\[\[\s*(a|b|c|tie|both[\s_-]*bad)\s*\]\]", re.IGNORECASE)
_VERDICT = re.compile(r"\b(?:verdict|winner)\b\W{0,3}(?:is\W{1,2})?\**(a|b|tie|both[\s_-]*bad)\b\**", re.IGNORECASE)
_ALONE = re.compile(r"^\W*(a|b|tie|both[\s_-]*bad)\W*$", re.IGNORECASE)


@dataclass(frozen=True)
class Verdict:
    label: str | None
    """The label in the order shown (lenient parse), None when the answer has none."""
    strict: bool
    """Whether the answer follows the format exactly: its last non-empty line is one ``[[LABEL]]``."""
    critique: str


def _canonical(word: str) -> str:
    word = word.lower()
    if word in ("a", "b"):
        return word.upper()
    return "tie" if word in ("tie", "c") else "both_bad"


def parse_verdict(raw: str) -> Verdict:
    """Strict: the last non-empty line is exactly ``[[A]]``, ``[[B]]``, ``[[tie]]`` or ``[[both_bad]]``.
    Lenient: the last ``[[label]]`` in any case and spacing (``[[C]]``, MT-bench's tie, included), else
    the last "verdict: X", else an answer that is a label alone. The critique is the answer without
    its verdict."""
    lines = [line.strip() for line in raw.strip().splitlines() if line.strip()]
    strict = bool(lines) and _STRICT.fullmatch(lines[-1]) is not None and len(_STRICT.findall(raw)) == 1
    label, span = None, None
    for pattern in (_BRACKET, _VERDICT, _ALONE):
        found = list(pattern.finditer(raw.strip()))
        if found:
            label, span = _canonical(found[-1].group(1)), found[-1].span()
            break
    critique = raw.strip()
    if span is not None:
        critique = (critique[: span[0]] + critique[span[1] :]).strip()
    critique = re.sub(r"^\W*critique\W*", "", critique, flags=re.IGNORECASE).strip()
    return Verdict(label, strict, critique)


def in_file_order(label: str, order: str) -> str:
    """A label given in ``order`` as a label of the file's A/B."""
    return label if order == "AB" else SWAP[label]


def combine(ab: str, ba: str) -> str:
    """The vote of a battle from both orders (labels already in file order): agreement, else a tie."""
    return ab if ab == ba else "tie"


def request(battle: Battle, order: str, prompt: JudgePrompt, modalities: frozenset[str]) -> Request:
    """The judge's request: the item's media the model reads, then the prompt with the answers in ``order``."""
    first, second = (battle.response_a, battle.response_b) if order == "AB" else (battle.response_b, battle.response_a)
    parts: list[Part] = []
    if battle.media and modalities & {"image", "video"}:
        if battle.data is None:
            raise ValueError(f"battle {battle.id}: media without the data they belong to")
        root = data_root(battle.data)
        for relative in battle.media:
            path = resolve_inside(root, relative)
            if path.suffix.lower() in IMAGE_TYPES:
                if "image" in modalities:
                    parts.append(Image(str(path)))
            elif "video" in modalities:
                parts.append(Video(str(path)))
    parts.append(Text(prompt.render(battle.prompt, battle.text, first, second)))
    return Request(TASK, f"{battle.id}:{order}", tuple(parts), None, battle.text)


@dataclass(frozen=True)
class JudgeOutcome:
    votes: list[Battle]
    problems: list[dict[str, str]]
    summary: dict[str, Any]


def judge_battles(
    battles: Sequence[Battle],
    folder: RunFolder,
    config: dict[str, Any],
    prompt: JudgePrompt,
    make_model: Callable[[], Model],
    settings: GenerationSettings,
    annotator: str,
    modalities: frozenset[str],
    batch_size: int = 8,
    progress: bool = False,
) -> JudgeOutcome:
    """Judge every battle in both orders into ``folder`` (resuming what is logged) and return the votes."""
    with folder.lock():
        folder.check(config)
        folder.repair()
        done = folder.done()
        todo = [(b, o) for b in battles for o in ORDERS if (b.id, o, b.digest) not in done]
        problems: list[dict[str, str]] = []
        model = make_model() if todo else None  # a model that fails to load leaves the folder unclaimed
        folder.claim(config)
        if model is not None:
            with JsonlAppender(folder.own_log(0, 1)) as log:
                for batch in track(list(_batches(todo, batch_size)), "judging", enabled=progress):
                    for (battle, order), raw in _generate(model, batch, prompt, modalities, settings, problems):
                        log.append(_row(battle, order, raw))
        rows = folder.merge([(b.id, o, b.digest) for b in battles for o in ORDERS])
        outcome = outcome_of(battles, rows, annotator)
        folder.write_problems(problems + outcome.problems, fields=("battle", "order", "problem"))
        folder.write_metrics(outcome.summary)
    return outcome


def _row(battle: Battle, order: str, raw: str) -> dict[str, Any]:
    verdict = parse_verdict(raw)
    return {
        "battle": battle.id,
        "order": order,
        "digest": battle.digest,
        "raw": raw,
        "label": verdict.label,
        "valid": verdict.label is not None,
        "strict_valid": verdict.strict,
    }


def outcome_of(battles: Sequence[Battle], rows: Sequence[dict[str, Any]], annotator: str) -> JudgeOutcome:
    """Votes, problems and a summary from the logged answers of the current battles."""
    logged = {(row["battle"], row["order"], row["digest"]): row for row in rows}
    voted, problems = [], []
    answers = consistent = first_shown = decisive = strict = 0
    for battle in battles:
        found = {o: logged[key] for o in ORDERS if (key := (battle.id, o, battle.digest)) in logged}
        verdicts = {o: parse_verdict(row["raw"]) for o, row in found.items()}
        answers += len(verdicts)
        strict += sum(v.strict for v in verdicts.values())
        decisive += sum(v.label in ("A", "B") for v in verdicts.values())
        first_shown += sum(v.label == "A" for v in verdicts.values())
        bad = [o for o in ORDERS if o in verdicts and verdicts[o].label is None]
        problems += [
            {
                "battle": battle.id,
                "order": o,
                "problem": "no verdict in the judge's answer: " + repr(found[o]["raw"][:200]),
            }
            for o in bad
        ]
        labels = {o: v.label for o, v in verdicts.items() if v.label is not None}
        if len(labels) < len(ORDERS):  # an order not answered, or answered without a verdict
            continue
        ab, ba = (in_file_order(labels[o], o) for o in ORDERS)
        consistent += ab == ba
        voted.append(battle.with_votes([Vote(annotator, combine(ab, ba), verdicts["AB"].critique, 0.0)]))
    summary = {
        "battles": len(battles),
        "voted": len(voted),
        "answers": answers,
        "unparseable": len(problems),
        "strict_valid_rate": _share(strict, answers),
        "valid_rate": _share(answers - len(problems), answers),
        "order_consistency": _share(consistent, len(voted)),
        "first_position_share": _share(first_shown, decisive),
        "rule": "a vote needs both orders parsed; disagreeing orders count as a tie (FastChat MT-bench)",
    }
    return JudgeOutcome(voted, problems, summary)


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _batches(items: Sequence, size: int) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _generate(
    model: Model,
    batch: Sequence[tuple[Battle, str]],
    prompt: JudgePrompt,
    modalities: frozenset[str],
    settings: GenerationSettings,
    problems: list[dict[str, str]],
) -> list[tuple[tuple[Battle, str], str]]:
    """Answers for a batch; a batch that fails on bad input is retried one by one and failures recorded."""
    try:
        requests = [request(battle, order, prompt, modalities) for battle, order in batch]
        return list(zip(batch, model.generate(requests, settings)))
    except KeyError as err:  # a backend that answers only the suite's own tasks (e.g. the random baseline)
        raise UsageError(f"this model cannot answer a judge's request: {err.args[0] if err.args else err}") from None
    except (OSError, ValueError) as err:
        if len(batch) == 1:
            battle, order = batch[0]
            problems.append({"battle": battle.id, "order": order, "problem": f"generation failed: {err}"})
            return []
        return [pair for item in batch for pair in _generate(model, [item], prompt, modalities, settings, problems)]


def default_run_dir(out: Path) -> Path:
    """Where ``--out votes.jsonl`` keeps its run folder unless told: ``votes.run`` beside it."""
    return out.with_name(out.stem + ".run")
