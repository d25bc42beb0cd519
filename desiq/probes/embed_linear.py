"""``embed-linear``: a frozen sentence encoder (default: the pretrained all-MiniLM-L6-v2) + a linear scorer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from desiq.probes import ProbeEntry, ProbeOptions
from desiq.probes.linear import LinearProbe, flatten
from mmsoc.core.progress import track

if TYPE_CHECKING:
    import numpy as np

    from desiq.records import MCQAItem


class EmbedLinearProbe(LinearProbe):
    """Features: the option's embedding; with ``q+a`` also its elementwise product with the question's
    embedding (whose sum is their cosine similarity). Each distinct text is embedded once per run, in
    chunks of ``CHUNK`` texts, each a step of the progress shown with ``progress``."""

    name = "embed-linear"
    CHUNK = 2048

    def __init__(self, encoder: str | None = None, C: float = 1.0, progress: bool = False):
        self.encoder, self.C, self.progress = encoder, C, progress
        self._cache: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        from mmsoc.media.sentences import embed_texts

        missing = sorted(set(texts) - self._cache.keys())
        chunks = [missing[k : k + self.CHUNK] for k in range(0, len(missing), self.CHUNK)]
        shown = self.progress and bool(chunks)
        for chunk in track(chunks, f"{self.name}: embedding {len(missing):,} texts", enabled=shown):
            self._cache.update(zip(chunk, embed_texts(chunk, self.encoder)))
        return np.stack([self._cache[t] for t in texts])

    def _features(self, questions: list[str], options: list[str]) -> np.ndarray:
        import numpy as np

        a = self.embed(options)
        if not self.use_question:
            return a
        return np.hstack([a, self.embed(questions) * a])

    def option_features(self, items: Sequence[MCQAItem]) -> np.ndarray:
        return self.embed(flatten(items)[1])


def _build(options: ProbeOptions) -> EmbedLinearProbe:
    return EmbedLinearProbe(options.encoder, progress=options.progress)


PROBE = ProbeEntry("embed-linear", "frozen MiniLM + linear scorer", _build)
