"""FakeNewsNet multimodal: ``DIR/fakenewsnet/{politi,gossip}_{train,test}.csv`` and images.

Columns: an id (``id``, or the unnamed index column; the line number otherwise), the news text
(``content``, ``text`` or ``title``), the image file name (``image``) and ``label`` where, as in the
released CSVs, 0 = fake and 1 = real; MM-Soc flips it so that fake is the positive class. Images live
in ``DIR/fakenewsnet/images/{politi,gossip}_{split}/``. The news text is cut to its first
``LoadOptions.text_length`` words by MM-Soc's ``truncate_input`` rule (128 by default, the MM-Soc
code's ``--text_input_length``; 0 keeps it whole). The hub copies ``Ahren09/MMSoc_PolitiFact`` and
``Ahren09/MMSoc_GossipCop`` have columns ``image, text, label, split`` and splits ``train, test``;
their ``label`` is read with 1 = fake (the MM-Soc code flips the CSV labels before use).
"""

from __future__ import annotations

import csv
import random
from collections.abc import Callable
from pathlib import Path

from mmsoc.core.io import atomic_open
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, Dataset, HubCopy, LoadOptions, SampleContext
from mmsoc.tasks.data.result import LoadResult
from mmsoc.tasks.data.rows import Row, existing_file, read_csv
from mmsoc.tasks.data.table import Cell, Table, TableReader
from mmsoc.tasks.data.text import truncate_words
from mmsoc.tasks.spec import TaskSpec

FOLDER = "fakenewsnet"
IMAGES = "images"
PREFIXES = {"misinfo_politifact": "politi", "misinfo_gossipcop": "gossip"}
TITLES = {"misinfo_politifact": "PolitiFact", "misinfo_gossipcop": "GossipCop"}
TEXT_COLUMNS = ("content", "text", "title")
CSV_FAKE_VALUE = 0
"""Raw ``label`` value that marks fake news in the released CSVs."""
HUB_FAKE_VALUE = 1

_MISINFO = "Is this news (image-text pair) misinformation? Answer 'Yes' or 'No'."
_ANSWERS = (("yes", "fake"), ("no", "true"))
_SYNONYMS = (("misinformation", "fake"), ("real", "true"))
_WHY = (
    ("fake", "Why do you think this image text pair is potentially misinformative?"),
    ("true", "Why do you think this image text pair is potentially true news?"),
)

TASKS = tuple(
    TaskSpec(
        task,
        TITLES[task],
        "classification",
        _MISINFO,
        ("fake", "true"),
        group="misinfo",
        answers=_ANSWERS,
        synonyms=_SYNONYMS,
        why=_WHY,
        sources=(FOLDER,),
        order=order,
    )
    for order, task in enumerate(PREFIXES)
)


def news_id(cell: Cell) -> str:
    """The ``id`` (or unnamed index) column, else ``line{N}``."""
    return cell.text(("id", "")) or f"line{cell.line}"


def news_text(cell: Cell) -> str:
    """The news text, cut to ``LoadOptions.text_length`` words."""
    return truncate_words(str(cell.require(TEXT_COLUMNS)).strip(), cell.options.text_length)


def news_label(fake_value: int) -> Callable[[Cell], str]:
    """The rule reading ``label`` (0 or 1) as ``fake`` where it is ``fake_value``, else ``true``."""

    def label(cell: Cell) -> str:
        raw = cell.row.get("label")
        try:
            value = int(float(raw))  # type: ignore[arg-type]  # None and junk end in the except
        except (TypeError, ValueError):
            value = None
        if value not in (0, 1):
            cell.fail(f"expected 0 or 1, got {raw!r}", "label")
        return "fake" if value == fake_value else "true"

    return label


def news_reader(fake_value: int) -> TableReader:
    """Misinformation examples from rows in the FakeNewsNet CSV format whose label ``fake_value`` is fake."""
    label = news_label(fake_value)
    return TableReader({task: Table(name, "image", label, id=news_id, text=news_text) for task, name in TITLES.items()})


READ = news_reader(CSV_FAKE_VALUE)


def load(
    spec: TaskSpec, root: Path, split: str, limit: int | None = None, options: LoadOptions = PAPER_OPTIONS
) -> LoadResult:
    """Load ``root/{prefix}_{split}.csv`` (``root`` is ``DIR/fakenewsnet``)."""
    name = f"{PREFIXES[spec.id]}_{split}"
    path = existing_file(root, f"{name}.csv")
    return READ(spec, read_csv(path), path, root / IMAGES / name, split, limit, options)


def from_hub(row: Row, number: int) -> Row:
    """A hub row (``image, text, label, split``) in the local format; the image file is ``{number}.png``."""
    item_id = row.get("id", number)
    return {"id": item_id, "content": row.get("text"), "image": f"{item_id}.png", "label": row.get("label")}


