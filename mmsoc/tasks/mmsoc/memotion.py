"""Memotion 7k: ``DIR/memotion/labels.csv`` (or ``labels.xlsx``) and ``DIR/memotion/images/``.

Columns as released (``image_name, text_ocr, text_corrected, humour, sarcasm, offensive, motivational,
overall_sentiment``) or as the MM-Soc code reads them (``image``, ``humor``, ``sentiment``), and
optionally ``split`` (train/dev/test; ``val`` is dev). Per-split files ``labels_{split}.csv``/``.xlsx``
are used instead when present. Without a split column the rows, in file order, are split as the
MM-Soc code splits them (``data_utils.load_data``): the first ``int(0.8 n)`` train, the next
``int(0.1 n)`` dev, the rest test (5,593 / 699 / 700 of the 6,992 rows). Raw intensity labels collapse
to the MM-Soc labels (``LABEL_MAPS``). The meme text is ``text_corrected``, or ``text_ocr`` where that
is empty; it is also the OCR reference. The hub copy ``Ahren09/MMSoc_Memotion`` (and the older
``Ahren09/Memotion`` the MM-Soc code reads) has columns ``image, text_ocr, text_corrected, humor,
sarcasm, offensive, motivational, sentiment, split`` and splits ``train, validation, test``.
"""

from __future__ import annotations

import csv
import os
import random
from collections.abc import Iterable
from pathlib import Path

from mmsoc.core.io import InputError, atomic_open
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, Dataset, HubCopy, LoadOptions, SampleContext, canonical_split
from mmsoc.tasks.data.hub import image_file_name
from mmsoc.tasks.data.result import LoadResult
from mmsoc.tasks.data.rows import Row, existing_file, read_rows
from mmsoc.tasks.data.table import Table, TableReader
from mmsoc.tasks.spec import TaskSpec

FOLDER = "memotion"
TITLE = "Memotion"
IMAGES = "images"
IMAGE_COLUMNS = ("image_name", "image")
TEXT_COLUMNS = ("text_corrected", "text_ocr")
COLUMNS = {
    "humor": ("humor", "humour"),
    "sarcasm": ("sarcasm",),
    "offensive": ("offensive",),
    "sentiment": ("sentiment", "overall_sentiment"),
}
"""Task id -> its label column (MM-Soc and hub name first, then the released file's name)."""
LABEL_MAPS: dict[str, dict[str, str]] = {
    "humor": {"hilarious": "humorous", "very_funny": "humorous", "funny": "humorous", "not_funny": "not_humorous"},
    "sarcasm": {
        "general": "sarcastic",
        "twisted_meaning": "sarcastic",
        "very_twisted": "sarcastic",
        "not_sarcastic": "not_sarcastic",
    },
    "offensive": {
        "slight": "offensive",
        "very_offensive": "offensive",
        "hateful_offensive": "offensive",
        "not_offensive": "not_offensive",
    },
    "sentiment": {
        "very_negative": "negative",
        "negative": "negative",
        "neutral": "neutral",
        "positive": "positive",
        "very_positive": "positive",
    },
}
"""Raw Memotion label -> MM-Soc label, per task."""
SPLIT_SHARES = (("train", 0.8), ("dev", 0.1))
"""The MM-Soc sequential split: each share of the rows, truncated by ``int``; test takes the rest."""

_BINARY_MEME = "Is this meme {q}? Answer '{yes}' or '{no}'."


def _why_binary(adjective: str, positive: str, negative: str) -> tuple[tuple[str, str], ...]:
    return (
        (positive, f"Why is this meme potentially {adjective}?"),
        (negative, f"Why is this meme potentially not {adjective}?"),
    )


