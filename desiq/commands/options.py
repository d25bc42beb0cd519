"""Choices shared by several ``desiq`` commands."""

from __future__ import annotations

from enum import Enum

from rich.console import Console

from desiq.perturb import KINDS

console = Console(stderr=True)
"""Progress and summaries go to stderr; tables meant for piping go to stdout."""

Config = Enum("Config", {"A4": "A4", "A2": "A2"}, type=str)
PerturbKind = Enum("PerturbKind", {k: k for k in KINDS}, type=str)
OptionPerturbKind = Enum("OptionPerturbKind", {k: k for k in KINDS if k != "NCAQ"}, type=str)
