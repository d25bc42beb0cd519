"""Reading SuperTweetEval predictions: as the official per-task scripts read a prediction line, and leniently.

The scripts (``eval_scripts/<task>.py``) read one prediction per line, written "in full":

* labels (sentiment, hate, NERD/TempoWiC ``yes``/``no``): the line must equal a label exactly;
* several labels (topic, emotion): ``line.split(',')``, exact names kept, others ignored;
* emoji: ``line.split(',')[:5]``, exact strings;
* NER: ``entity: type`` pairs split at ``,`` then ``:`` (pairs that do not split in two are ignored);
* numbers (intimacy, similarity): ``float(line)``, else 0 (here NaN and infinities are refused, not scored);
* text (QA, QG): the line as it is.

The paper gives no rule for reading free generations; the lenient readers here (used to score ``mmsoc
eval`` runs) forgive case, quotes, brackets, spaces and a leading ``Answer:``/``Question:``, find a label
at the start of the answer (the longest first), find emoji with ``emoji.emoji_list`` and numbers anywhere.
Each reader returns the value the scorer uses and whether the answer is well formed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
LIST_SPLIT = re.compile(r"[,;\n]")
STRIP = " \t\r\n\"'`*[]().:"
LEAD = re.compile(r"^\s*(answer|question|output|label|options?)\s*:\s*", re.IGNORECASE)


def official_label(raw: str, labels: Sequence[str]) -> str | None:
    return raw if raw in labels else None


def _plain(text: str) -> str:
    return " ".join(LEAD.sub("", text).strip().strip(STRIP).lower().replace("_", " ").split())


def lenient_label(raw: str, labels: Sequence[str]) -> str | None:
    """The label the answer is, or starts with (longest label first); case, quotes, ``_`` forgiven."""
    text = _plain(raw.strip().split("\n")[0])
    forms = sorted(
        ((" ".join(label.lower().replace("_", " ").split()), label) for label in labels), key=lambda pair: -len(pair[0])
    )
    for form, label in forms:
        if text == form or (text.startswith(form) and not text[len(form) : len(form) + 1].isalnum()):
            return label
    return None


def official_labels(raw: str, labels: Sequence[str]) -> tuple[list[str], bool]:
    """(names the script keeps, whether every part was a name)."""
    parts = raw.split(",")
    kept = [part for part in parts if part in labels]
    return list(dict.fromkeys(kept)), bool(kept) and len(kept) == len(parts)


def lenient_labels(raw: str, labels: Sequence[str]) -> list[str]:
    """Every label named in the comma/semicolon/line separated answer, forgiving case, quotes and ``_``."""
    known = {" ".join(label.lower().replace("_", " ").split()): label for label in labels}
    found = [known.get(_plain(part)) for part in LIST_SPLIT.split(LEAD.sub("", raw))]
    return list(dict.fromkeys(label for label in found if label is not None))


def official_emoji(raw: str) -> list[str]:
    return raw.split(",")[:5]


def lenient_emoji(raw: str) -> list[str]:
    """The first five distinct emoji in the answer, each whole (``emoji.emoji_list``)."""
    import emoji

    return list(dict.fromkeys(match["emoji"] for match in emoji.emoji_list(raw)))[:5]


def official_entities(raw: str) -> tuple[list[tuple[str, str]], bool]:
    """(``(entity, type)`` pairs the script reads, whether every non-empty part was such a pair).

    The script splits at ``:`` without stripping the entity, so ``" Columbia"`` (after ``", "``) keeps its
    space and is later not found among the tokens; the type is stripped."""
    pairs, clean = [], True
    for part in raw.split(","):
        pieces = part.split(":")
        if len(pieces) == 2:
            pairs.append((pieces[0], pieces[1].strip()))
        elif part.strip():
            clean = False
    return list(dict.fromkeys(pairs)), clean


def lenient_entities(raw: str) -> list[tuple[str, str]]:
    """``entity: type`` pairs separated by commas, semicolons or lines, both sides stripped, type lower-cased."""
    pairs = []
    for part in LIST_SPLIT.split(raw):
        entity, sep, entity_type = part.rpartition(":")
        if sep and entity.strip() and entity_type.strip():
            pairs.append((entity.strip().strip("\"'"), entity_type.strip().strip(STRIP).lower().replace(" ", "_")))
    return list(dict.fromkeys(pairs))


def entity_tags(tokens: Sequence[str], pairs: Sequence[tuple[str, str]], whole: bool = False) -> list[str]:
    """IOB tags of ``tokens`` from predicted pairs, as the official tweet_ner7.py writes them: each entity
    found at the first occurrence of its first token, B- there and I- on the next ``len(entity) - 1``
    tokens, unchecked (``whole``: the first occurrence of all its tokens in a row, the lenient reading).

    Pairs are applied in the answer's order (the script's ``set`` makes overlapping writes depend on the
    string hash); an entity running past the last token is cut there (the script raises IndexError)."""
    tags = ["O"] * len(tokens)
    for entity, entity_type in pairs:
        words = entity.split(" ") if not whole else entity.split()
        start = _find(list(tokens), words, whole)
        if start is None:
            continue
        for offset in range(min(len(words), len(tokens) - start)):
            tags[start + offset] = f"{'B' if offset == 0 else 'I'}-{entity_type}"
    return tags


def _find(tokens: list[str], words: list[str], whole: bool) -> int | None:
    if not words:
        return None
    if not whole:
        return tokens.index(words[0]) if words[0] in tokens else None
    for start in range(len(tokens) - len(words) + 1):
        if tokens[start : start + len(words)] == words:
            return start
    return None


def official_number(raw: str) -> float | None:
    """``float(line)`` as the script reads it; None where it fails, and for NaN and infinities (``nan``,
    ``inf``: Python reads them, but they are no score; a prediction file's such lines are refused first)."""
    try:
        number = float(raw)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def non_finite_number(raw: str) -> bool:
    """Whether ``float(raw)`` reads a NaN or an infinity (``nan``, ``-inf``, ``Infinity``, ``1e999``)."""
    try:
        return not math.isfinite(float(raw))
    except ValueError:
        return False


def lenient_number(raw: str) -> float | None:
    found = NUMBER.search(raw)
    number = float(found.group()) if found else math.inf
    return number if math.isfinite(number) else None


def lenient_text(raw: str) -> str:
    """The first line of the answer, without a leading ``Answer:``/``Question:`` and outer quotes."""
    return LEAD.sub("", raw.strip()).split("\n")[0].strip().strip("\"'").strip()
