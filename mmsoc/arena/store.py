"""The vote store: one SQLite file in WAL mode holding the battles served, the invited annotators, their
browser sessions and one row per vote.

Every vote is committed before the page answers, so a killed server loses nothing; a second vote by
the same annotator on the same battle is refused by ``UNIQUE(annotator, battle)`` and changes nothing.
An annotator is invited by name (NFKC-normalised; unique once case-folded) and gets a secret token; the
file keeps only its sha256, as it keeps only the sha256 of each session id. Connections are opened per
call (the web server answers from several threads).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import sqlite3
import time as clock
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmsoc.arena.records import LABELS, Battle, Vote, parse_battle
from mmsoc.core.io import InputError, UsageError
from mmsoc.core.names import shown

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
CREATE TABLE IF NOT EXISTS annotators (
    name TEXT PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    token_sha256 TEXT NOT NULL UNIQUE,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id_sha256 TEXT PRIMARY KEY,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    csrf TEXT NOT NULL,
    created REAL NOT NULL
);
"""
NAME = re.compile(r"^[\w.@+-]{1,64}$")
NAME_RULE = "1 to 64 letters, digits or . @ + - _"


class VoteRejected(ValueError):
    """A vote that was not recorded, with the HTTP status that says why."""

    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(message)


def normal_name(name: str) -> str:
    """An annotator name as stored: Unicode NFKC (full-width letters become ASCII, ligatures letters)."""
    return unicodedata.normalize("NFKC", name.strip())


def name_key(name: str) -> str:
    """What two names must not share: NFKC of the case-folded NFKC form (``Alice`` and ``alice`` clash)."""
    return unicodedata.normalize("NFKC", normal_name(name).casefold())


def _sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Session:
    """A browser signed in through an invite link: whose it is and the CSRF token its forms carry."""

    annotator: str
    csrf: str


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

    # annotators -----------------------------------------------------------------------------
    def invite(self, names: Sequence[str]) -> dict[str, str]:
        """Invite annotators: name (normalised) -> its secret token, which is shown once and stored only as
        a sha256. All or none: a name that is malformed, given twice or already invited (ignoring case and
        Unicode width) raises UsageError and invites nobody."""
        wanted: dict[str, str] = {}
        for raw in names:
            name = normal_name(raw)
            if not NAME.match(name):
                raise UsageError(f"annotator name {shown(raw)}: {NAME_RULE}")
            clash = next((other for other in wanted if name_key(other) == name_key(name)), None)
            if clash is not None:
                raise UsageError(f"annotator name {shown(raw)} is given twice (as {clash!r})")
            wanted[name] = secrets.token_urlsafe(32)
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                known = dict(db.execute("SELECT key, name FROM annotators").fetchall())
                for name, token in wanted.items():
                    if name_key(name) in known:
                        raise UsageError(f"annotator name {name!r} is taken: {known[name_key(name)]!r} is invited")
                    db.execute(
                        "INSERT INTO annotators (name, key, token_sha256, created) VALUES (?, ?, ?, ?)",
                        (name, name_key(name), _sha256(token), clock.time()),
                    )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return wanted

    def annotators(self) -> list[str]:
        with self._connect() as db:
            return [row[0] for row in db.execute("SELECT name FROM annotators ORDER BY created, name")]

    def open_session(self, token: str) -> tuple[str, Session] | None:
        """A new session (its secret id, and whose it is) for an invite token; None for an unknown token."""
        with self._connect() as db:
            row = db.execute("SELECT name FROM annotators WHERE token_sha256 = ?", (_sha256(token),)).fetchone()
            if row is None:
                return None
            session_id, session = secrets.token_urlsafe(32), Session(row[0], secrets.token_urlsafe(32))
            db.execute(
                "INSERT INTO sessions (id_sha256, annotator, csrf, created) VALUES (?, ?, ?, ?)",
                (_sha256(session_id), session.annotator, session.csrf, clock.time()),
            )
        return session_id, session

    def session(self, session_id: str) -> Session | None:
        """The session of a secret session id (a cookie), None when unknown."""
        with self._connect() as db:
            row = db.execute(
                "SELECT annotator, csrf FROM sessions WHERE id_sha256 = ?", (_sha256(session_id),)
            ).fetchone()
        return None if row is None else Session(*row)

    # votes ----------------------------------------------------------------------------------
    def vote(self, annotator: str, battle_id: str, label: str, critique: str, time: float) -> None:
        """Record one vote; raises VoteRejected (and records nothing) for an unknown battle, a label
        outside the four, or a second vote by the same annotator on the same battle."""
        if label not in LABELS:
            raise VoteRejected(422, f"label must be one of {', '.join(LABELS)}, got {shown(str(label))}")
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                if db.execute("SELECT 1 FROM battles WHERE id = ?", (battle_id,)).fetchone() is None:
                    raise VoteRejected(404, f"no battle {shown(battle_id)}")
                db.execute(
                    "INSERT INTO votes (annotator, battle, label, critique, time) VALUES (?, ?, ?, ?, ?)",
                    (annotator, battle_id, label, critique, time),
                )
                db.execute("COMMIT")
            except sqlite3.IntegrityError:
                db.execute("ROLLBACK")
                raise VoteRejected(409, f"{annotator!r} has already voted on battle {shown(battle_id)}") from None
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
