"""The vote store and the vote page through FastAPI's test client: invited annotators' votes, refusals that
change nothing, media served only from inside the data root, restart, export."""

from __future__ import annotations

import io
import json
import sqlite3

import pytest
from arena_data import ADMIN, client, csrf_of
from PIL import Image
from typer.testing import CliRunner

from mmsoc.arena.media import check_media
from mmsoc.arena.records import Battle, read_battles, write_battles
from mmsoc.arena.store import VoteStore
from mmsoc.cli import app


@pytest.fixture()
def data(tmp_path):
    root = tmp_path / "data"
    (root / "img").mkdir(parents=True)
    Image.new("RGB", (20, 10), (200, 30, 30)).save(root / "img" / "ok.png")
    (root / "frames").mkdir()
    for k in range(3):
        Image.new("RGB", (16, 12), (0, 80 * k, 0)).save(root / "frames" / f"{k:03d}.png")
    (tmp_path / "secret.png").write_bytes(b"not for annotators")
    (root / "img" / "link.png").symlink_to(tmp_path / "secret.png")
    return root


def _battles(root) -> list[Battle]:
    common = dict(model_a="model-x", model_b="model-y", task="image_description", prompt="Describe the scene.")
    return [
        Battle(
            "b-img",
            "i1",
            response_a="<script>alert(1)</script>",
            response_b="a red box",
            data=str(root),
            media=("img/ok.png",),
            text="meme text",
            **common,
        ),
        Battle("b-frames", "i2", response_a="frames one", response_b="", data=str(root), media=("frames",), **common),
        Battle("b-text", "i3", response_a="text one", response_b="text two", **common),
    ]


@pytest.fixture()
def store(tmp_path, data):
    store = VoteStore(tmp_path / "votes.sqlite")
    store.add_battles(_battles(data), "battles.jsonl")
    return store


@pytest.fixture()
def served(store):
    return store, client(store, "alice")


def _vote(browser, battle, label, critique="", **extra):
    form = {"battle": battle, "label": label, "critique": critique, "csrf": csrf_of(browser.get("/vote").text)}
    return browser.post("/vote", data={**form, **extra}, follow_redirects=False)


def _shown(browser) -> str | None:
    page = browser.get("/vote").text
    marker = 'name="battle" id="battle" value="'
    return page.split(marker)[1].split('"')[0] if marker in page else None


def test_annotator_votes_through_every_battle_once(served):
    store, alice = served
    home = client(store).get("/")
    assert home.status_code == 200 and "open the invite link" in home.text
    assert "default-src 'none'" in home.headers["content-security-policy"]
    assert alice.get("/", follow_redirects=False).headers["location"] == "/vote"
    seen = []
    while (battle := _shown(alice)) is not None:
        assert battle not in seen
        page = alice.get("/vote").text
        assert "model-x" not in page and "model-y" not in page
        if battle == "b-img":
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
            assert "Describe the scene." in page and "meme text" in page and 'src="/media/b-img/0"' in page
        answer = _vote(alice, battle, "A", critique=f"critique of {battle}")
        assert answer.status_code == 303 and answer.headers["location"] == "/vote"
        seen.append(battle)
    assert sorted(seen) == ["b-frames", "b-img", "b-text"]
    done = alice.get("/vote")
    assert 'id="done"' in done.text and "voted on 3 of 3" in done.text
    assert [(b, v.annotator, v.label, v.critique) for b, v in store.votes()] == [
        (b, "alice", "A", f"critique of {b}") for b in seen
    ]
    counts = {"battles": 3, "votes": 3, "annotators": 1, "battles_by_votes": {"0": 0, "1": 3}}
    assert alice.get("/progress").json() == counts
    assert alice.get("/progress", params={"admin": ADMIN}).json() == {**counts, "votes_by_annotator": {"alice": 3}}
    # another annotator starts on a battle with the fewest votes
    _vote(client(store, "bob"), "b-text", "tie")
    assert _shown(client(store, "carol")) in ("b-img", "b-frames")


