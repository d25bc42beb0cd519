"""Label-conditioned "why" prompts that ask a teacher model to explain a known answer.

The wording follows the MM-Soc release's question table; prompts for the labels it left out
(not hateful, neutral sentiment, video tags) are written in the same style. Prompts are data: the
version is recorded with every explanation written from them.
"""

from __future__ import annotations

from collections.abc import Sequence

from mmsoc.tasks.table import get_task

WHY_PROMPT_VERSION = "mmsoc-why-v1"

_MISINFO = {
    "fake": "Why do you think this image text pair is potentially misinformative?",
    "true": "Why do you think this image text pair is potentially true news?",
}

WHY_PROMPTS: dict[str, dict[str, str]] = {
    "misinfo_politifact": _MISINFO,
    "misinfo_gossipcop": _MISINFO,
    "hate": {
        "hateful": "Why do you think this meme is potentially hateful?",
        "not_hateful": "Why do you think this meme is potentially not hateful?",
    },
    "humor": {
        "humorous": "Why is this meme potentially humorous?",
        "not_humorous": "Why is this meme potentially not humorous?",
    },
    "sarcasm": {
        "sarcastic": "Why is this meme potentially sarcastic?",
        "not_sarcastic": "Why is this meme potentially not sarcastic?",
    },
    "offensive": {
        "offensive": "Why is this meme potentially offensive?",
        "not_offensive": "Why is this meme potentially not offensive?",
    },
    "sentiment": {
        "positive": "Why is the sentiment potentially positive?",
        "neutral": "Why is the sentiment potentially neutral?",
        "negative": "Why is the sentiment potentially negative?",
    },
}

TAGGING_WHY = "Why do the tags \"{tags}\" potentially fit this online video?"

EXPLAINABLE_TASKS: tuple[str, ...] = (*WHY_PROMPTS, "tagging")
"""Tasks with a label to explain; OCR and the description tasks have nothing to justify."""


def why_prompt(task_id: str, label: str | Sequence[str]) -> str:
    """The "why" question for one gold label (a topic list for tagging)."""
    get_task(task_id)
    if task_id == "tagging":
        tags = [label] if isinstance(label, str) else list(label)
        return TAGGING_WHY.format(tags=",".join(tags))
    if task_id not in WHY_PROMPTS:
        raise ValueError(f"task {task_id!r} has no label to explain; explainable tasks: {', '.join(EXPLAINABLE_TASKS)}")
    try:
        return WHY_PROMPTS[task_id][str(label)]
    except KeyError:
        raise ValueError(f"task {task_id!r} has no label {label!r}; labels: {', '.join(WHY_PROMPTS[task_id])}") from None
