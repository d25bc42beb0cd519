"""The vote store: one SQLite file in WAL mode holding the battles served and one row per vote.

Every vote is committed before the page answers, so a killed server loses nothing; a second vote by
the same annotator on the same battle is refused by ``UNIQUE(annotator, battle)`` and changes nothing.
Connections are opened per call (the web server answers from several threads).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from mmsoc.arena.records import LABELS, Battle, Vote, parse_battle
from mmsoc.core.io import InputError

_LABELS_SQL = ", ".join(f"'{label}'" for label in LABELS)
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS battles (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL UNIQUE,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS votes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    annotator TEXT NOT NULL CHECK (length(annotator) > 0),
    battle TEXT NOT NULL REFERENCES battles(id),
    label TEXT NOT NULL CHECK (label IN ({_LABELS_SQL})),
    critique TEXT NOT NULL DEFAULT '',
    time REAL NOT NULL,
    UNIQUE (annotator, battle)
);
"""


class VoteRejected(ValueError):
    """A vote that was not recorded, with the HTTP status that says why."""

    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(message)


class VoteStore:
    """Battles and votes in one SQLite file."""

    def __init__(self, path: str | os.PathLike, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise InputError(self.path, "vote database not found")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise OSError(f"{self.path}: SQLite could not switch to WAL mode (got {mode!r})")
            db.executescript(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as err:
            raise OSError(f"{self.path}: cannot open the vote database ({err})") from None
        with closing(connection) as db:
            try:
                db.execute("PRAGMA foreign_keys=ON")
                db.execute("PRAGMA synchronous=FULL")
                yield db
            except sqlite3.IntegrityError:
                raise
            except sqlite3.DatabaseError as err:
                raise OSError(f"{self.path}: {err}") from None

    # battles --------------------------------------------------------------------------------
    def add_battles(self, battles: Sequence[Battle], source: str | os.PathLike) -> int:
        """Store battles not stored yet (their votes are not imported); returns how many were new.

        A battle id already stored with other content is refused: the database belongs to other battles.
        """
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                stored = dict(db.execute("SELECT id, record FROM battles").fetchall())
                position = db.execute("SELECT COALESCE(MAX(position), -1) FROM battles").fetchone()[0]
                new = 0
                for battle in battles:
                    record = _record(battle)
                    if battle.id in stored:
                        if stored[battle.id] != record:
                            raise InputError(
                                source,
                                f"battle {battle.id!r} is stored in {self.path} with other "
                                "content; serve these battles with another --db",
                                field="id",
                            )
                        continue
                    position += 1
                    new += 1
                    db.execute(
                        "INSERT INTO battles (id, position, record) VALUES (?, ?, ?)", (battle.id, position, record)
                    )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return new

    def battle(self, battle_id: str) -> Battle | None:
        with self._connect() as db:
            row = db.execute("SELECT record FROM battles WHERE id = ?", (battle_id,)).fetchone()
        return None if row is None else _battle(row[0])

    def count(self) -> int:
        with self._connect() as db:
            return db.execute("SELECT COUNT(*) FROM battles").fetchone()[0]

    def next_battle(self, annotator: str) -> Battle | None:
        """The battle this annotator has not voted on with the fewest votes so far (ties: an order of the
        annotator's own, so annotators do not all start on the same battle); None when all are done."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT b.id, b.record, (SELECT COUNT(*) FROM votes v WHERE v.battle = b.id) FROM battles b "
                "WHERE NOT EXISTS (SELECT 1 FROM votes v WHERE v.battle = b.id AND v.annotator = ?)",
                (annotator,),
            ).fetchall()
        if not rows:
            return None
        _, record, _ = min(rows, key=lambda row: (row[2], _order(annotator, row[0])))
        return _battle(record)

    # votes ----------------------------------------------------------------------------------
    def vote(self, annotator: str, battle_id: str, label: str, critique: str, time: float) -> None:
        """Record one vote; raises VoteRejected (and records nothing) for an unknown battle, a label
        outside the four, or a second vote by the same annotator on the same battle."""
        if label not in LABELS:
            raise VoteRejected(422, f"label must be one of {', '.join(LABELS)}, got {label!r}")
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                if db.execute("SELECT 1 FROM battles WHERE id = ?", (battle_id,)).fetchone() is None:
                    raise VoteRejected(404, f"no battle {battle_id!r}")
                db.execute(
                    "INSERT INTO votes (annotator, battle, label, critique, time) VALUES (?, ?, ?, ?, ?)",
                    (annotator, battle_id, label, critique, time),
                )
                db.execute("COMMIT")
            except sqlite3.IntegrityError:
                db.execute("ROLLBACK")
                raise VoteRejected(409, f"{annotator!r} has already voted on battle {battle_id!r}") from None
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def progress(self) -> dict[str, Any]:
        """Battles, votes, and votes per annotator."""
        with self._connect() as db:
            battles = db.execute("SELECT COUNT(*) FROM battles").fetchone()[0]
            per = db.execute("SELECT annotator, COUNT(*) FROM votes GROUP BY annotator ORDER BY annotator").fetchall()
            counts = db.execute(
                "SELECT n, COUNT(*) FROM (SELECT COUNT(*) AS n FROM votes GROUP BY battle) GROUP BY n ORDER BY n"
            ).fetchall()
        voted = sum(k for _, k in counts)
        return {
            "battles": battles,
            "votes": sum(n for _, n in per),
            "annotators": dict(per),
            "battles_by_votes": {"0": battles - voted, **{str(n): k for n, k in counts}},
        }

    def votes(self) -> list[tuple[str, Vote]]:
        """(battle id, vote) of every vote, in the order cast."""
        with self._connect() as db:
            rows = db.execute("SELECT battle, annotator, label, critique, time FROM votes ORDER BY time, id").fetchall()
        return [(battle, Vote(annotator, label, critique, time)) for battle, annotator, label, critique, time in rows]

    def export(self) -> list[Battle]:
        """Every battle, in the order stored, with its votes in the order cast (the votes file)."""
        by_battle: dict[str, list[Vote]] = {}
        for battle_id, vote in self.votes():
            by_battle.setdefault(battle_id, []).append(vote)
        with self._connect() as db:
            rows = db.execute("SELECT id, record FROM battles ORDER BY position").fetchall()
        return [_battle(record).with_votes(by_battle.get(battle_id, [])) for battle_id, record in rows]


def _record(battle: Battle) -> str:
    row = battle.to_json()
    row["votes"] = []
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def _battle(record: str) -> Battle:
    return parse_battle(json.loads(record), "vote database")


def _order(annotator: str, battle_id: str) -> str:
    return hashlib.sha256(f"{annotator}\x00{battle_id}".encode()).hexdigest()
