"""Choices and options shared by several ``desiq`` commands (perturbation choices come from their records)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from desiq.commands.listing import mcqa_format_help, out_format_help
from desiq.data import DATA_HELP
from desiq.perturbations import PERTURBATIONS, SPLITS
from mmsoc.core.options import option

if TYPE_CHECKING:
    from desiq.formats.mcqa_fields import Mapping
    from desiq.records import MCQAItem

# the members come from the registries, which mypy cannot read
PerturbKind = Enum("PerturbKind", {name: name for name, _, _ in PERTURBATIONS.known()}, type=str)  # type: ignore[misc]
OptionPerturbKind = Enum(  # type: ignore[misc]
    "OptionPerturbKind", {name: name for name, p, _ in PERTURBATIONS.known() if not p.retrains}, type=str
)
Variant = Enum("Variant", {key: key for key in SPLITS}, type=str)  # type: ignore[misc]


def perturbation_help(option_only: bool = False) -> str:
    """Each perturbation's change, from its record."""
    return "; ".join(f"{name}: {p.change}" for name, p, _ in PERTURBATIONS.known() if not (p.retrains and option_only))


def variant_help() -> str:
    return "; ".join(f"{key}: {s.name}, partners from {s.scope.value.replace('-', ' ')}s" for key, s in SPLITS.items())


Data = Annotated[Path, option("--data", help=DATA_HELP)]
Split = Annotated[
    str | None, option("--split", help="With a Social-IQ folder as --data: the split to read (qa/qa_SPLIT.json).")
]
Fields = Annotated[
    str | None,
    option(
        "--fields",
        help="Columns of a generic MCQA file: id=COL,question=COL,options=COL|COL|... (or one list column),"
        "answer=COL (0/1-based index, letter or option text; answer_base=0|1 when the data cannot tell),"
        "group=COL (what partners and intervals cluster on; default: each question alone),context=COL "
        "(shown as the transcript),media=COL (a path under --media-root). Unset keys: recognised from the "
        "columns.",
    ),
]
Schema = Annotated[
    Path | None, option("--schema", help="A small YAML file of the --fields keys (options: a list of columns).")
]
MediaRoot = Annotated[
    Path | None,
    option("--media-root", help="Folder the media column's paths lie under (default: the QA file's folder)."),
]
Choices = Annotated[str, option("--choices")]


Format = Annotated[str, option("--format", help=mcqa_format_help())]
OutFormat = Annotated[str | None, option("--out-format", help=out_format_help())]


def field_mapping(fields: str | None, schema: Path | None) -> Mapping | None:
    """The mapping of ``--fields`` or ``--schema`` (not both), None when neither is given."""
    from desiq.formats.mcqa_fields import Mapping, read_schema
    from mmsoc.core.io import UsageError

    if fields is not None and schema is not None:
        raise UsageError("give --fields or --schema, not both")
    return Mapping.parse(fields) if fields is not None else read_schema(schema) if schema is not None else None


def config_of(name: str, items: Sequence[MCQAItem]) -> str:
    """``--choices`` as one of the items' configurations (``AK`` names the one with all options)."""
    from desiq.records import configs
    from mmsoc.core.io import UsageError

    known = configs(items)
    chosen = known[0] if name.upper() == "AK" else name.upper()
    if chosen not in known:
        raise UsageError(f"--choices {name}: these questions have {', '.join(known)} (or AK: all options)")
    return chosen


CacheDir = Annotated[Path | None, option("--cache-dir")]
