"""The embedded SuperTweetEval sample: a few synthetic tweets per task in the hub's JSON Lines layout.

``data/<task>/{train,test}.jsonl`` with ``N_ITEMS`` rows each and the hub's field names, drawn from the
shared generator task by task, each task's kind choosing its rows (``sample_row``) from the builders here.
``tweet_emoji/map.txt`` lists a made-up set of ``EMOJI`` (the real 100 could not be checked; the loader
takes the names from this file, as from the hub's). Each class has its own cue word, so every task can
be run and scored offline.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from mmsoc.core.io import write_text
from mmsoc.tasks.data.dataset import SampleContext
from mmsoc.tasks.socket.sample import CUES as SOCKET_CUES

N_ITEMS = 6
SPLITS = ("train", "test")
EMOJI = ("❤", "😂", "🔥", "😍", "🙏", "😭", "✨", "🎉")
CUES = SOCKET_CUES[:19]
"""The SocKET sample's cue words, one per class (19 are enough here)."""
PLACES = ("Leeds", "Porto", "Quito", "Oslo", "Perth", "Dakar")
PEOPLE = ("Ana Silva", "Tom Reyes", "Mia Khan", "Leo Park")
THINGS = ("the bus strike", "the cup final", "the new album", "the heatwave", "the town fair")


@dataclass(frozen=True)
class SampleDraw:
    """What one sample row is drawn from: the generator, the task's labels, the row's number, and the thing
    and place drawn for it first."""

    rng: random.Random
    labels: tuple[str, ...]
    n: int
    thing: str
    place: str


def write_sample(root: Path, context: SampleContext) -> None:
    """Write every task's sample files under ``root`` (``DIR/data``); each task's kind gives its rows."""
    from mmsoc.tasks.kinds._ste import ste_kind
    from mmsoc.tasks.registry import get_task, short_name, task_ids

    rng = context.rng
    for task_id in task_ids("supertweeteval"):
        spec = get_task(task_id)
        kind = ste_kind(spec)
        folder = root / short_name(task_id)
        for split in SPLITS:
            rows = [
                kind.sample_row(SampleDraw(rng, spec.labels, n, rng.choice(THINGS), rng.choice(PLACES)))
                for n in range(N_ITEMS)
            ]
            write_text(
                folder / f"{split}.jsonl",
                "".join(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n" for row in rows),
            )
        kind.write_sample_files(folder)


def write_emoji_map(folder: Path) -> None:
    """``map.txt`` naming the made-up ``EMOJI`` by id."""
    write_text(folder / "map.txt", "\n".join(f"{i},{e}" for i, e in enumerate(EMOJI)))


def class_row(draw: SampleDraw, count: int) -> dict[str, object]:
    """A tweet with one class's cue word (``gold_label``: its id, of ``count``)."""
    label = draw.rng.randrange(count)
    return {"text": f"{CUES[label]} thinking about {draw.thing} in {draw.place} #{draw.n}", "gold_label": label}


def labels_row(draw: SampleDraw) -> dict[str, object]:
    """A tweet with the cue words of one or two labels (``gold_label_list``: the indicator vector)."""
    rng, labels = draw.rng, draw.labels
    on = set(rng.sample(range(len(labels)), rng.randint(1, 2)))
    cues = " ".join(CUES[i % len(CUES)] for i in sorted(on))
    return {
        "text": f"{cues} said about {draw.thing} #{draw.n}",
        "gold_label_list": [int(i in on) for i in range(len(labels))],
    }


def yes_no_row(draw: SampleDraw) -> dict[str, object]:
    """A pair of sentences on the same or another place (``gold_label_binary``: 1 for the same)."""
    rng, place = draw.rng, draw.place
    same = rng.randrange(2)
    word = draw.thing.split()[-1]
    return {
        "text": f"{word} news from {place}",
        "text_1": f"{word} in {place} was great",
        "text_2": f"{word} in {place if same else rng.choice(PLACES)} {'was great' if same else 'is far'}",
        "target": word,
        "definition": f"an event in {place if same else 'another town'}",
        "gold_label_binary": same,
    }


def score_row(draw: SampleDraw) -> dict[str, object]:
    """A tweet whose cue word is its score (``gold_score``, 0 to 5)."""
    score = draw.rng.randint(0, 5)
    return {
        "text": f"{CUES[score]} sharing {draw.thing}",
        "text_1": f"{draw.thing} today",
        "text_2": f"{CUES[score]} {draw.thing}",
        "gold_score": float(score),
    }


def question_row(draw: SampleDraw, answers: bool) -> dict[str, object]:
    """A sentence naming who will speak; ``gold_label_str`` is the answer to a question about it when
    ``answers`` (QA), else the question the answer answers (QG)."""
    person = draw.rng.choice(PEOPLE)
    text = f"{person} will speak about {draw.thing} in {draw.place} on Friday."
    question, answer = f"who will speak about {draw.thing}?", person
    return {
        "text": text,
        "context": question if answers else answer,
        "gold_label_str": answer if answers else question,
    }


def entities_row(draw: SampleDraw) -> dict[str, object]:
    """A sentence naming a person and a place, tokenised and tagged (``gold_label_sequence``: tag ids)."""
    from mmsoc.tasks.supertweeteval.tasks import NER_TAGS

    person, place = draw.rng.choice(PEOPLE).split(), draw.rng.choice(PLACES)
    tokens = ["met", *person, "in", place, "today", f"#{draw.n}"]
    tags = ["O", "B-person", "I-person", "O", "B-location", "O", "O"]
    return {
        "text": " ".join(tokens),
        "text_tokenized": tokens,
        "gold_label_sequence": [NER_TAGS.index(t) for t in tags],
        "entities": {"entity": [" ".join(person), place], "type": ["person", "location"]},
    }
