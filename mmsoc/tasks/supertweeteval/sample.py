"""The embedded SuperTweetEval sample: a few synthetic tweets per task in the hub's JSON Lines layout.

``data/<task>/{train,test}.jsonl`` with ``N_ITEMS`` rows each and the hub's field names, drawn from the
shared generator task by task. ``tweet_emoji/map.txt`` lists a made-up set of ``EMOJI`` (the real 100
could not be checked; the loader takes the names from this file, as from the hub's). Each class has its
own cue word, so every task can be run and scored offline.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

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


def write_sample(root: Path, context: SampleContext) -> None:
    """Write every task's sample files under ``root`` (``DIR/data``)."""
    from mmsoc.tasks.registry import get_task, short_name, task_ids

    rng = context.rng
    for task_id in task_ids("supertweeteval"):
        spec = get_task(task_id)
        folder = root / short_name(task_id)
        for split in SPLITS:
            rows = [_row(rng, spec.kind, spec.labels, n) for n in range(N_ITEMS)]
            write_text(
                folder / f"{split}.jsonl",
                "".join(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n" for row in rows),
            )
        if spec.kind == "ste_emoji":
            write_text(folder / "map.txt", "\n".join(f"{i},{e}" for i, e in enumerate(EMOJI)))


def _row(rng: random.Random, kind: str, labels: tuple[str, ...], n: int) -> dict[str, Any]:
    thing, place = rng.choice(THINGS), rng.choice(PLACES)
    if kind in ("ste_sentiment", "ste_hate", "ste_emoji"):
        count = len(EMOJI) if kind == "ste_emoji" else len(labels)
        label = rng.randrange(count)
        row: dict[str, Any] = {"text": f"{CUES[label]} thinking about {thing} in {place} #{n}", "gold_label": label}
        return {**row, "target": thing} if kind == "ste_sentiment" else row
    if kind == "ste_multilabel":
        on = set(rng.sample(range(len(labels)), rng.randint(1, 2)))
        cues = " ".join(CUES[i % len(CUES)] for i in sorted(on))
        return {
            "text": f"{cues} said about {thing} #{n}",
            "gold_label_list": [int(i in on) for i in range(len(labels))],
        }
    if kind == "ste_yes_no":
        same = rng.randrange(2)
        word = thing.split()[-1]
        return {
            "text": f"{word} news from {place}",
            "text_1": f"{word} in {place} was great",
            "text_2": f"{word} in {place if same else rng.choice(PLACES)} {'was great' if same else 'is far'}",
            "target": word,
            "definition": f"an event in {place if same else 'another town'}",
            "gold_label_binary": same,
        }
    if kind == "ste_score":
        score = rng.randint(0, 5)
        return {
            "text": f"{CUES[score]} sharing {thing}",
            "text_1": f"{thing} today",
            "text_2": f"{CUES[score]} {thing}",
            "gold_score": float(score),
        }
    if kind in ("ste_qa", "ste_qg"):
        person = rng.choice(PEOPLE)
        text = f"{person} will speak about {thing} in {place} on Friday."
        question, answer = f"who will speak about {thing}?", person
        return {
            "text": text,
            "context": question if kind == "ste_qa" else answer,
            "gold_label_str": answer if kind == "ste_qa" else question,
        }
    return _ner_row(rng, n)


def _ner_row(rng: random.Random, n: int) -> dict[str, Any]:
    from mmsoc.tasks.supertweeteval.tasks import NER_TAGS

    person, place = rng.choice(PEOPLE).split(), rng.choice(PLACES)
    tokens = ["met", *person, "in", place, "today", f"#{n}"]
    tags = ["O", "B-person", "I-person", "O", "B-location", "O", "O"]
    return {
        "text": " ".join(tokens),
        "text_tokenized": tokens,
        "gold_label_sequence": [NER_TAGS.index(t) for t in tags],
        "entities": {"entity": [" ".join(person), place], "type": ["person", "location"]},
    }
