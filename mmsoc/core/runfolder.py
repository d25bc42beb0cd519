"""The run folder every command that writes predictions shares: identity, lock, append log, merge, resume.

RUN_DIR/config.json        the run's identity (a different configuration on the same folder is refused)
RUN_DIR/predictions.jsonl  one row per key (e.g. task, id, seed), appended and flushed as it is made
RUN_DIR/problems.jsonl     items skipped, with the reason
RUN_DIR/metrics.json       computed from the log alone
RUN_DIR/runtime.json       processes of the latest invocation and the predictions each made
RUN_DIR/provenance.json    what ran, one record per invocation (versions, commit, hardware, model revision):
                           outside the identity, so a rerun with a newer library resumes and says so

Under ``accelerate launch`` each process appends to its own ``predictions.rank<r>.jsonl`` and the
main process merges them, after all finish, into the order a single process would have written.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError, JsonlAppender, UsageError, atomic_open, read_jsonl, write_json, write_jsonl

CONFIG = "config.json"
PREDICTIONS = "predictions.jsonl"
PROBLEMS = "problems.jsonl"
METRICS = "metrics.json"
RUNTIME = "runtime.json"
LOCK = ".lock"

Key = tuple[Any, ...]
SAID_IN_LINE = 100
"""The most characters of differences a refusal's line holds; longer ones go on a line of their own."""


class RunFolderError(UsageError):
    """RUN_DIR holds a different run, or another process is writing to it."""


def _missing(path: Path) -> list[Path]:
    """``path`` and those of its parents that do not exist, outermost first (what ``mkdir(parents=True)`` makes)."""
    absent = []
    while not path.exists() and path != path.parent:
        absent.append(path)
        path = path.parent
    return absent[::-1]


def _short(value: Any, most: int = 60) -> str:
    """``repr(value)``, cut to ``most`` characters."""
    text = repr(value)
    return text if len(text) <= most else text[: most - 3] + "..."


def _grows(before: Any, now: Any) -> bool:
    return now is None or (before is not None and now >= before)


class RunFolder:
    """One run's folder; rows are identified by the values of ``key_fields``."""

    def __init__(self, path: str | os.PathLike, key_fields: Sequence[str] = ("task", "id", "seed")):
        self.path = Path(path)
        self.key_fields = tuple(key_fields)

    def key(self, row: dict[str, Any]) -> Key:
        return tuple(row.get(name) for name in self.key_fields)

    # identity -------------------------------------------------------------------------------
    def check(self, config: dict[str, Any], growable: Sequence[str] = ()) -> bool:
        """Whether config.json exists; raises RunFolderError naming each field that differs.

        A ``growable`` field (an item limit) may grow between runs (None meaning no limit), never shrink:
        a smaller one would report metrics over items the command did not ask for.
        """
        path = self.path / CONFIG
        if not path.exists():
            return False
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise InputError(path, f"invalid JSON ({err.msg})", line=err.lineno) from None
        differ = [
            key
            for key in config
            if found.get(key) != config[key] and not (key in growable and _grows(found.get(key), config[key]))
        ]
        if differ:
            said = "; ".join(f"{key}: {_short(found.get(key))} there, {_short(config[key])} now" for key in differ)
            named = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
            short = len(said) <= SAID_IN_LINE
            raise RunFolderError(
                f"{path} belongs to a different run ({said if short else named + ' differ'}); "
                "pass another --out folder, or delete this one to start over",
                detail=None if short else f"{path}: {said}",
            )
        return True

    def claim(self, config: dict[str, Any], growable: Sequence[str] = (), loaded: Any = None) -> None:
        """Write config.json, or check that the one there describes the same run (and record a grown field);
        then add this invocation's record to provenance.json (``loaded``: how the model was loaded)."""
        from mmsoc.core.provenance import append_record, record

        if not self.check(config, growable) or any(self._recorded(key) != config[key] for key in growable):
            write_json(self.path / CONFIG, config)
        model = config.get("model")
        append_record(self.path, record(model if isinstance(model, str) else None, config.get("revision"), loaded))

    def _recorded(self, key: str) -> Any:
        return json.loads((self.path / CONFIG).read_text(encoding="utf-8")).get(key)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder for this process; a second writer is refused at once with a clear message.

        Should the block fail before config.json is written (the model could not be loaded), what the
        lock made is removed again: the lock file, and the folders it created once they are empty. A
        folder that was there before is left as it was."""
        created = _missing(self.path)
        self.path.mkdir(parents=True, exist_ok=True)
        new_lock = not (self.path / LOCK).exists()
        with open(self.path / LOCK, "a") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RunFolderError(
                    f"{self.path} is in use by another run; wait for it to finish or pass another --out folder"
                ) from None
            try:
                yield
            except BaseException:
                if not (self.path / CONFIG).exists():
                    self._unmake(new_lock, created)
                raise
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _unmake(self, lock_file: bool, folders: Sequence[Path]) -> None:
        """Remove the lock file (when ``lock_file``) and then ``folders``, innermost first, while empty."""
        if lock_file:
            (self.path / LOCK).unlink(missing_ok=True)
        for folder in reversed(folders):
            try:
                folder.rmdir()
            except OSError:  # something else is in it now: it stays, and so do its parents
                return

    # the prediction log ---------------------------------------------------------------------
    def rank_logs(self) -> list[Path]:
        """Per-process logs (left by a multi-process run), in rank order."""
        return sorted(self.path.glob("predictions.rank*.jsonl"), key=lambda p: int(p.name.split(".")[1][4:]))

    def log_paths(self) -> list[Path]:
        """The merged log first, then any per-process logs."""
        merged = self.path / PREDICTIONS
        return ([merged] if merged.exists() else []) + self.rank_logs()

    def own_log(self, rank: int, world: int) -> Path:
        """Where a process appends: the merged log itself when it runs alone."""
        return self.path / (PREDICTIONS if world == 1 else f"predictions.rank{rank}.jsonl")

    def repair(self) -> None:
        """Drop a partial last line (from a killed process) from every log, before anyone reads them."""
        for path in self.log_paths():
            JsonlAppender(path).close()

    def rows(self) -> list[dict[str, Any]]:
        """Every logged row, each key once (the first copy wins)."""
        seen: dict[Key, dict[str, Any]] = {}
        for path in self.log_paths():
            for _, row in read_jsonl(path):
                seen.setdefault(self.key(row), row)
        return list(seen.values())

    def done(self) -> set[Key]:
        return {self.key(row) for row in self.rows()}

    def merge(self, order: Sequence[Key]) -> list[dict[str, Any]]:
        """Rewrite the merged log atomically in ``order`` (rows not in it follow, as found) and drop
        the per-process logs. The result is byte-identical to a single uninterrupted process's log."""
        rows = self.rows()
        rank = {key: i for i, key in enumerate(order)}
        rows.sort(key=lambda row: rank.get(self.key(row), len(rank)))
        with atomic_open(self.path / PREDICTIONS, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
        for path in self.rank_logs():
            path.unlink()
        return rows

    # summaries ------------------------------------------------------------------------------
    def write_problems(
        self, problems: Sequence[dict[str, Any]], fields: Sequence[str] = ("task", "id", "problem")
    ) -> None:
        unique = {tuple(str(p.get(f)) for f in fields): p for p in problems}
        write_jsonl(self.path / PROBLEMS, [unique[k] for k in sorted(unique)])

    def write_runtime(self, runtime: dict[str, Any]) -> None:
        write_json(self.path / RUNTIME, runtime)

    def write_metrics(self, metrics: Any) -> None:
        write_json(self.path / METRICS, metrics)