@pytest.mark.parametrize(
    "form, status, message",
    [
        ({"battle": "nope", "label": "A"}, 404, "no battle"),
        ({"battle": "b-img", "label": "C"}, 422, "label must be one of A, B, tie, both_bad"),
        ({"battle": "b-img", "label": ""}, 422, "label must be one of"),
        ({"battle": "b-img", "label": "B"}, 409, "already voted"),
        ({"battle": "b-text", "label": "A", "csrf": ""}, 403, "not from your session"),
        ({"battle": "b-text", "label": "A", "critique": "x" * 10_001}, 422, "critique longer"),
    ],
)
def test_bad_requests_get_4xx_and_change_nothing(served, form, status, message):
    store, alice = served
    assert _vote(alice, "b-img", "A").status_code == 303
    before = (store.votes(), store.progress())
    answer = alice.post(
        "/vote", data={"critique": "", "csrf": csrf_of(alice.get("/vote").text), **form}, follow_redirects=False
    )
    assert answer.status_code == status and message in answer.text
    assert (store.votes(), store.progress()) == before


def test_media_only_from_inside_the_data_root(served, data, tmp_path):
    store, browser = served
    assert client(store).get("/media/b-img/0").status_code == 404  # not signed in
    image = browser.get("/media/b-img/0")
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert image.content == (data / "img" / "ok.png").read_bytes()
    frames = [browser.get(f"/media/b-frames/{k}") for k in range(4)]
    assert [f.status_code for f in frames] == [200, 200, 200, 404]
    assert [Image.open(io.BytesIO(f.content)).getpixel((0, 0)) for f in frames[:3]] == [
        (0, 0, 0),
        (0, 80, 0),
        (0, 160, 0),
    ]
    for url in ("/media/b-img/1", "/media/b-text/0", "/media/nope/0", "/media/b-img/-1"):
        assert browser.get(url).status_code == 404
    # a link inside the root that points outside: refused when serving starts, and never served
    escaping = Battle("b-link", "i4", "model-x", "model-y", "a", "b", data=str(data), media=("img/link.png",))
    with pytest.raises(ValueError, match=r"b-link.*outside the data root"):
        check_media([escaping], "battles.jsonl")
    store.add_battles([escaping], "battles.jsonl")
    answer = browser.get("/media/b-link/0")
    assert answer.status_code == 404 and b"not for annotators" not in answer.content
    write_battles(tmp_path / "escaping.jsonl", [escaping])
    result = CliRunner().invoke(
        app, ["arena", "serve", "--battles", str(tmp_path / "escaping.jsonl"), "--db", str(tmp_path / "other.sqlite")]
    )
    assert result.exit_code == 2 and "field 'media[0]'" in result.output and "outside the data root" in result.output


def test_store_survives_reopening_and_refuses_other_battles(served, data, tmp_path):
    _store, alice = served
    _vote(alice, "b-img", "both_bad", "both miss the point")
    reopened = VoteStore(tmp_path / "votes.sqlite")
    assert reopened.add_battles(_battles(data), "battles.jsonl") == 0
    assert [(b, v.label) for b, v in reopened.votes()] == [("b-img", "both_bad")]
    with sqlite3.connect(tmp_path / "votes.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    changed = [Battle("b-img", "i1", "model-x", "model-y", "other answer", "a red box")]
    with pytest.raises(ValueError, match=r"'b-img' is stored .* with other content"):
        reopened.add_battles(changed, "battles.jsonl")
    assert reopened.count() == 3


def test_export_writes_the_votes_file(served, tmp_path):
    store, alice = served
    _vote(client(store, "bob"), "b-text", "B", "two is kinder")
    _vote(alice, "b-text", "tie")
    _vote(alice, "b-img", "A")
    out = tmp_path / "votes.jsonl"
    result = CliRunner().invoke(app, ["arena", "export", "--db", str(tmp_path / "votes.sqlite"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    battles = read_battles(out)
    assert [b.id for b in battles] == ["b-img", "b-frames", "b-text"]
    assert [(v.annotator, v.label, v.critique) for v in battles[2].votes] == [
        ("bob", "B", "two is kinder"),
        ("alice", "tie", ""),
    ]
    assert json.loads(out.read_text().splitlines()[0])["votes"][0]["annotator"] == "alice"
    missing = CliRunner().invoke(app, ["arena", "export", "--db", str(tmp_path / "none.sqlite"), "--out", str(out)])
    assert missing.exit_code == 2 and "vote database not found" in missing.output
    assert not (tmp_path / "none.sqlite").exists()
