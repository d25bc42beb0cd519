"""Battles for the arena tests: simulated outcomes of models with known strengths, as votes files; the vote
page in process (a signed-in test client) and as ``mmsoc arena serve`` in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

from mmsoc.arena.records import Battle, Vote
from mmsoc.arena.store import VoteStore
from mmsoc.arena.web import Access, create_app

REPO = Path(__file__).resolve().parents[1]
ORIGIN = "http://127.0.0.1:8000"
ADMIN = "admin-token-of-the-tests"


def client(store: VoteStore, name: str | None = None, origin: str = ORIGIN):
    """A test client of the vote page at ``origin`` whose requests carry that Origin; signed in through
    ``name``'s invite link (invited here) when a name is given."""
    from fastapi.testclient import TestClient

    port = int(origin.rsplit(":", 1)[1])
    app = create_app(store, Access.of("127.0.0.1", port, admin_token=ADMIN))
    browser = TestClient(app, base_url=origin, headers={"Origin": origin})
    if name is not None:
        (token,) = store.invite([name]).values()
        assert browser.get(f"/join/{token}", follow_redirects=False).status_code == 303
    return browser


def csrf_of(page: str) -> str:
    """The CSRF token in a vote page's form."""
    marker = 'name="csrf" value="'
    return page.split(marker)[1].split('"')[0]


class Server:
    """``mmsoc arena serve`` in a child process; ``invite`` prints invite links with ``mmsoc arena invite``."""

    def __init__(self, battles: Path, db: Path, port: int):
        self.db = db
        self.args = [sys.executable, "-m", "mmsoc", "arena", "serve", "--battles", str(battles), "--db", str(db)]
        self.args += ["--port", str(port)]
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None

    def invite(self, *names: str) -> dict[str, str]:
        """name -> invite link, from the command's standard output."""
        args = [sys.executable, "-m", "mmsoc", "arena", "invite", "--db", str(self.db), "--url", self.url]
        for name in names:
            args += ["--name", name]
        done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True)
        return dict(line.split("\t") for line in done.stdout.splitlines())

    def start(self) -> None:
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
        self.proc = subprocess.Popen(self.args, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.proc.stderr.read().decode()
            try:
                urllib.request.urlopen(self.url + "/progress", timeout=2).read()
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError("the server did not start")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when a machine loses power."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            self.proc.stderr.close()


def simulate(true: dict[str, float], n: int, seed: int, p_tie: float = 0.1, p_both_bad: float = 0.05) -> list:
    """(model_a, model_b, label) of ``n`` battles between random pairs: a tie or both_bad at fixed rates,
    otherwise A wins with the Bradley-Terry probability on the Elo scale (base 10, scale 400)."""
    rng = np.random.default_rng(seed)
    names = list(true)
    out = []
    for _ in range(n):
        a, b = (str(x) for x in rng.choice(names, 2, replace=False))
        u = rng.random()
        p_a = 1.0 / (1.0 + 10 ** ((true[b] - true[a]) / 400.0))
        label = "tie" if u < p_tie else "both_bad" if u < p_tie + p_both_bad else "A" if rng.random() < p_a else "B"
        out.append((a, b, label))
    return out


def as_battles(triples: list, annotators: int = 1, start: float = 1_700_000_000.0) -> list[Battle]:
    """One battle per triple whose ``annotators`` votes all give its label, cast one second apart."""
    battles = []
    for k, (a, b, label) in enumerate(triples):
        votes = tuple(Vote(f"ann{j}", label, "", start + k + j / 10) for j in range(annotators))
        battles.append(
            Battle(
                id=f"b{k:05d}",
                item=f"i{k}",
                model_a=a,
                model_b=b,
                response_a=f"answer of {a}",
                response_b=f"answer of {b}",
                votes=votes,
            )
        )
    return battles
