"""An attacker and a careless user against ``mmsoc arena``: forged annotators, cross-origin forms, missing
tokens, names that differ only in case, foreign Host headers and a public progress page (the vote page,
in process and in headless Chromium); model names that look like console markup; a judge that voted on
nothing."""

from __future__ import annotations

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from arena_data import ADMIN, ORIGIN, Server, client, csrf_of
from browser import browser, needs_browser
from processes import free_port
from typer.testing import CliRunner

from mmsoc.arena.records import Battle, Vote, write_battles
from mmsoc.arena.store import VoteStore
from mmsoc.cli import app


def _battles(n: int = 3, votes: int = 0, models: tuple[str, str] = ("model-x", "model-y")) -> list[Battle]:
    """``n`` text battles; battle k gets ``votes`` votes (annotators ann0, ann1, ...) all saying A for even
    k and B for odd k."""
    return [
        Battle(
            f"b{k}",
            f"item{k}",
            *models,
            f"answer x{k}",
            f"answer y{k}",
            votes=tuple(Vote(f"ann{j}", "AB"[k % 2], "", 1_700_000_000.0 + k) for j in range(votes)),
        )
        for k in range(n)
    ]


@pytest.fixture()
def store(tmp_path):
    store = VoteStore(tmp_path / "votes.sqlite")
    store.add_battles(_battles(), "battles.jsonl")
    return store


def _votes(store) -> list[tuple[str, str, str]]:
    return [(battle, vote.annotator, vote.label) for battle, vote in store.votes()]


def _form(browser_client, **fields) -> dict:
    return {"battle": "b0", "label": "B", "csrf": csrf_of(browser_client.get("/vote").text), **fields}


def test_a_forged_annotator_field_is_ignored(store):
    store.invite(["alice"])
    bob = client(store, "bob")
    answer = bob.post("/vote", data=_form(bob, annotator="alice"), follow_redirects=False)
    assert answer.status_code == 303
    assert _votes(store) == [("b0", "bob", "B")]  # bob's own vote; none under alice's name
    # the request of the previous release (a name in the form, no session) records nothing
    anyone = client(store)
    form = {"annotator": "alice", "battle": "b1", "label": "B"}
    assert anyone.post("/vote", data=form, follow_redirects=False).status_code == 403
    assert _votes(store) == [("b0", "bob", "B")]


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1:8001"},  # same host, another port: another origin
        {"Origin": "https://127.0.0.1:8000"},
        {"Referer": "http://evil.example/page.html"},
        {},  # neither header
    ],
)
def test_a_cross_origin_vote_is_refused(store, headers):
    bob = client(store, "bob")
    form = _form(bob)
    del bob.headers["Origin"]  # the signed-in client sends only the headers given here
    refused = bob.post("/vote", data=form, headers=headers, follow_redirects=False)
    assert refused.status_code == 403 and "accepted only from this server" in refused.text
    assert _votes(store) == []
    for battle, same in (("b1", {"Origin": ORIGIN}), ("b2", {"Referer": f"{ORIGIN}/vote"})):
        answer = bob.post("/vote", data={**form, "battle": battle}, headers=same, follow_redirects=False)
        assert answer.status_code == 303
    assert _votes(store) == [("b1", "bob", "B"), ("b2", "bob", "B")]


def test_a_vote_without_a_valid_token_is_refused(store):
    alice, bob = client(store, "alice"), client(store, "bob")
    anyone = client(store)
    assert anyone.get("/vote").status_code == 403
    assert anyone.get("/join/not-a-token").status_code == 403
    assert anyone.post("/vote", data={"battle": "b0", "label": "A"}, follow_redirects=False).status_code == 403
    anyone.cookies.set("arena_session_8000", "forged-session-id")
    assert anyone.post("/vote", data={"battle": "b0", "label": "A"}, follow_redirects=False).status_code == 403
    for csrf in ("", "x" * 43, csrf_of(alice.get("/vote").text)):  # none, made up, another session's
        answer = bob.post("/vote", data=_form(bob, csrf=csrf), follow_redirects=False)
        assert answer.status_code == 403 and "not from your session" in answer.text
    assert _votes(store) == []


def test_names_that_differ_only_in_case_or_width_are_one_annotator(tmp_path):
    db = tmp_path / "votes.sqlite"

    def invite(*names):
        return CliRunner().invoke(app, ["arena", "invite", "--db", str(db), *(f"--name={n}" for n in names)])

    first = invite("alice")
    assert first.exit_code == 0, first.output
    (line,) = first.stdout.splitlines()
    assert line.startswith("alice\thttp://127.0.0.1:8000/join/")
    for clash in ("Alice", "ALICE", "\uff41\uff4c\uff49\uff43\uff45"):  # the last: full-width "alice"
        again = invite(clash)
        assert again.exit_code == 2 and "is taken: 'alice' is invited" in again.output
    twice = invite("carol", "Carol")
    assert twice.exit_code == 2 and "given twice" in twice.output
    store = VoteStore(db)
    assert store.annotators() == ["alice"]
    token = line.split("/join/")[1]
    assert token not in db.read_bytes().decode("latin-1")  # stored hashed


@pytest.mark.parametrize("host", ["evil.example:8000", "evil.example", "127.0.0.1:8001", "localhost.evil.example:8000"])
def test_a_foreign_host_header_is_refused(store, host):
    bob = client(store, "bob")
    form = _form(bob)
    for answer in (
        bob.get("/", headers={"Host": host}),
        bob.get("/progress", headers={"Host": host}),
        bob.get("/media/b0/0", headers={"Host": host}),
        bob.post("/vote", data=form, headers={"Host": host, "Origin": f"http://{host}"}, follow_redirects=False),
    ):
        assert answer.status_code == 400 and answer.text == "unknown Host header"
    assert _votes(store) == []
    for name in ("localhost:8000", "[::1]:8000", "127.0.0.1:8000"):
        assert bob.get("/progress", headers={"Host": name}).status_code == 200


