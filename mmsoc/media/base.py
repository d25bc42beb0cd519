"""The encoder interface: a frozen feature extractor from media files to float32 arrays."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mmsoc.core.io import UsageError


class MediaError(UsageError):
    """A media file is missing, empty or cannot be decoded."""

    def __init__(self, path: str | Path, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"{path}: {reason}")


@dataclass(frozen=True)
class EncoderSpec:
    """What to build: a modality, a model id or local folder, and the encoder's settings."""

    modality: str
    model: str
    settings: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"modality": self.modality, "model": self.model, "settings": dict(self.settings)}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> EncoderSpec:
        return cls(obj["modality"], obj["model"], dict(obj.get("settings", {})))


class Encoder(ABC):
    """Turns media files into feature arrays, one array per file, in two steps.

    ``load`` decodes one file (raising MediaError when it cannot); ``embed`` runs the model on a
    batch of decoded inputs. ``encoded`` counts the files that were really decoded and encoded.
    """

    modality: str = ""

    def __init__(self, model: str, **settings: Any):
        self.model = model
        self.settings = settings
        self.encoded = 0

    @property
    def spec(self) -> EncoderSpec:
        return EncoderSpec(self.modality, self.model, self.settings)

    @property
    def key(self) -> str:
        """Identity of this encoder and its settings, for cache keys."""
        return json.dumps({"class": type(self).__name__, **self.spec.to_json()}, sort_keys=True, default=str)

    def encode_files(self, paths: Sequence[str | Path]) -> list[np.ndarray | MediaError]:
        """Encode files in one batch; an unreadable file yields its MediaError in its place."""
        loaded: list[Any | MediaError] = []
        for path in map(Path, paths):
            try:
                loaded.append(self.load(path))
            except MediaError as err:
                loaded.append(err)
        good = [k for k, x in enumerate(loaded) if not isinstance(x, MediaError)]
        vectors = self.embed([loaded[k] for k in good]) if good else []
        for k, vec in zip(good, vectors):
            loaded[k] = np.asarray(vec, dtype=np.float32)
        self.encoded += len(good)
        return loaded

    @abstractmethod
    def load(self, path: Path) -> Any:
        """Decode one file; raise MediaError if it is missing, empty or corrupt."""

    @abstractmethod
    def embed(self, inputs: list[Any]) -> list[np.ndarray]:
        """One 1-D or 2-D (sequence x dim) array per decoded input."""
