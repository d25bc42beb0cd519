"""Multiple-choice sets with one answer-only shortcut planted at a known strength, and pure noise.

Questions and options are random pseudo-words (syllables drawn with a seeded generator), so nothing but
the planted rule tells the correct option. With ``family`` set, that family's rule picks the correct
option in a fraction ``chance + strength * (1 - chance)`` of the items (chance = 1/k; the number of such
items is that fraction of ``n``, rounded), its pick never tied; elsewhere the correct option is one of the
others, drawn uniformly. ``family`` None is pure noise: random words and a random correct option.

- ``longest``: one option has strictly the most characters; every option has the same number of words,
  so the word-count rules tie on every item.
- ``position``: the correct option sits first (index 0); elsewhere at a uniform other index.
- ``overlap``: one option shares one or two words with the question, the others none.
- ``odd_one_out``: k - 1 options draw their words from a small pool of the item's own, so each shares
  words with another; the odd one shares none (k >= 3).

Every other family stays at chance where the construction allows it: options are drawn exchangeably, so
the planted pick sits at a uniform index and the lengths of the options do not depend on the rule
(except ``longest``, whose pick is, by construction, the longest; the shortest option is then rarely
correct, as a planted odd one out leaves the most central option rarely correct).

Rows are ``{"id", "question", "choices", "answer_idx", "group"}``: the shape desiq's ``mcqa`` reader
recognises without a field mapping; ``group`` (``g0``, ``g1``, ...) holds ``group_size`` items in a row.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

FAMILIES: tuple[str, ...] = ("longest", "position", "overlap", "odd_one_out")
CONSONANTS = "bdfgklmnprstvz"
VOWELS = "aeiou"
QUESTION_WORDS = 6
OPTION_WORDS = (2, 6)
"""Words per option: from the first to the last, the last excluded."""
LONGEST_WORDS = 4
"""Words of every option of a ``longest`` set."""
THEME_WORDS = 5
"""The pool the k - 1 alike options of an ``odd_one_out`` item draw from."""


def chance_fraction(k: int, strength: float) -> float:
    """The share of items on which a family planted at ``strength`` picks the correct option."""
    chance = 1 / k
    return chance + strength * (1 - chance)


SYLLABLES = [c + v for c in CONSONANTS for v in VOWELS]


def _word(rng: np.random.Generator) -> str:
    drawn = rng.integers(len(SYLLABLES), size=int(rng.integers(2, 4)))
    return "".join(SYLLABLES[int(i)] for i in drawn)


def _words(rng: np.random.Generator, count: int, avoid: frozenset[str] | set[str] = frozenset()) -> list[str]:
    out: list[str] = []
    while len(out) < count:
        word = _word(rng)
        if word not in avoid and word not in out:
            out.append(word)
    return out


def _option_count(rng: np.random.Generator) -> int:
    return int(rng.integers(*OPTION_WORDS))


def _lengths_unique_max(options: list[str]) -> bool:
    lengths = [len(o) for o in options]
    return lengths.count(max(lengths)) == 1


def _longest(rng: np.random.Generator, k: int, question: list[str]) -> tuple[list[str], int]:
    while True:
        options = [" ".join(_words(rng, LONGEST_WORDS, set(question))) for _ in range(k)]
        if _lengths_unique_max(options):
            lengths = [len(o) for o in options]
            return options, lengths.index(max(lengths))


def _plain(rng: np.random.Generator, k: int, question: list[str]) -> list[str]:
    return [" ".join(_words(rng, _option_count(rng), set(question))) for _ in range(k)]


def _overlap(rng: np.random.Generator, k: int, question: list[str]) -> tuple[list[str], int]:
    options = [_words(rng, _option_count(rng), set(question)) for _ in range(k)]
    pick = int(rng.integers(k))
    shared = rng.choice(question, size=min(int(rng.integers(1, 3)), len(options[pick])), replace=False)
    slots = rng.choice(len(options[pick]), size=len(shared), replace=False)
    for slot, word in zip(slots, shared):
        options[pick][int(slot)] = str(word)
    return [" ".join(o) for o in options], pick


def _odd_one_out(rng: np.random.Generator, k: int, question: list[str]) -> tuple[list[str], int]:
    if k < 3:
        raise ValueError("an odd one out needs at least 3 options")
    theme = _words(rng, THEME_WORDS, set(question))
    pick = int(rng.integers(k))
    while True:
        alike = [
            list(rng.choice(theme, size=min(_option_count(rng), THEME_WORDS), replace=False)) for _ in range(k - 1)
        ]
        if all(any(set(a) & set(b) for b in alike if b is not a) for a in alike):
            break
    odd = _words(rng, _option_count(rng), set(question) | set(theme))
    options = [" ".join(map(str, o)) for o in alike]
    options.insert(pick, " ".join(odd))
    return options, pick


PLANTERS = {"longest": _longest, "overlap": _overlap, "odd_one_out": _odd_one_out}


def _gold(rng: np.random.Generator, k: int, pick: int, hit: bool) -> int:
    if hit:
        return pick
    others = [i for i in range(k) if i != pick]
    return int(rng.choice(others))


def planted_rows(
    n: int, k: int, family: str | None, strength: float, seed: int, group_size: int = 5
) -> list[dict[str, object]]:
    """``n`` questions of ``k`` options with ``family`` planted at ``strength`` (None: pure noise)."""
    if family is not None and family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; known: {', '.join(FAMILIES)}")
    if not 0 <= strength <= 1:
        raise ValueError(f"strength {strength} outside [0, 1]")
    rng = np.random.default_rng(seed)
    hits = np.zeros(n, dtype=bool)
    hits[: round(n * chance_fraction(k, strength))] = True
    rng.shuffle(hits)
    rows: list[dict[str, object]] = []
    for i in range(n):
        question = _words(rng, QUESTION_WORDS)
        if family in PLANTERS:
            options, pick = PLANTERS[family](rng, k, question)
            answer = _gold(rng, k, pick, bool(hits[i]))
        else:
            options = _plain(rng, k, question)
            answer = _gold(rng, k, 0, bool(hits[i])) if family == "position" else int(rng.integers(k))
        row = {"id": f"q{i}", "question": " ".join(question) + "?", "choices": options, "answer_idx": answer}
        rows.append({**row, "group": f"g{i // group_size}"})
    return rows


def write_planted(
    path: str | Path, n: int, k: int, family: str | None, strength: float, seed: int, group_size: int = 5
) -> Path:
    """``planted_rows`` as a JSON Lines file at ``path``."""
    out = Path(path)
    rows = planted_rows(n, k, family, strength, seed, group_size)
    out.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return out