# The sample: the picture carries the label, the headline does not. Each headline is used by two items of a
# split, one fake and one true, and the headlines mix tabloid and sober wording, so a text-only model is at
# chance by construction. Fake items show a clash of loud colours, a starburst and a sensational stamp; true
# items a calm picture with a press-photo stamp.
POLITICIANS = ("Senator Ana Ruiz", "Governor Tom Baker", "Mayor Lee Chen", "Rep. Dana Ortiz", "Senator Paul Meyer")
POLITICS = (
    "SHOCKING: {p} secretly wired millions to an offshore account, insiders say",
    "BREAKING: {p} caught banning the national anthem at schools. Media silent!",
    "EXPOSED: {p} is paid by a secret cabal to rig the election, leaked memo proves",
    "{p} signs water infrastructure bill after committee review",
    "{p} holds town hall meeting on school funding in Springfield",
    "{p} visits flood-hit county and meets emergency crews",
)
CELEBRITIES = ("Mia Stone", "Jake Rivers", "Lola Grant", "Ethan Vale", "Nora Quinn")
GOSSIP = (
    "EXCLUSIVE: {c} and {d} secretly married in Vegas, source claims",
    "{c} pregnant with twins? Insiders reveal the shocking truth",
    "{c} feud explodes: she can't stand {d}, says insider",
    "{c} to star in new drama series alongside {d}",
    "{c} releases new album in May and announces world tour",
    "{c} attends film festival premiere with {d}",
)
LOOK = {
    True: (("red", "orange", "pink"), ("SHOCKING!", "LEAKED!", "EXPOSED!")),
    False: (("blue", "gray", "teal"), ("PRESS PHOTO", "FILE PHOTO", "POOL PHOTO")),
}
"""Fake or not -> (background colours, stamped words)."""
NEWS_SIZE = (128, 96)


def write_sample(root: Path, context: SampleContext) -> None:
    """Both CSVs of both subsets in the released format (0 = fake) with a drawn image per item."""
    from mmsoc.tasks.data import draw

    rng = context.rng
    for prefix in PREFIXES.values():
        politics, number = prefix == "politi", 0
        for split, n in context.splits:
            rows = []
            headlines = [_news_text(rng, politics) for _ in range((n + 1) // 2)]
            for pair, labels in draw.confounded(rng, n, {"fake": (True, False)}, 2):
                number += 1
                item_id = f"{'politifact' if politics else 'gossipcop'}{number}"
                image = root / IMAGES / f"{prefix}_{split}" / f"{item_id}.jpg"
                draw.save(_picture(rng, labels["fake"]), image)
                label = CSV_FAKE_VALUE if labels["fake"] else 1 - CSV_FAKE_VALUE
                rows.append((item_id, headlines[pair], f"{item_id}.jpg", label))
            with atomic_open(root / f"{prefix}_{split}.csv", "w", encoding="utf-8", newline="") as handle:
                writer = csv.writer(handle, lineterminator="\n")
                writer.writerow(("id", "content", "image", "label"))
                writer.writerows(rows)


def _news_text(rng: random.Random, politics: bool) -> str:
    """A headline in PolitiFact style (``politics``) or GossipCop style, tabloid or sober alike."""
    if politics:
        return rng.choice(POLITICS).format(p=rng.choice(POLITICIANS))
    first, second = rng.sample(CELEBRITIES, 2)
    return rng.choice(GOSSIP).format(c=first, d=second)


def _picture(rng: random.Random, fake: bool):
    """Loud colours, a starburst and a sensational stamp (fake), or a calm scene with a press stamp (true)."""
    from PIL import ImageDraw

    from mmsoc.tasks.data import draw

    colors, words = LOOK[fake]
    image = draw.backdrop(rng.choice(colors), rng.choice(draw.TEXTURES), NEWS_SIZE)
    pen = ImageDraw.Draw(image)
    if fake:
        draw.starburst(pen, (64, 44), 40, draw.COLORS["yellow"])
    else:
        draw.stick_figures(pen, (34, 14, 94, 66), 2)
    return draw.stamp(image, rng.choice(words), (64, 80), draw.BLACK if not fake else draw.COLORS["red"])


DATASET = Dataset(
    FOLDER,
    load,
    hub=HubCopy(
        tuple(f"Ahren09/MMSoc_{TITLES[task]}" for task in PREFIXES),
        {"train": "train", "test": "test"},
        from_hub,
        "image",
        news_reader(HUB_FAKE_VALUE),
        task_repos={task: f"Ahren09/MMSoc_{title}" for task, title in TITLES.items()},
    ),
    write_sample=write_sample,
    sample_order=3,
)
