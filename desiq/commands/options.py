"""Choices and options shared by several ``desiq`` commands (perturbation choices come from their records)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from desiq.data import DATA_HELP
from desiq.perturbations import PERTURBATIONS, SPLITS

Config = Enum("Config", {"A4": "A4", "A2": "A2"}, type=str)
PerturbKind = Enum("PerturbKind", {name: name for name in PERTURBATIONS}, type=str)
OptionPerturbKind = Enum(
    "OptionPerturbKind", {name: name for name, p in PERTURBATIONS.items() if p.replaces_option}, type=str
)
Variant = Enum("Variant", {key: key for key in SPLITS}, type=str)


def perturbation_help(option_only: bool = False) -> str:
    """Each perturbation's change, from its record."""
    return "; ".join(f"{name}: {p.change}" for name, p in PERTURBATIONS.items() if p.replaces_option or not option_only)


def variant_help() -> str:
    return "; ".join(f"{key}: {s.name}, partners from {s.scope.value.replace('-', ' ')}s" for key, s in SPLITS.items())


Data = Annotated[Path, typer.Option("--data", help=DATA_HELP)]
Split = Annotated[
    str | None, typer.Option("--split", help="With a Social-IQ folder as --data: the split to read (qa/qa_SPLIT.json).")
]
CacheDir = Annotated[
    Path | None, typer.Option(help="Feature cache folder (default: features/ under $MMSOC_CACHE, else ~/.cache/mmsoc).")
]
