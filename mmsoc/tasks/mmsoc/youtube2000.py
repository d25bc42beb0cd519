"""YouTube2000: ``DIR/youtube2000/{train,test}.jsonl`` and ``DIR/youtube2000/thumbnails/``.

Rows ``{id, title, description, thumbnail, topics}``: ``thumbnail`` is relative to
``DIR/youtube2000``; ``topics`` is a list (or comma-separated string) of the 62 topic names, written
either as names (``pop_music``, ``Pop_music``) or as the YouTube API's Wikipedia URLs
(``.../wiki/Pop_music``, ``.../wiki/Lifestyle_(sociology)``). The hub copy
``Ahren09/MMSoc_YouTube2000`` (also ``Ahren09/MMSoc_YouTube2M`` and the older ``Ahren09/YouTube2000``)
has the YouTube API columns of the MM-Soc code (``image, caption, categoryId, ..., description, ...,
id, ..., tags, title, topicIds, uploadStatus, viewCount, topics, split``); the label is ``topics``
(``tags`` is the uploader's free text), and the splits are ``train, val, test``.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

from mmsoc.core.io import InputError, write_jsonl
from mmsoc.tasks.data.dataset import Dataset, HubCopy, SampleContext
from mmsoc.tasks.data.rows import Row
from mmsoc.tasks.data.table import Cell, Table, TableReader, split_file_loader
from mmsoc.tasks.spec import TaskSpec

FOLDER = "youtube2000"
TITLE = "YouTube2000"
YOUTUBE_TOPICS: tuple[str, ...] = (
    "action-adventure_game",
    "action_game",
    "american_football",
    "association_football",
    "baseball",
    "basketball",
    "boxing",
    "business",
    "casual_game",
    "christian_music",
    "classical_music",
    "country_music",
    "cricket",
    "electronic_music",
    "entertainment",
    "fashion",
    "film",
    "food",
    "golf",
    "health",
    "hip_hop_music",
    "hobby",
    "humour",
    "ice_hockey",
    "independent_music",
    "jazz",
    "knowledge",
    "lifestyle",
    "military",
    "mixed_martial_arts",
    "motorsport",
    "music",
    "music_of_asia",
    "music_of_latin_america",
    "music_video_game",
    "performing_arts",
    "pet",
    "physical_attractiveness",
    "physical_fitness",
    "politics",
    "pop_music",
    "professional_wrestling",
    "puzzle_video_game",
    "racing_video_game",
    "reggae",
    "religion",
    "rhythm_and_blues",
    "rock_music",
    "role-playing_video_game",
    "simulation_video_game",
    "society",
    "soul_music",
    "sport",
    "sports_game",
    "strategy_video_game",
    "technology",
    "television_program",
    "tennis",
    "tourism",
    "vehicle",
    "video_game_culture",
    "volleyball",
)
"""The 62 topics (MM-Soc Table 7), in table order."""
_TOPIC_ORDER = {topic: i for i, topic in enumerate(YOUTUBE_TOPICS)}
_DISAMBIGUATION = re.compile(r"_\([^)]*\)$")

TASKS = (
    TaskSpec(
        "tagging",
        TITLE,
        "multilabel",
        "Predict the tags of the following online video given its title, description, and thumbnail "
        'image. Different tags must be separated by commas. For example, "sports,tennis,french-open"',
        YOUTUBE_TOPICS,
        why=(("{tags}", 'Why do the tags "{tags}" potentially fit this online video?'),),
        sources=(FOLDER,),
        order=2,
    ),
)


def video_text(cell: Cell) -> str:
    """The title (required) and the description, one per line."""
    title = str(cell.require("title")).strip()
    return "\n".join(part for part in (title, cell.text(("description",))) if part)


def video_topics(cell: Cell) -> list[str]:
    return parse_topics(cell.require("topics"), cell.source, cell.line)


READ = TableReader({"tagging": Table(TITLE, "thumbnail", video_topics, text=video_text, label_first=True)})
"""Tagging: text is title and description, label the topics in table order."""


def parse_topics(value: object, source: str | os.PathLike, line: int) -> list[str]:
    """Known topic names from a list or comma-separated string; InputError for an unknown one."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise InputError(source, f"expected a list of topics, got {type(value).__name__}", line=line, field="topics")
    topics = set()
    for item in items:
        name = str(item).strip().rsplit("/wiki/", 1)[-1].lower().replace(" ", "_")
        name = _DISAMBIGUATION.sub("", name)
        if name not in _TOPIC_ORDER:
            raise InputError(
                source, f"unknown topic {item!r} (not one of the 62 YouTube topics)", line=line, field="topics"
            )
        topics.add(name)
    return sorted(topics, key=_TOPIC_ORDER.__getitem__)


