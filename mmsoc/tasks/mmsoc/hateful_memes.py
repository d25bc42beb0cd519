"""Hateful Memes: ``DIR/hateful_memes/{train,dev,test}.jsonl`` with rows ``{id, img, label, text}``.

``img`` is relative to ``DIR/hateful_memes`` (e.g. ``img/01235.png``); ``label`` 1 = hateful, 0 = not.
Serves the ``hate`` task and half of ``ocr`` (the meme text is the OCR reference). The hub copy
``Ahren09/MMSoc_HatefulMemes`` has columns ``id, image, text, label, split`` and splits
``train, validation, test``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmsoc.core.io import write_jsonl
from mmsoc.tasks.data.dataset import Dataset, HubCopy, SampleContext
from mmsoc.tasks.data.rows import Row
from mmsoc.tasks.data.table import Cell, Table, TableReader, split_file_loader
from mmsoc.tasks.spec import TaskSpec

FOLDER = "hateful_memes"
TITLE = "HatefulMemes"
LABELS = {0: "not_hateful", 1: "hateful"}
MEME_SIZE = (160, 160)

TASKS = (
    TaskSpec(
        "hate",
        TITLE,
        "classification",
        "Is this meme hateful? Answer 'Yes' or 'No'.",
        ("hateful", "not_hateful"),
        answers=(("yes", "hateful"), ("no", "not_hateful")),
        why=(
            ("hateful", "Why do you think this meme is potentially hateful?"),
            ("not_hateful", "Why do you think this meme is potentially not hateful?"),
        ),
        sources=(FOLDER,),
        order=3,
    ),
)


def hate_label(cell: Cell) -> str:
    """``label`` 1 or 0 as ``hateful`` / ``not_hateful``; InputError for anything else."""
    raw = cell.row.get("label")
    try:
        return LABELS[int(raw)]  # type: ignore[arg-type]  # None and junk end in the except
    except (TypeError, ValueError, KeyError):
        pass
    hint = " (unlabelled split? the original test.jsonl has no labels)" if raw is None else ""
    cell.fail(f"expected 0 or 1, got {raw!r}{hint}", "label")


READ = TableReader(
    {
        "hate": Table(TITLE, "img", hate_label, text=("text",)),
        "ocr": Table(TITLE, "img", "text", id_prefix=f"{FOLDER}/"),
    }
)
"""``hate`` reads the label and the meme text; OCR has the meme text as its reference and no text input."""


def from_hub(row: Row, number: int) -> Row:
    """A hub row (``id, image, text, label, split``) in the local format; the image file is ``{id}.png``."""
    item_id = row.get("id", number)
    return {"id": item_id, "img": f"{item_id}.png", "text": row.get("text"), "label": row.get("label")}


# The sample: the picture carries the label, the caption does not. Each caption is used by two memes of
# a split, one hateful and one not (the benign confounders of the real dataset), so a text-only model is
# at chance by construction; the picture shows the people of the caption crossed out on a dark
# background (hateful) or beside a heart on a light one (not hateful).
GROUPS = (
    "the hill folk",
    "people from the valley",
    "the night shift crowd",
    "those river people",
    "the east side crowd",
    "the new neighbours",
    "the marsh villagers",
    "people from up north",
)
CAPTIONS = (
    "look who moved in next door: {g}",
    "{g} at the town meeting last night",
    "this is what {g} are like",
    "everyone is talking about {g}",
    "{g} showed up at the market today",
    "meanwhile, {g}",
    "when {g} come to town",
    "a picture of {g} for you",
)
BACKGROUNDS = {True: ("red", "brown", "purple"), False: ("green", "teal", "yellow")}
"""Background colours of hateful (dark, low green) and benign (light, high green) memes."""
SAMPLE_MEMES = "hateful_memes"
"""Key in ``SampleContext.shared`` of the memes drawn (split -> list of :class:`SampleMeme`)."""


@dataclass(frozen=True)
class SampleMeme:
    """A sample meme as drawn, for writers that describe it (``image`` is relative to ``DIR``)."""

    id: str
    image: str
    text: str
    hateful: bool
    group: str
    description: str
    """What the picture shows, in words (the image-description reference)."""


def write_sample(root: Path, context: SampleContext) -> None:
    """Balanced hateful/benign memes: pairs that share a caption, told apart by the drawing."""
    from mmsoc.tasks.data import draw

    rng, number = context.rng, 10000
    memes: dict[str, list[SampleMeme]] = {}
    for split, n in context.splits:
        rows: list[dict[str, object]] = []
        memes[split] = []
        captions = [_caption(rng) for _ in range((n + 1) // 2)]
        for pair, labels in draw.confounded(rng, n, {"hate": (True, False)}, 2):
            number += 1
            text, group = captions[pair]
            hateful = labels["hate"]
            item_id, image = f"{number:05d}", f"img/{number:05d}.png"
            picture, description = _picture(rng, hateful, text)
            draw.save(picture, root / image)
            rows.append({"id": item_id, "img": image, "label": int(hateful), "text": text})
            memes[split].append(SampleMeme(item_id, f"{FOLDER}/{image}", text, hateful, group, description))
        write_jsonl(root / f"{split}.jsonl", rows)
    context.shared[SAMPLE_MEMES] = memes


def _caption(rng: random.Random) -> tuple[str, str]:
    """(caption, group named): neutral words about a fictional group."""
    group = rng.choice(GROUPS)
    return rng.choice(CAPTIONS).format(g=group), group


def _picture(rng: random.Random, hateful: bool, text: str) -> tuple[Any, str]:
    """The meme (caption at the top) and its description."""
    from PIL import ImageDraw

    from mmsoc.tasks.data import draw

    background, texture, count = rng.choice(BACKGROUNDS[hateful]), rng.choice(draw.TEXTURES), rng.choice((2, 3, 4))
    image = draw.backdrop(background, texture, MEME_SIZE)
    pen = ImageDraw.Draw(image)
    box = (18, 78, 112, 150)
    draw.stick_figures(pen, box, count)
    if hateful:
        draw.cross(pen, (box[0] - 6, box[1] - 4, box[2] + 6, box[3] + 4))
        symbol = "crossed out by a large black X"
    else:
        draw.heart(pen, (136, 104), 14, draw.COLORS["red"])
        symbol = "next to a red heart"
    draw.render_text(image, text)
    where = draw.background_words(background, texture)
    return image, (
        f"A meme showing {count} white stick figures {symbol} on {where}, with white text outlined in "
        f'black across the top that reads "{text}".'
    )


DATASET = Dataset(
    FOLDER,
    split_file_loader(READ),
    hub=HubCopy(
        ("Ahren09/MMSoc_HatefulMemes",),
        {"train": "train", "dev": "validation", "test": "test"},
        from_hub,
        "img",
        READ,
    ),
    write_sample=write_sample,
    sample_order=0,
)
