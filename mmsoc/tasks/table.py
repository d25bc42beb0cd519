"""The ten MM-Soc tasks (misinformation counts once, over two datasets) as one table of data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TaskKind = Literal["classification", "multilabel", "ocr", "generation"]

YOUTUBE_TOPICS: tuple[str, ...] = (
    "action-adventure_game", "action_game", "american_football", "association_football", "baseball",
    "basketball", "boxing", "business", "casual_game", "christian_music", "classical_music",
    "country_music", "cricket", "electronic_music", "entertainment", "fashion", "film", "food", "golf",
    "health", "hip_hop_music", "hobby", "humour", "ice_hockey", "independent_music", "jazz", "knowledge",
    "lifestyle", "military", "mixed_martial_arts", "motorsport", "music", "music_of_asia",
    "music_of_latin_america", "music_video_game", "performing_arts", "pet", "physical_attractiveness",
    "physical_fitness", "politics", "pop_music", "professional_wrestling", "puzzle_video_game",
    "racing_video_game", "reggae", "religion", "rhythm_and_blues", "rock_music", "role-playing_video_game",
    "simulation_video_game", "society", "soul_music", "sport", "sports_game", "strategy_video_game",
    "technology", "television_program", "tennis", "tourism", "vehicle", "video_game_culture", "volleyball",
)

PROMPT_VERSION = "mmsoc-v1"
"""Version of the benchmark prompts below; runs record it with every prediction."""


@dataclass(frozen=True)
class TaskSpec:
    """One MM-Soc task: what is asked, which answers are allowed, how it is scored."""

    id: str
    dataset: str
    kind: TaskKind
    prompt: str
    labels: tuple[str, ...] = ()
    """Allowed answers for classification (the canonical label strings), topics for tagging."""
    headline: str = "macro_f1"
    group: str = ""
    """Tasks sharing a group are averaged into one paper score (misinformation, OCR)."""
    answers: tuple[tuple[str, str], ...] = ()
    """Answer words the prompt asks for, when they differ from the labels (Yes/No), -> label."""
    synonyms: tuple[tuple[str, str], ...] = ()
    """Further words that lenient parsing accepts for a label."""

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics reported for this task (the headline among them)."""
        return METRICS[self.kind]


METRICS: dict[str, tuple[str, ...]] = {
    "classification": ("accuracy", "macro_precision", "macro_recall", "macro_f1", "auc"),
    "multilabel": ("macro_f1", "hamming_loss", "jaccard"),
    "ocr": ("macro_precision", "macro_recall", "macro_f1", "wer", "cer", "bleu1", "bleu2", "bleu3", "bleu4"),
    "generation": ("bleu", "rouge1", "rouge2", "rougeL", "meteor", "bigram_similarity", "bertscore",
                   "embedding_similarity", "length"),
}
"""Metrics per task kind (paper appendix D.2; OCR's macro P/R/F1 are over tokens, as in its Table 12)."""


_MISINFO = "Is this news (image-text pair) misinformation? Answer 'Yes' or 'No'."
_BINARY_MEME = "Is this meme {q}? Answer '{yes}' or '{no}'."
_MISINFO_ANSWERS = (("yes", "fake"), ("no", "true"))
_MISINFO_SYNONYMS = (("misinformation", "fake"), ("real", "true"))

_TABLE = (
    TaskSpec("misinfo_politifact", "PolitiFact", "classification", _MISINFO, ("fake", "true"), group="misinfo",
             answers=_MISINFO_ANSWERS, synonyms=_MISINFO_SYNONYMS),
    TaskSpec("misinfo_gossipcop", "GossipCop", "classification", _MISINFO, ("fake", "true"), group="misinfo",
             answers=_MISINFO_ANSWERS, synonyms=_MISINFO_SYNONYMS),
    TaskSpec("tagging", "YouTube2000", "multilabel",
             "Predict the tags of the following online video given its title, description, and thumbnail "
             "image. Different tags must be separated by commas. For example, \"sports,tennis,french-open\"",
             YOUTUBE_TOPICS),
    TaskSpec("hate", "HatefulMemes", "classification", "Is this meme hateful? Answer 'Yes' or 'No'.",
             ("hateful", "not_hateful"), answers=(("yes", "hateful"), ("no", "not_hateful"))),
    TaskSpec("sentiment", "Memotion", "classification",
             "What is the overall sentiment expressed through this meme? Answer 'positive' or 'neutral' or 'negative'",
             ("positive", "neutral", "negative")),
    TaskSpec("humor", "Memotion", "classification", _BINARY_MEME.format(q="humorous", yes="humorous", no="not_humorous"),
             ("humorous", "not_humorous"), synonyms=(("funny", "humorous"),)),
    TaskSpec("sarcasm", "Memotion", "classification", _BINARY_MEME.format(q="sarcastic", yes="sarcastic", no="not_sarcastic"),
             ("sarcastic", "not_sarcastic")),
    TaskSpec("offensive", "Memotion", "classification",
             _BINARY_MEME.format(q="offensive", yes="offensive", no="not_offensive"), ("offensive", "not_offensive")),
    TaskSpec("ocr", "HatefulMemes+Memotion", "ocr",
             "What is the text in the image? Use double quotes to enclose your answer.", headline="macro_f1", group="ocr"),
    TaskSpec("image_description", "memes", "generation",
             "Describe the scene, such as its major subjects, colors, and texture.", headline="rougeL"),
    TaskSpec("social_context", "memes", "generation", "Describe the cultural and social context of the image.",
             headline="rougeL"),
)

TASKS: dict[str, TaskSpec] = {task.id: task for task in _TABLE}
TASK_IDS: tuple[str, ...] = tuple(TASKS)


def get_task(task_id: str) -> TaskSpec:
    try:
        return TASKS[task_id]
    except KeyError:
        raise KeyError(f"unknown task {task_id!r}; known tasks: {', '.join(TASK_IDS)}") from None


def parse_task_list(value: str) -> tuple[str, ...]:
    """``'all'`` or comma-separated task ids -> the task ids, in order, once each.

    Raises ``KeyError`` naming an unknown task and ``ValueError`` when none is given."""
    if value.strip() == "all":
        return TASK_IDS
    tasks = tuple(dict.fromkeys(t.strip() for t in value.split(",") if t.strip()))
    for task in tasks:
        get_task(task)
    if not tasks:
        raise ValueError("give at least one task")
    return tasks
