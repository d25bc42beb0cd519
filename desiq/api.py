"""``desiq.probe(...)``: the bias probe from Python, with the options of ``desiq probe`` (docs/python-api.md)."""

from __future__ import annotations

import contextlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ProbeResult:
    """What a probe wrote: ``results`` (probe.json as a dict: ``results`` holds one row per setting, with
    its accuracy, interval and verdict) and ``out``, the folder holding probe.json, probe.md and
    provenance.json."""

    results: dict[str, Any]
    out: Path


def probe(
    out: str | os.PathLike,
    *,
    probe: str = "embed-linear",
    data: str | os.PathLike | None = None,
    inputs: str = "a",
    train: str | os.PathLike | None = None,
    eval_file: str | os.PathLike | None = None,
    architecture: str = "ours",
    progress: bool = False,
    **options: Any,
) -> ProbeResult:
    """Run ``desiq probe`` into ``out`` and return its results. Options are the command's, by their Python
    names (``--no-debiased`` is ``debiased=False``, ``--per-item`` is ``per_item=True``); no ``data``,
    ``train`` or ``eval_file``: the embedded Social-IQ sample. Bad input raises the error the command
    would have printed (``mmsoc.core.io.InputError``, ``UsageError``)."""
    from desiq.commands.probe import Architecture, ProbeInputs, ProbeName
    from desiq.commands.probe import probe as probe_command

    def path(value: str | os.PathLike | None) -> Path | None:
        return None if value is None else Path(value)

    with contextlib.redirect_stdout(io.StringIO()):  # the command's table: the results are returned
        probe_command(
            out=Path(out),
            probe=ProbeName(probe),
            data=path(data),
            inputs=ProbeInputs(inputs),
            train=path(train),
            eval_file=path(eval_file),
            architecture=Architecture(architecture),
            progress=progress,
            **options,
        )
    return ProbeResult(json.loads((Path(out) / "probe.json").read_text(encoding="utf-8")), Path(out))
