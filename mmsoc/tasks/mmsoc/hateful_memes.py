"""Hateful Memes: ``DIR/hateful_memes/{train,dev,test}.jsonl`` with rows ``{id, img, label, text}``.

``img`` is relative to ``DIR/hateful_memes`` (e.g. ``img/01235.png``); ``label`` 1 = hateful, 0 = not.
Serves the ``hate`` task and half of ``ocr`` (the meme text is the OCR reference). The hub copy
``Ahren09/MMSoc_HatefulMemes`` has columns ``id, image, text, label, split`` and splits
``train, validation, test``.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError, read_jsonl, write_jsonl
from mmsoc.core.records import Example
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, Dataset, HubCopy, LoadOptions, SampleContext
from mmsoc.tasks.data.draw import Scene
from mmsoc.tasks.data.images import resolve_image
from mmsoc.tasks.data.result import ItemProblem, LoadResult
from mmsoc.tasks.data.rows import Row, collect_examples, existing_file, require, text_value
from mmsoc.tasks.spec import TaskSpec

FOLDER = "hateful_memes"
TITLE = "HatefulMemes"
LABELS = {0: "not_hateful", 1: "hateful"}
MEME_SIZE = (160, 160)

TASKS = (
    TaskSpec("hate", TITLE, "classification", "Is this meme hateful? Answer 'Yes' or 'No'.",
             ("hateful", "not_hateful"), answers=(("yes", "hateful"), ("no", "not_hateful")),
             why=(("hateful", "Why do you think this meme is potentially hateful?"),
                  ("not_hateful", "Why do you think this meme is potentially not hateful?")),
             sources=(FOLDER,), order=3),
)


def load(spec: TaskSpec, root: Path, split: str, limit: int | None = None,
         options: LoadOptions = PAPER_OPTIONS) -> LoadResult:
    """Load ``root/{split}.jsonl`` (``root`` is ``DIR/hateful_memes``)."""
    path = existing_file(root, f"{split}.jsonl")
    return from_rows(spec, read_jsonl(path), path, root, split, limit, options)


def from_rows(spec: TaskSpec, rows: Iterable[tuple[int, Row]], source: str | os.PathLike, image_root: Path,
              split: str, limit: int | None = None, options: LoadOptions = PAPER_OPTIONS) -> LoadResult:
    """Examples for ``hate`` or an OCR task from rows in the Hateful Memes JSONL format."""

    def example(line: int, row: Row, problems: list[ItemProblem]) -> Example:
        item_id = str(require(row, "id", source, line))
        image = str(require(row, "img", source, line))
        text = text_value(row, ("text",))
        meta = {"dataset": TITLE, "split": split}
        if spec.kind == "ocr":
            label = str(require(row, "text", source, line))
            item_id, text = f"{FOLDER}/{item_id}", ""
        else:
            label = _label(row, source, line)
        images = resolve_image(image_root, image, item_id, source, line, "img", problems)
        return Example(item_id, spec.id, text, images, label, meta)

    return collect_examples(rows, limit, example)


def _label(row: Row, source: str | os.PathLike, line: int) -> str:
    raw = row.get("label")
    try:
        return LABELS[int(raw)]  # type: ignore[arg-type]  # None and junk end in the except
    except (TypeError, ValueError, KeyError):
        hint = " (unlabelled split? the original test.jsonl has no labels)" if raw is None else ""
        raise InputError(source, f"expected 0 or 1, got {raw!r}{hint}", line=line, field="label") from None


def from_hub(row: Row, number: int) -> Row:
    """A hub row (``id, image, text, label, split``) in the local format; the image file is ``{id}.png``."""
    item_id = row.get("id", number)
    return {"id": item_id, "img": f"{item_id}.png", "text": row.get("text"), "label": row.get("label")}


# The sample: memes whose wording carries the label, about fictional groups.
GROUPS = ("the hill folk", "people from the valley", "the night shift crowd", "those river people",
          "the east side crowd", "the new neighbours", "the marsh villagers", "people from up north")
HATEFUL = ("{g} are vermin and should be driven out", "nobody wants {g} here, send them all back",
           "{g} are a disease on this country", "{g} are too stupid to be allowed to vote",
           "{g} are filthy animals, keep them away from us")
BENIGN = ("{g} throw the best parties every summer", "when {g} share their secret recipes with you",
          "{g} always wave when they drive past", "thanks to {g} for fixing the old bridge",
          "{g} grow the sweetest apples in the region")
SAMPLE_MEMES = "hateful_memes"
"""Key in ``SampleContext.shared`` of the memes drawn (split -> list of :class:`SampleMeme`)."""


@dataclass(frozen=True)
class SampleMeme:
    """A sample meme as drawn, for writers that describe it (``image`` is relative to ``DIR``)."""

    id: str
    image: str
    text: str
    hateful: bool
    scene: Scene
    group: str


def write_sample(root: Path, context: SampleContext) -> None:
    """Balanced hateful/benign memes with their text rendered on a drawn scene."""
    from mmsoc.tasks.data import draw

    rng, number = context.rng, 10000
    memes: dict[str, list[SampleMeme]] = {}
    for split, n in context.splits:
        rows: list[dict[str, Any]] = []
        memes[split] = []
        for hateful in draw.balanced(rng, n, (True, False)):
            number += 1
            text, group = _meme_text(rng, hateful)
            scene = draw.random_scene(rng)
            item_id, image = f"{number:05d}", f"img/{number:05d}.png"
            draw.save(draw.render_text(draw.draw_scene(scene, MEME_SIZE), text), root / image)
            rows.append({"id": item_id, "img": image, "label": int(hateful), "text": text})
            memes[split].append(SampleMeme(item_id, f"{FOLDER}/{image}", text, hateful, scene, group))
        write_jsonl(root / f"{split}.jsonl", rows)
    context.shared[SAMPLE_MEMES] = memes


def _meme_text(rng: random.Random, hateful: bool) -> tuple[str, str]:
    """(meme text, group named) of a hateful or benign sample meme."""
    group = rng.choice(GROUPS)
    return rng.choice(HATEFUL if hateful else BENIGN).format(g=group), group


DATASET = Dataset(
    FOLDER, load,
    hub=HubCopy(("Ahren09/MMSoc_HatefulMemes",), {"train": "train", "dev": "validation", "test": "test"},
                from_hub, "img", from_rows),
    write_sample=write_sample, sample_order=0,
)
