"""The ten MM-Soc tasks (misinformation counts once, over two datasets) as one table of data.

Prompts are the benchmark's own (versioned as ``PROMPT_VERSION``); the "why" questions that ask a
teacher to explain a gold label follow the MM-Soc release's question table, with the labels it left
out (not hateful, neutral sentiment, video tags) written in the same style.
"""

from __future__ import annotations

from mmsoc.tasks.spec import TaskSpec

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

_MISINFO = "Is this news (image-text pair) misinformation? Answer 'Yes' or 'No'."
_BINARY_MEME = "Is this meme {q}? Answer '{yes}' or '{no}'."
_MISINFO_ANSWERS = (("yes", "fake"), ("no", "true"))
_MISINFO_SYNONYMS = (("misinformation", "fake"), ("real", "true"))
_MISINFO_WHY = (("fake", "Why do you think this image text pair is potentially misinformative?"),
                ("true", "Why do you think this image text pair is potentially true news?"))


def _why_binary(adjective: str, positive: str, negative: str) -> tuple[tuple[str, str], ...]:
    return ((positive, f"Why is this meme potentially {adjective}?"),
            (negative, f"Why is this meme potentially not {adjective}?"))


TASKS = (
    TaskSpec("misinfo_politifact", "PolitiFact", "classification", _MISINFO, ("fake", "true"), group="misinfo",
             answers=_MISINFO_ANSWERS, synonyms=_MISINFO_SYNONYMS, why=_MISINFO_WHY, sources=("fakenewsnet",),
             order=0),
    TaskSpec("misinfo_gossipcop", "GossipCop", "classification", _MISINFO, ("fake", "true"), group="misinfo",
             answers=_MISINFO_ANSWERS, synonyms=_MISINFO_SYNONYMS, why=_MISINFO_WHY, sources=("fakenewsnet",),
             order=1),
    TaskSpec("tagging", "YouTube2000", "multilabel",
             "Predict the tags of the following online video given its title, description, and thumbnail "
             "image. Different tags must be separated by commas. For example, \"sports,tennis,french-open\"",
             YOUTUBE_TOPICS, why=(("{tags}", "Why do the tags \"{tags}\" potentially fit this online video?"),),
             sources=("youtube2000",), order=2),
    TaskSpec("hate", "HatefulMemes", "classification", "Is this meme hateful? Answer 'Yes' or 'No'.",
             ("hateful", "not_hateful"), answers=(("yes", "hateful"), ("no", "not_hateful")),
             why=(("hateful", "Why do you think this meme is potentially hateful?"),
                  ("not_hateful", "Why do you think this meme is potentially not hateful?")),
             sources=("hateful_memes",), order=3),
    TaskSpec("sentiment", "Memotion", "classification",
             "What is the overall sentiment expressed through this meme? Answer 'positive' or 'neutral' or 'negative'",
             ("positive", "neutral", "negative"),
             why=tuple((s, f"Why is the sentiment potentially {s}?") for s in ("positive", "neutral", "negative")),
             sources=("memotion",), order=4),
    TaskSpec("humor", "Memotion", "classification",
             _BINARY_MEME.format(q="humorous", yes="humorous", no="not_humorous"), ("humorous", "not_humorous"),
             synonyms=(("funny", "humorous"),), why=_why_binary("humorous", "humorous", "not_humorous"),
             sources=("memotion",), order=5),
    TaskSpec("sarcasm", "Memotion", "classification",
             _BINARY_MEME.format(q="sarcastic", yes="sarcastic", no="not_sarcastic"), ("sarcastic", "not_sarcastic"),
             why=_why_binary("sarcastic", "sarcastic", "not_sarcastic"), sources=("memotion",), order=6),
    TaskSpec("offensive", "Memotion", "classification",
             _BINARY_MEME.format(q="offensive", yes="offensive", no="not_offensive"), ("offensive", "not_offensive"),
             why=_why_binary("offensive", "offensive", "not_offensive"), sources=("memotion",), order=7),
    TaskSpec("ocr", "HatefulMemes+Memotion", "ocr",
             "What is the text in the image? Use double quotes to enclose your answer.", group="ocr",
             sources=("hateful_memes", "memotion"), order=8),
    TaskSpec("image_description", "memes", "generation",
             "Describe the scene, such as its major subjects, colors, and texture.", headline="rougeL",
             sources=("descriptions",), order=9),
    TaskSpec("social_context", "memes", "generation", "Describe the cultural and social context of the image.",
             headline="rougeL", sources=("descriptions",), order=10),
)
