"""Kondrak (2005) n-gram similarity of character strings, for many pairs at once.

The measure is ``1 - d``, where ``d`` is Kondrak's normalised n-gram distance as Lucene's
``NGramDistance`` computes it (and as ``strsimpy.ngram.NGram`` ports it): an edit distance over
positional character n-grams, the source padded in front with ``n - 1`` marks, a partial n-gram
mismatch costing the share of differing characters (matches on the padding not counted), divided
by the longer length. Strings shorter than ``n`` compare position by position; two empty strings
are identical, one empty string shares nothing.

strsimpy 0.2.1 is not called: its port runs the inner loop from ``i = 0`` instead of 1, reading
wrapped-around cells (``d[-1]``, ``p[-1]``), which lowers the distance when one string is much
longer than the other and makes it depend on the argument order. Lucene's loop, re-written in
the tests, is the reference; strsimpy agrees with it on pairs its defect does not reach.

Each row of the dynamic programme is one vector step (``d[i] = min(d[i-1] + 1, c[i])`` is a
running minimum of ``c[k] - k``), taken for a block of pairs of similar length together.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

PAD = -1
"""Code of the padding mark (no character has a negative code point)."""
_BLOCK_CELLS = 1 << 17
"""Pairs are processed in blocks of at most about this many dynamic-programme cells per row."""


def ngram_similarity(sources: Sequence[str], targets: Sequence[str], n: int = 2) -> np.ndarray:
    """``1 - NGramDistance(n)(source, target)`` for each pair, as float64 (see the module docstring)."""
    if n < 1:
        raise ValueError(f"n-gram size must be at least 1, got {n}")
    out = np.zeros(len(sources), dtype=np.float64)
    general = []
    for k, (s, t) in enumerate(zip(sources, targets)):
        if s == t:
            out[k] = 1.0
        elif not s or not t:
            out[k] = 0.0
        elif len(s) < n or len(t) < n:
            out[k] = sum(a == b for a, b in zip(s, t)) / max(len(s), len(t))
        else:
            general.append(k)
    general.sort(key=lambda k: (len(targets[k]), len(sources[k])))
    start = 0
    while start < len(general):
        width = len(sources[general[start]]) + 1
        stop = start + 1
        while stop < len(general) and (stop - start + 1) * max(width, len(sources[general[stop]]) + 1) <= _BLOCK_CELLS:
            width = max(width, len(sources[general[stop]]) + 1)
            stop += 1
        block = general[start:stop]
        out[block] = 1.0 - _distances([sources[k] for k in block], [targets[k] for k in block], n)
        start = stop
    return out


def _codes(texts: Sequence[str], n: int, fill: int) -> np.ndarray:
    """Code points of each text after ``n - 1`` padding marks, right-filled with ``fill``: (B, n - 1 + longest)."""
    width = n - 1 + max(len(text) for text in texts)
    codes = np.full((len(texts), width), fill, dtype=np.int64)
    codes[:, : n - 1] = PAD
    for row, text in enumerate(texts):
        codes[row, n - 1 : n - 1 + len(text)] = np.fromiter(map(ord, text), dtype=np.int64, count=len(text))
    return codes


def _distances(sources: list[str], targets: list[str], n: int) -> np.ndarray:
    """Normalised n-gram distance of each (source, target) pair, all of length >= n."""
    sl = np.asarray([len(s) for s in sources])
    tl = np.asarray([len(t) for t in targets])
    src = _codes(sources, n, fill=-2)
    tgt = _codes(targets, n, fill=-3)
    width = src.shape[1] - n + 1  # source positions i = 1..width
    shifted = [src[:, ni : ni + width] for ni in range(n)]  # sa[i - 1 + ni]
    columns = np.arange(width + 1, dtype=np.float64)
    previous = np.broadcast_to(columns, (len(sources), width + 1)).copy()
    candidate = np.empty_like(previous)
    cost = np.empty((len(sources), width), dtype=np.float64)
    result = np.zeros(len(sources), dtype=np.float64)
    for j in range(1, int(tl.max()) + 1):
        gram = [tgt[:, j - 1 + ni, None] for ni in range(n)]  # t_j, led by n - j padding marks while j < n
        cost[:] = 0.0
        for ni in range(n):
            cost += shifted[ni] != gram[ni]
        # matches of padding on padding are not counted in the n-gram's length
        kept = n - sum((shifted[ni] == PAD) & (gram[ni] == PAD) for ni in range(max(n - j, 0)))
        np.divide(cost, kept, out=cost)
        np.add(previous[:, :-1], cost, out=candidate[:, 1:])
        np.minimum(candidate[:, 1:], previous[:, 1:] + 1, out=candidate[:, 1:])
        candidate[:, 0] = j
        candidate -= columns
        np.minimum.accumulate(candidate, axis=1, out=previous)
        previous += columns
        done = tl == j
        result[done] = previous[done, sl[done]]
    return result / np.maximum(sl, tl)
