"""The embedded SocKET sample: a few synthetic items per task, every task type, in the hub layout.

``SOCKET_DATA/<task>/{train,test}_{text,labels}.txt`` and ``label_list.txt`` (not for span tasks), with
``N_ITEMS`` items per split, drawn from the shared generator task by task in the table's order. Each
class has its own cue word in the text, a regression text carries a word for its score's range, and a
span text contains its gold span (or none), so every type can be run and scored offline.
"""

from __future__ import annotations

import random
from pathlib import Path

from mmsoc.core.io import write_text
from mmsoc.tasks.data.dataset import SampleContext

N_ITEMS = 6
SPLITS = ("train", "test")
TOPICS = (
    "the late train",
    "the new bakery",
    "my neighbour's dog",
    "the football final",
    "the storm last night",
    "the office printer",
    "the school play",
    "the price of coffee",
)
CUES = (
    "plainly",
    "wildly",
    "gently",
    "oddly",
    "boldly",
    "sadly",
    "kindly",
    "madly",
    "calmly",
    "warmly",
    "coldly",
    "loudly",
    "softly",
    "slyly",
    "dryly",
    "bravely",
    "shyly",
    "proudly",
    "fondly",
    "grimly",
)
"""One cue per class index (the largest task, tweet_emoji, has 20 classes)."""
LEVELS = ("barely", "somewhat", "quite", "very", "extremely")
SPAN_PHRASES = ("a total disgrace", "utterly furious", "pure propaganda lies", "so deeply hurt")


def write_sample(root: Path, context: SampleContext) -> None:
    """Write every SocKET task's sample files under ``root`` (``DIR/SOCKET_DATA``)."""
    from mmsoc.tasks.registry import get_task, short_name, task_ids
    from mmsoc.tasks.socket.table import type_of

    rng = context.rng
    for task_id in task_ids("socket"):
        spec = get_task(task_id)
        folder, task_type = root / short_name(task_id), type_of(spec)
        for split in SPLITS:
            items = [_item(rng, spec.labels, task_type, spec.prompt, n) for n in range(N_ITEMS)]
            write_text(folder / f"{split}_text.txt", "".join(f"{text}\n" for text, _ in items))
            write_text(folder / f"{split}_labels.txt", "".join(f"{label}\n" for _, label in items))
        if task_type != "SPAN":
            write_text(folder / "label_list.txt", "\n".join(spec.labels))


def _item(rng: random.Random, labels: tuple[str, ...], task_type: str, prompt: str, n: int) -> tuple[str, str]:
    """(text line, label line) of one sample item."""
    topic = rng.choice(TOPICS)
    if task_type == "REG":
        top = 7.0 if "to 7.0" in prompt else 5.0
        score = round(rng.uniform(0.0, top), 1)
        level = LEVELS[min(int(score / top * len(LEVELS)), len(LEVELS) - 1)]
        return f"I feel {level} strongly about {topic}.", str(score)
    if task_type == "SPAN":
        if n % 3 == 2:
            return f"Nothing special to report about {topic} today.", repr({labels[0]: []})
        phrase = rng.choice(SPAN_PHRASES)
        return f"Honestly {topic} was {phrase} and everyone saw it.", repr({labels[0]: [phrase]})
    index = rng.randrange(len(labels))
    if task_type == "PAIR":
        other = rng.choice(TOPICS)
        return f"They {CUES[index]} talked about {topic} [SEP] We talked about {other} again", labels[index]
    return f"Someone {CUES[index]} wrote about {topic}, post {n}.", labels[index]
