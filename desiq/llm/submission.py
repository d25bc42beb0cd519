"""The Social-IQ 2.0 challenge submission: the test file's rows, each with the chosen ``answer_idx`` added.

"Please do not alter the other field names, or include any other fields": every row keeps the
fields it was read with, in the input order, plus ``answer_idx`` (the original A4 question's
choice; null where no option could be read from a written reply or the question failed).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desiq.llm.conditions import ORIGINAL
from desiq.records import PAIRS, position_id
from mmsoc.core.io import read_jsonl, write_jsonl


def write_submission(qa: Path, rows: Sequence[dict[str, Any]], out: Path) -> dict[str, int]:
    """Write ``out``; return how many questions it holds and how many have no answer."""
    chosen = {
        row["id"]: row["chosen"]
        for row in rows
        if row["condition"] == ORIGINAL and row["config"] != PAIRS and row["rotation"] == 0
    }
    lines = []
    for k, (_, obj) in enumerate(read_jsonl(qa)):
        lines.append({**obj, "answer_idx": chosen.get(position_id(obj.get("qid", ""), k))})
    write_jsonl(out, lines)
    return {"questions": len(lines), "unanswered": sum(line["answer_idx"] is None for line in lines)}
