"""Teacher explanation files: JSON Lines rows ``{"id", "explanation"}`` (plus ``task``, ``label``,
``prompt``, ``prompt_version`` when written by ``mmsoc explain``, whose run folder keeps them in
``predictions.jsonl``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mmsoc.core.io import InputError, read_jsonl
from mmsoc.core.runfolder import PREDICTIONS


@dataclass(frozen=True)
class Explanation:
    """One teacher explanation of an item's gold answer."""

    id: str
    explanation: str
    task: str = ""
    label: str = ""
    prompt: str = ""
    prompt_version: str = ""

    def row(self) -> dict:
        return {
            "id": self.id,
            "task": self.task,
            "label": self.label,
            "explanation": self.explanation,
            "prompt": self.prompt,
            "prompt_version": self.prompt_version,
        }


def read_explanations(path: str | os.PathLike) -> dict[tuple[str, str], Explanation]:
    """Explanations keyed by (task, id), from a JSONL file or an ``mmsoc explain`` run folder; a row
    without ``task`` is keyed by ("", id) and applies to every task. Missing or non-string fields and
    duplicate keys raise InputError."""
    if Path(path).is_dir():
        path = Path(path, PREDICTIONS)
        if not path.is_file():
            raise InputError(path, "no explanations here: give a JSONL file or an 'mmsoc explain' run folder")
    table: dict[tuple[str, str], Explanation] = {}
    for line, row in read_jsonl(path):
        for field in ("id", "explanation"):
            if not isinstance(row.get(field), str) or not row[field].strip():
                raise InputError(path, "missing or not a non-empty string", line=line, field=field)
        task = row.get("task", "")
        if not isinstance(task, str):
            raise InputError(path, "not a string", line=line, field="task")
        key = (task, row["id"])
        if key in table:
            raise InputError(
                path, f"duplicate explanation for {task + '/' if task else ''}{row['id']}", line=line, field="id"
            )
        table[key] = Explanation(
            row["id"],
            row["explanation"].strip(),
            task,
            str(row.get("label", "")),
            str(row.get("prompt", "")),
            str(row.get("prompt_version", "")),
        )
    return table


def find_explanation(table: Mapping[tuple[str, str], Explanation], task: str, item_id: str) -> Explanation | None:
    """The explanation for (task, id), falling back to a task-less row for the id."""
    return table.get((task, item_id)) or table.get(("", item_id))
