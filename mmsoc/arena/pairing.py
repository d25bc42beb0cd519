"""Battles from eval run folders over the same items: every pair of models, or a seeded sample per pair.

Each run contributes one response per (task, item): its first seed's (the run's seed order; the single
greedy pass). A battle's A/B position is drawn from ``random.Random`` seeded by the pairing seed and the
battle id, so adding a run or an item never moves another battle's sides.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmsoc.arena.media import data_root, relative_media
from mmsoc.arena.records import Battle
from mmsoc.core.io import InputError, UsageError
from mmsoc.core.names import given_name, shown
from mmsoc.core.runfolder import CONFIG, RunFolder
from mmsoc.tasks import get_task, kind_of

if TYPE_CHECKING:
    from mmsoc.core.records import Example

ItemKey = tuple[str, str]


@dataclass(frozen=True)
class RunResponses:
    """One eval run: its model name, data and one logged response per (task, item)."""

    name: str
    path: Path
    data: str
    split: str
    prompt_versions: dict[str, str]
    rows: dict[ItemKey, dict[str, Any]]


def model_name(config: dict[str, Any]) -> str:
    """A run's model as a battle names it: a local folder by its last part, plus its adapter's."""
    model = str(config.get("model", ""))
    name = Path(model).name if model.startswith((".", "/", "~")) else model
    adapter = config.get("adapter")
    return f"{name}+{Path(str(adapter)).name}" if adapter else name


def load_run(path: str | Path, name: str | None = None) -> RunResponses:
    """The responses of the run in ``path`` (an ``mmsoc eval`` run folder)."""
    path = Path(path)
    config_path = path / CONFIG
    if not config_path.is_file():
        raise InputError(path, f"not a run folder (no {CONFIG}; make one with 'mmsoc eval ... --out FOLDER')")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise InputError(config_path, f"invalid JSON ({err.msg})", line=err.lineno) from None
    for name_field in ("model", "data", "split"):
        if not isinstance(config.get(name_field), str):
            raise InputError(config_path, "missing or not a string", field=name_field)
    order = {seed: k for k, seed in enumerate(config.get("seeds") or [None])}
    chosen: dict[ItemKey, dict[str, Any]] = {}
    for row in RunFolder(path).rows():
        key = (str(row.get("task")), str(row.get("id")))
        rank = order.get(row.get("seed"), len(order))
        if not isinstance(row.get("raw"), str):
            continue
        if key not in chosen or rank < order.get(chosen[key].get("seed"), len(order)):
            chosen[key] = row
    return RunResponses(
        given_name(name or model_name(config), f"{path}: model name (--names names it otherwise)"),
        path,
        config["data"],
        config["split"],
        dict(config.get("prompt_version") or {}),
        chosen,
    )


def common_items(first: RunResponses, second: RunResponses, tasks: Sequence[str] | None) -> list[ItemKey]:
    """The (task, item) keys both runs answered (of ``tasks``, else of the free-text tasks), sorted."""
    keys = set(first.rows) & set(second.rows)
    if tasks is not None:
        return sorted(key for key in keys if key[0] in tasks)
    return sorted(key for key in keys if _free_text(key[0]))


def _free_text(task: str) -> bool:
    try:
        return kind_of(task).open_ended
    except KeyError:
        return False


def check_runs(runs: Sequence[RunResponses]) -> None:
    if len(runs) < 2:
        raise UsageError("give at least two run folders (--runs A --runs B ...)")
    names: dict[str, Path] = {}
    for run in runs:
        if run.name in names:
            raise UsageError(
                f"runs {names[run.name]} and {run.path} are both named {shown(run.name)}; name them with --names"
            )
        names[run.name] = run.path
        if (run.data, run.split) != (runs[0].data, runs[0].split):
            raise UsageError(
                f"{run.path} ran on data {run.data!r} split {run.split!r}, {runs[0].path} on "
                f"{runs[0].data!r} split {runs[0].split!r}: battles need the same items"
            )


def battle_id(task: str, item: str, model_x: str, model_y: str) -> str:
    """A stable id that reveals neither model (the vote page shows it)."""
    first, second = sorted((model_x, model_y))
    digest = hashlib.sha256("\x00".join((task, item, first, second)).encode("utf-8")).hexdigest()
    return f"b{digest[:16]}"


def make_battles(
    runs: Sequence[RunResponses], seed: int = 0, per_pair: int | None = None, tasks: Sequence[str] | None = None
) -> tuple[list[Battle], list[str]]:
    """Battles for every pair of runs (in the order given) over the items both answered, and notes on
    items whose question, text or media could not be found (their battles carry the responses alone)."""
    check_runs(runs)
    pairs = list(combinations(runs, 2))
    shared = {(first.name, second.name): common_items(first, second, tasks) for first, second in pairs}
    used = sorted({task for keys in shared.values() for task, _ in keys})
    if not used:
        hint = "" if tasks else " of a free-text task; choose tasks with --task"
        raise UsageError(f"no two runs share items{hint}")
    for task in used:
        asked = sorted({str(run.prompt_versions.get(task)) for run in runs if any(k[0] == task for k in run.rows)})
        if len(asked) > 1:
            raise UsageError(f"the runs asked task {task!r} with different prompts ({', '.join(asked)})")
    items, notes = _items(runs[0], used)
    battles = []
    for first, second in pairs:
        keys = shared[first.name, second.name]
        if per_pair is not None and per_pair < len(keys):
            picked = set(random.Random(f"{seed}\x00{first.name}\x00{second.name}").sample(keys, per_pair))
            keys = [key for key in keys if key in picked]
        battles += [_battle(first, second, key, items.get(key), seed) for key in keys]
    return battles, notes


def _battle(first: RunResponses, second: RunResponses, key: ItemKey, example: Example | None, seed: int) -> Battle:
    task, item = key
    bid = battle_id(task, item, first.name, second.name)
    swapped = random.Random(f"{seed}\x00{bid}").random() < 0.5
    a, b = (second, first) if swapped else (first, second)
    prompt, text, media = _content(first, task, example)
    return Battle(
        id=bid,
        item=item,
        task=task,
        model_a=a.name,
        model_b=b.name,
        response_a=a.rows[key]["raw"],
        response_b=b.rows[key]["raw"],
        prompt=prompt,
        text=text,
        data=first.data if media else None,
        media=media,
        position_seed=seed,
        swapped=swapped,
    )


def _items(run: RunResponses, tasks: Sequence[str]) -> tuple[dict[ItemKey, Example], list[str]]:
    """The examples behind the items (for the question, the item's text and its media), and what failed."""
    from mmsoc.core.cli import error_message
    from mmsoc.tasks.data import load_examples

    out, notes = {}, []
    for task in tasks:
        try:
            loaded = load_examples(task, run.data, split=run.split)
        except (KeyError, OSError, ValueError) as err:
            notes.append(
                f"task {task}: items not loaded from {run.data!r} ({error_message(err)}); "
                "its battles carry the responses alone"
            )
            continue
        out.update({(task, example.id): example for example in loaded.examples})
    return out, notes


def _content(run: RunResponses, task: str, example: Example | None) -> tuple[str, str, tuple[str, ...]]:
    """(question, item text, media relative to the data root) of an item."""
    try:
        spec = get_task(task)
    except KeyError:
        return "", "", ()
    # a prompt override's text is not in the run folder: show the question only when the table's was asked
    prompt = spec.prompt if run.prompt_versions.get(task, spec.prompt_version) == spec.prompt_version else ""
    if example is None:
        return prompt, "", ()
    return prompt, example.text, relative_media(data_root(run.data), example.images)