TASKS = (
    TaskSpec(
        "sentiment",
        TITLE,
        "classification",
        "What is the overall sentiment expressed through this meme? Answer 'positive' or 'neutral' or 'negative'",
        ("positive", "neutral", "negative"),
        why=tuple((s, f"Why is the sentiment potentially {s}?") for s in ("positive", "neutral", "negative")),
        sources=(FOLDER,),
        order=4,
    ),
    TaskSpec(
        "humor",
        TITLE,
        "classification",
        _BINARY_MEME.format(q="humorous", yes="humorous", no="not_humorous"),
        ("humorous", "not_humorous"),
        synonyms=(("funny", "humorous"),),
        why=_why_binary("humorous", "humorous", "not_humorous"),
        sources=(FOLDER,),
        order=5,
    ),
    TaskSpec(
        "sarcasm",
        TITLE,
        "classification",
        _BINARY_MEME.format(q="sarcastic", yes="sarcastic", no="not_sarcastic"),
        ("sarcastic", "not_sarcastic"),
        why=_why_binary("sarcastic", "sarcastic", "not_sarcastic"),
        sources=(FOLDER,),
        order=6,
    ),
    TaskSpec(
        "offensive",
        TITLE,
        "classification",
        _BINARY_MEME.format(q="offensive", yes="offensive", no="not_offensive"),
        ("offensive", "not_offensive"),
        why=_why_binary("offensive", "offensive", "not_offensive"),
        sources=(FOLDER,),
        order=7,
    ),
)


def load(
    spec: TaskSpec, root: Path, split: str, limit: int | None = None, options: LoadOptions = PAPER_OPTIONS
) -> LoadResult:
    """Load one split of ``root`` (``DIR/memotion``)."""
    per_split = [root / f"labels_{split}{ext}" for ext in (".csv", ".xlsx")]
    path = next((p for p in per_split if p.is_file()), None) or existing_file(root, "labels.csv", "labels.xlsx")
    rows: Iterable[tuple[int, Row]] = read_rows(path)
    if path.stem == "labels":
        rows = split_rows(rows, path, split)
    return READ(spec, rows, path, root / IMAGES, split, limit, options)


def split_rows(rows: Iterable[tuple[int, Row]], source: str | os.PathLike, split: str) -> list[tuple[int, Row]]:
    """The rows of ``split``: by their ``split`` column, or, when no row has one, by the MM-Soc
    sequential split of all rows in file order (:func:`split_bounds`)."""
    rows = list(rows)
    marked = [(line, canonical_split(str(row.get("split") or ""))) for line, row in rows]
    if any(name for _, name in marked):
        line = next((line for line, name in marked if not name), None)
        if line is not None:
            raise InputError(source, "empty split while other rows have one", line=line, field="split")
        return [pair for pair, (_, name) in zip(rows, marked) if name == split]
    bounds = split_bounds(len(rows))
    if split not in bounds:
        raise InputError(
            source, f"no split {split!r}: without a split column the rows are split into {', '.join(bounds)}"
        )
    start, stop = bounds[split]
    return rows[start:stop]


def split_bounds(n: int) -> dict[str, tuple[int, int]]:
    """Split -> (first row, row after the last) of the MM-Soc sequential split of ``n`` rows."""
    bounds, start = {}, 0
    for name, share in SPLIT_SHARES:
        size = int(n * share)
        bounds[name] = (start, start + size)
        start += size
    bounds["test"] = (start, n)
    return bounds


READ = TableReader(
    {
        **{
            task: Table(TITLE, IMAGE_COLUMNS, COLUMNS[task], LABEL_MAPS[task], id=None, text=TEXT_COLUMNS)
            for task in COLUMNS
        },
        "ocr": Table(TITLE, IMAGE_COLUMNS, TEXT_COLUMNS, id=None, id_prefix=f"{FOLDER}/"),
    }
)
"""The image name is the id; a Memotion task reads its label column through its label map, OCR has the
meme text as its reference and no text input."""


def from_hub(row: Row, number: int) -> Row:
    """A hub row in the local format: the image file keeps its stored name (else ``{number}.png``)."""
    local = {name: value for name, value in row.items() if name != "image"}
    return {**local, "image_name": image_file_name(row.get("image"), f"{number}.png")}