def from_hub(row: Row, number: int) -> Row:
    """A hub row (YouTube API columns) in the local format; the thumbnail file is ``{id}.png``."""
    item_id = row.get("id") or number
    return {
        "id": item_id,
        "title": row.get("title"),
        "description": row.get("description"),
        "thumbnail": f"{item_id}.png",
        "topics": row.get("topics"),
    }


# The sample: videos whose title and description carry their topics, with fictional names.
VIDEO_GROUPS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("sport", "tennis"),
        "{a} vs {b} | Final Set Highlights",
        "Tennis highlights from the open final: every serve, rally and match point.",
    ),
    (
        ("association_football", "sport"),
        "{a} FC vs {b} United 2-1 | All Goals",
        "Football match highlights with all goals, saves and the penalty drama.",
    ),
    (
        ("music", "pop_music"),
        "{a} - Summer Nights (Official Music Video)",
        "Official music video for the new pop single. Stream the album now.",
    ),
    (
        ("hip_hop_music", "music"),
        "{a} ft. {b} - Block Party (Official Audio)",
        "New rap track from the upcoming hip hop mixtape.",
    ),
    (
        ("action_game", "video_game_culture"),
        "Shadow Strike Gameplay Walkthrough Part {n}",
        "Let's play the new action game, boss fight and secret level included.",
    ),
    (
        ("food", "lifestyle"),
        "Easy {dish} Recipe in 15 Minutes",
        "Quick home cooking recipe with simple ingredients from your kitchen.",
    ),
    (
        ("pet",),
        "Funny Cats and Dogs Compilation #{n}",
        "Cute pets doing silly things: kittens, puppies and one very confused parrot.",
    ),
    (
        ("politics", "society"),
        "Debate Night: {a} on Healthcare and Taxes",
        "Full debate coverage and analysis of the election campaign.",
    ),
    (
        ("technology",),
        "Phone X{n} Review: Is It Worth It?",
        "Unboxing and review of the new smartphone: camera, battery and performance tests.",
    ),
    (
        ("entertainment", "film"),
        "Midnight Harbor - Official Trailer",
        "Watch the official movie trailer. In theaters this winter.",
    ),
    (
        ("health", "physical_fitness"),
        "20 Minute Full Body Workout at Home",
        "No equipment fitness workout for strength and cardio. Follow along!",
    ),
    (
        ("vehicle",),
        "2024 Roadster {n} Test Drive and Review",
        "We take the new car on a test drive: engine, handling and interior.",
    ),
)
"""(topics, title template, description) of the sample videos."""
NAMES = ("Alex Moore", "Sam Park", "Rita Lane", "Omar Diaz", "Kim Sato", "Lucas Berg")
DISHES = ("Garlic Noodle", "Banana Bread", "Chicken Curry", "Veggie Taco", "Lemon Pasta")
THUMB_SIZE = (160, 90)
ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def write_sample(root: Path, context: SampleContext) -> None:
    """Videos with YouTube-style ids and thumbnails showing a drawn scene and the title."""
    from mmsoc.tasks.data import draw

    rng = context.rng
    for split, n in context.splits:
        rows = []
        for _ in range(n):
            item_id = "".join(rng.choice(ID_ALPHABET) for _ in range(11))
            title, description, topics = _video(rng)
            thumbnail = f"thumbnails/{item_id}.jpg"
            image = draw.render_text(draw.draw_scene(draw.random_scene(rng), THUMB_SIZE), title, at_bottom=True)
            draw.save(image, root / thumbnail)
            rows.append(
                {
                    "id": item_id,
                    "title": title,
                    "description": description,
                    "thumbnail": thumbnail,
                    "topics": list(topics),
                }
            )
        write_jsonl(root / f"{split}.jsonl", rows)


def _video(rng: random.Random) -> tuple[str, str, tuple[str, ...]]:
    """(title, description, topics) of a sample video."""
    topics, title, description = rng.choice(VIDEO_GROUPS)
    first, second = rng.sample(NAMES, 2)
    return title.format(a=first, b=second, n=rng.randint(2, 40), dish=rng.choice(DISHES)), description, topics


DATASET = Dataset(
    FOLDER,
    split_file_loader(READ),
    hub=HubCopy(
        ("Ahren09/MMSoc_YouTube2000", "Ahren09/MMSoc_YouTube2M", "Ahren09/YouTube2000"),
        {"train": "train", "dev": "val", "test": "test"},
        from_hub,
        "thumbnail",
        READ,
    ),
    write_sample=write_sample,
    sample_order=4,
)
