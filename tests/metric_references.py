"""Reference implementations written small for the tests, independent of the package."""

from __future__ import annotations


def lucene_ngram_distance(source: str, target: str, n: int = 2) -> float:
    """Lucene's NGramDistance.getDistance, line by line (the inner loop starts at i = 1), as 1 - similarity."""
    sl, tl = len(source), len(target)
    if sl == 0 or tl == 0:
        return 0.0 if sl == tl else 1.0
    if sl < n or tl < n:
        return 1.0 - sum(source[i] == target[i] for i in range(min(sl, tl))) / max(sl, tl)
    sa = ["\0"] * (n - 1) + list(source)
    p = [float(i) for i in range(sl + 1)]
    d = [0.0] * (sl + 1)
    for j in range(1, tl + 1):
        t_j = ["\0"] * (n - j) + list(target[:j]) if j < n else list(target[j - n : j])
        d[0] = float(j)
        for i in range(1, sl + 1):
            cost, tn = 0, n
            for ni in range(n):
                if sa[i - 1 + ni] != t_j[ni]:
                    cost += 1
                elif sa[i - 1 + ni] == "\0":
                    tn -= 1
            d[i] = min(d[i - 1] + 1, p[i] + 1, p[i - 1] + cost / tn)
        p, d = d, p
    return p[sl] / max(sl, tl)
