"""Tiny image-text models shared by every test file: each family is built at most once per session."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_models import BUILDERS


class TinyModels:
    """Family name -> folder of a tiny seeded model, built on first use; tests only read the folders."""

    def __init__(self, root: Path):
        self.root = root
        self._dirs: dict[str, str] = {}

    def __getitem__(self, family: str) -> str:
        if family not in self._dirs:
            self._dirs[family] = str(BUILDERS[family](self.root / family))
        return self._dirs[family]


@pytest.fixture(scope="session")
def tiny_dirs(tmp_path_factory) -> TinyModels:
    """The tiny LLaVA, BLIP-2 and InstructBLIP folders by family name."""
    return TinyModels(tmp_path_factory.mktemp("tiny_models"))


@pytest.fixture(scope="session")
def tiny_llava(tiny_dirs) -> Path:
    """Folder of the tiny LLaVA-1.5-style model."""
    return Path(tiny_dirs["llava"])