# The sample: the picture carries every label, the caption none. Each caption is shared by a group of six
# memes whose labels are balanced within the group for every task, so a text-only model is at chance by
# construction. The picture: a face on a background whose colour and mouth give the sentiment, a wink
# for sarcasm, confetti and tears of laughter for humour, a thick red frame for offensive.
CAPTIONS = (
    "me looking at the group chat",
    "when the meeting could have been an email",
    "my face when",
    "nobody: absolutely nobody:",
    "me after reading the comments",
    "how it feels on a monday",
    "when someone says they are fine",
    "that moment at the family dinner",
)
SENTIMENT_LOOK = {
    "positive": (("yellow", "orange", "pink"), "smile"),
    "neutral": (("gray", "teal", "green"), "flat"),
    "negative": (("blue", "purple", "brown"), "frown"),
}
"""Sentiment -> (background colours, mouth of the face)."""
RAW = {
    "humorous": ("funny", "very_funny", "hilarious"),
    "not_humorous": ("not_funny",),
    "sarcastic": ("general", "twisted_meaning", "very_twisted"),
    "not_sarcastic": ("not_sarcastic",),
    "offensive": ("slight", "very_offensive", "hateful_offensive"),
    "not_offensive": ("not_offensive",),
    "positive": ("positive", "very_positive"),
    "negative": ("negative", "very_negative"),
    "neutral": ("neutral",),
}
"""MM-Soc label -> the raw Memotion labels that collapse to it."""
MEME_SIZE = (160, 160)
GROUP = 6
"""Memes per shared caption: every label of every task balanced within a group."""
SAMPLE_COLUMNS = (
    "",
    "image_name",
    "text_ocr",
    "text_corrected",
    "humour",
    "sarcasm",
    "offensive",
    "motivational",
    "overall_sentiment",
    "split",
)
"""The released ``labels.csv`` header, plus the split column."""


def write_sample(root: Path, context: SampleContext) -> None:
    """``labels.csv`` in the released format and memes with their caption rendered, every label balanced and
    carried by the drawing."""
    from mmsoc.tasks.data import draw

    rng, rows, number = context.rng, [], 0
    label_sets = {task: tuple(sorted(set(mapping.values()))) for task, mapping in LABEL_MAPS.items()}
    for split, n in context.splits:
        captions = [rng.choice(CAPTIONS) for _ in range(-(-n // GROUP))]
        for group, labels in draw.confounded(rng, n, label_sets, GROUP):
            text = captions[group]
            number += 1
            name = f"image_{number}.jpg"
            draw.save(_picture(rng, labels, text), root / IMAGES / name)
            raw = {task: rng.choice(RAW[label]) for task, label in labels.items()}
            rows.append(
                (
                    str(number - 1),
                    name,
                    text,
                    text,
                    raw["humor"],
                    raw["sarcasm"],
                    raw["offensive"],
                    rng.choice(("motivational", "not_motivational")),
                    raw["sentiment"],
                    split,
                )
            )
    with atomic_open(root / "labels.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(SAMPLE_COLUMNS)
        writer.writerows(rows)


def _picture(rng: random.Random, labels: dict[str, str], text: str):
    """A meme whose drawing shows its four labels, with ``text`` across the top."""
    from PIL import ImageDraw

    from mmsoc.tasks.data import draw

    colors, mouth = SENTIMENT_LOOK[labels["sentiment"]]
    image = draw.backdrop(rng.choice(colors), rng.choice(draw.TEXTURES), MEME_SIZE)
    pen = ImageDraw.Draw(image)
    if labels["humor"] == "humorous":
        draw.confetti(pen, rng, MEME_SIZE, 60)
    draw.face(pen, (80, 112), 34, mouth, wink=labels["sarcasm"] == "sarcastic")
    if labels["humor"] == "humorous":
        for x in (38, 122):
            draw.tear(pen, (x, 116), 8)
    if labels["offensive"] == "offensive":
        draw.frame(pen, MEME_SIZE, 8, draw.COLORS["red"])
    return draw.render_text(image, text)


_HUB_SPLITS = {"train": "train", "dev": "validation", "test": "test"}
DATASET = Dataset(
    FOLDER,
    load,
    hub=HubCopy(("Ahren09/MMSoc_Memotion", "Ahren09/Memotion"), _HUB_SPLITS, from_hub, "image_name", READ),
    write_sample=write_sample,
    sample_order=2,
)
