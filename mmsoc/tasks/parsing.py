"""Map a free-text model response to a task's label, or to invalid (``label=None, ok=False``).

Two modes, reported side by side:

* ``strict``: the whole response is the answer and nothing else (case, punctuation, ``_``/``-``
  and spaces ignored): a label, or the answer word the prompt asks for (``Yes``/``No``).
* ``lenient``: the answer is stated clearly in the opening words (the first sentence, at most
  ``OPENING_WORDS`` words). Negation is understood ("not humorous", "isn't hateful",
  "No, it is not hateful"); a negated label of a binary task means the other label, of a
  multi-class task it says nothing. Naming two different labels is invalid.

Multi-label (tagging): comma/semicolon/newline-separated topics; strict needs every part to be a
known topic, lenient keeps the known ones; valid with at least one. OCR: the text inside the first
double-quoted span (lenient: the whole response when there are no quotes). Generation: the
stripped text. Valid = non-empty.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mmsoc.tasks.table import TaskSpec, get_task

PARSE_MODES = ("strict", "lenient")
OPENING_WORDS = 20
NEGATION_SCOPE = 5
"""How many words before a label a negation may stand (within the same clause)."""
NEGATORS = frozenset({"not", "no", "non", "never", "neither", "nor", "hardly", "cannot"})
CLAUSE_BREAKS = frozenset({",", ";", ":", "but", "however", "although", "though", "yet"})

_TOKEN = re.compile(r"[a-z0-9]+|[,;:]")
_SENTENCE_END = re.compile(r"[.!?\n](?:\s|$)")
_QUOTED = re.compile(r"[\"\u201c\u201d]([^\"\u201c\u201d]*)[\"\u201c\u201d]")
_TAG_SPLIT = re.compile(r"[,;\n]")


@dataclass(frozen=True)
class ParseResult:
    """A parsed response: the label (a label string, a list of topics, or text) and whether it is valid."""

    label: Any
    ok: bool


INVALID = ParseResult(None, False)


def parse_response(task_id: str, raw: str, mode: str = "lenient") -> ParseResult:
    """Parse one response of ``task_id`` in ``mode`` (``"strict"`` or ``"lenient"``)."""
    if mode not in PARSE_MODES:
        raise ValueError(f"unknown parse mode {mode!r}; expected one of {PARSE_MODES}")
    spec = get_task(task_id)
    raw = raw or ""
    if spec.kind == "classification":
        return _classification(spec, raw, mode == "strict")
    if spec.kind == "multilabel":
        return _multilabel(spec, raw, mode == "strict")
    if spec.kind == "ocr":
        return _ocr(raw, mode == "strict")
    text = raw.strip()
    return ParseResult(text, True) if text else INVALID


def parse_responses(task_id: str, raws: Iterable[str], mode: str = "lenient") -> list[ParseResult]:
    """Parse a batch of responses."""
    return [parse_response(task_id, raw, mode) for raw in raws]


def success_rate(results: Sequence[ParseResult]) -> float:
    """Share of valid responses (0.0 for an empty batch)."""
    return sum(result.ok for result in results) / len(results) if results else 0.0


def tokens(text: str) -> list[str]:
    """Lower-case words with ``n't`` expanded to ``not``, ``_``/``-`` as spaces, clause punctuation kept."""
    text = re.sub(r"n[’']t\b", " not", text.lower())
    return _TOKEN.findall(re.sub(r"[_\-]", " ", text))


@functools.lru_cache(maxsize=None)
def _forms(task_id: str, lenient: bool) -> dict[tuple[str, ...], str]:
    """Accepted word sequences -> label: labels and answer words, plus synonyms when lenient."""
    spec = get_task(task_id)
    pairs = [(label, label) for label in spec.labels] + list(spec.answers)
    pairs += list(spec.synonyms) if lenient else []
    return {tuple(tokens(form)): label for form, label in pairs}


def _classification(spec: TaskSpec, raw: str, strict: bool) -> ParseResult:
    forms = _forms(spec.id, not strict)
    if strict:
        label = forms.get(tuple(t for t in tokens(raw) if t not in ",;:"))
        return ParseResult(label, True) if label else INVALID
    found = set(_mentions(spec, forms, _opening(raw)))
    return ParseResult(found.pop(), True) if len(found) == 1 else INVALID


def _opening(raw: str) -> list[str]:
    """Tokens of the first sentence, at most ``OPENING_WORDS`` words."""
    text = raw.strip()
    end = _SENTENCE_END.search(text)
    return tokens(text[: end.start()] if end else text)[:OPENING_WORDS]


def _mentions(spec: TaskSpec, forms: dict[tuple[str, ...], str], words: list[str]) -> Iterable[str]:
    """Labels stated in ``words``, longest form first, with negated labels flipped (binary) or dropped."""
    longest = max(map(len, forms))
    i = 0
    while i < len(words):
        for size in range(min(longest, len(words) - i), 0, -1):
            label = forms.get(tuple(words[i:i + size]))
            if label is not None:
                break
        else:
            i += 1
            continue
        is_answer_word = tuple(words[i:i + size]) in _answer_words(spec.id)
        negated = not is_answer_word and _negated(words, i)
        if not negated:
            yield label
        elif len(spec.labels) == 2:
            yield spec.labels[1 - spec.labels.index(label)]
        i += size


@functools.lru_cache(maxsize=None)
def _answer_words(task_id: str) -> frozenset[tuple[str, ...]]:
    """Yes/No answer forms: never negated themselves ("No, ..." is an answer, not a negation)."""
    return frozenset(tuple(tokens(word)) for word, _ in get_task(task_id).answers)


def _negated(words: list[str], start: int) -> bool:
    for word in reversed(words[max(0, start - NEGATION_SCOPE):start]):
        if word in CLAUSE_BREAKS:
            return False
        if word in NEGATORS:
            return True
    return False


def _multilabel(spec: TaskSpec, raw: str, strict: bool) -> ParseResult:
    known = _topic_keys(spec.id)
    text = raw if strict else re.sub(r"^\s*(tags?|topics?)\s*:", "", raw.strip(), flags=re.IGNORECASE)
    parts = [part.strip(" \t\"'`*.[]()") for part in _TAG_SPLIT.split(text)]
    parts = [part for part in parts if part]
    topics: list[str] = []
    for part in parts:
        key = " ".join(tokens(part))
        topic = known.get(key) or (None if strict else known.get(key[:-1] if key.endswith("s") else ""))
        if topic is None and strict:
            return INVALID
        if topic is not None and topic not in topics:
            topics.append(topic)
    return ParseResult(topics, True) if topics else INVALID


@functools.lru_cache(maxsize=None)
def _topic_keys(task_id: str) -> dict[str, str]:
    return {" ".join(tokens(topic)): topic for topic in get_task(task_id).labels}


def _ocr(raw: str, strict: bool) -> ParseResult:
    quoted = _QUOTED.search(raw)
    if quoted is None and strict:
        return INVALID
    text = (quoted.group(1) if quoted else raw).strip()
    return ParseResult(text, True) if text else INVALID