def test_progress_names_annotators_only_with_the_admin_token(store):
    store.invite(["alice"])
    bob = client(store, "bob")
    bob.post("/vote", data=_form(bob), follow_redirects=False)
    anyone = client(store)
    counts = anyone.get("/progress")
    assert counts.json() == {"battles": 3, "votes": 1, "annotators": 1, "battles_by_votes": {"0": 2, "1": 1}}
    assert "bob" not in counts.text
    assert anyone.get("/progress", params={"admin": "guess"}).status_code == 403
    admin = anyone.get("/progress", params={"admin": ADMIN}).json()
    assert admin["votes_by_annotator"] == {"bob": 1}


@needs_browser
def test_chromium_a_cross_origin_form_and_a_spoofed_annotator_are_refused(tmp_path):
    write_battles(tmp_path / "battles.jsonl", _battles())
    server = Server(tmp_path / "battles.jsonl", tmp_path / "votes.sqlite", free_port())
    links = server.invite("alice", "bob")
    evil = tmp_path / "evil"
    evil.mkdir()
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(evil))
    attacker = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    driver = None
    try:
        server.start()
        driver = browser(tmp_path / "profile")
        _attack(driver, server, links["bob"], evil, f"http://127.0.0.1:{attacker.server_address[1]}/evil.html")
    finally:
        if driver is not None:
            driver.quit()
        attacker.shutdown()
        server.kill()


def _attack(driver, server: Server, link: str, evil, evil_url: str) -> None:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(link)  # bob signs in; his cookie goes with any request to the server, even from evil_url
    csrf = driver.find_element(By.NAME, "csrf").get_attribute("value")
    fields = {"annotator": "alice", "battle": "b0", "label": "B", "csrf": csrf}  # even with bob's CSRF token
    inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
    (evil / "evil.html").write_text(
        f'<!DOCTYPE html><html><body onload="document.forms[0].submit()">'
        f'<form method="post" action="{server.url}/vote">{inputs}</form></body></html>'
    )
    driver.get(evil_url)
    refused = f"{server.url}/vote"  # the form was sent, and refused: wait through the navigation away from evil_url
    WebDriverWait(driver, 20, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.current_url == refused and d.find_elements(By.ID, "error")
    )
    assert "accepted only from this server" in driver.find_element(By.ID, "error").text
    assert _votes(VoteStore(server.db)) == []
    # bob adds an annotator field naming alice to his own vote page: the vote is his
    driver.get(f"{server.url}/vote")
    battle = driver.find_element(By.ID, "battle").get_attribute("value")
    driver.execute_script(
        "const f = document.forms[0], i = document.createElement('input');"
        "i.type = 'hidden'; i.name = 'annotator'; i.value = 'alice'; f.appendChild(i);"
    )
    old = driver.find_element(By.ID, "battle")
    driver.find_element(By.ID, "vote-A").click()
    WebDriverWait(driver, 20).until(expected_conditions.staleness_of(old))
    assert _votes(VoteStore(server.db)) == [(battle, "bob", "A")]


def _rate(tmp_path, votes: list[Battle], judge: list[Battle] | None = None, *extra: str):
    write_battles(tmp_path / "votes.jsonl", votes)
    args = ["arena", "rate", "--votes", str(tmp_path / "votes.jsonl"), "--out", str(tmp_path / "out")]
    if judge is not None:
        write_battles(tmp_path / "judge.jsonl", judge)
        args += ["--judge", str(tmp_path / "judge.jsonl")]
    return CliRunner().invoke(app, [*args, "--bootstrap", "10", *extra])


def test_model_names_that_look_like_console_markup_print_as_written(tmp_path):
    names = ("llava[/ft]", "blip[bold]2")
    result = _rate(tmp_path, _battles(4, votes=1, models=names), None, "--min-annotators", "1")
    assert result.exit_code == 0, result.output
    assert "llava[/ft]" in result.stdout and "blip[bold]2" in result.stdout
    ratings = json.loads((tmp_path / "out" / "ratings.json").read_text())
    assert sorted(e["model"] for e in ratings["models"]) == sorted(names)


@pytest.mark.parametrize(
    "judge, said",
    [
        ([], "the judge cast no votes (0 battles in the file)"),
        (_battles(2), "the judge cast no votes (2 battles in the file)"),
        (
            [Battle("b9", "item9", "model-x", "model-y", "p", "q", votes=(Vote("judge:m", "A"),))],
            "judge judge:m cast 1 votes, none on a battle rated",
        ),
    ],
)
def test_a_judge_that_cast_no_votes_is_reported_and_the_people_are_rated(tmp_path, judge, said):
    result = _rate(tmp_path, _battles(4, votes=3), judge)
    assert result.exit_code == 0, result.output
    assert f"warning: judge file {tmp_path / 'judge.jsonl'}: {said}" in result.output
    ratings = json.loads((tmp_path / "out" / "ratings.json").read_text())
    # 4 battles of model-x and model-y, 3 annotators each, 2 won by each: equal Bradley-Terry ratings
    assert [(e["battles"], round(e["rating"], 6)) for e in ratings["models"]] == [(4, 1000.0), (4, 1000.0)]
    assert ratings["agreement"]["judges"] == {}
    assert said in (tmp_path / "out" / "leaderboard.md").read_text()
