"""``mmsoc arena rate`` end to end on votes of three annotators: the ratings.json schema, majority labels
feeding the ratings, agreement against chance, bias checks, and the written report."""

from __future__ import annotations

import base64
import json
import re
from collections import Counter

import numpy as np
import pytest
from arena_data import simulate
from typer.testing import CliRunner

from mmsoc.arena import ratings
from mmsoc.arena.records import LABELS, Battle, Vote, write_battles
from mmsoc.cli import app

TRUE = {"strong": 1150.0, "middle": 1000.0, "weak": 850.0}


@pytest.fixture(scope="module")
def votes(tmp_path_factory):
    """300 battles, three annotators each: mostly unanimous, some 2-1 splits, some all different. The
    winner's response is longer in battles whose index is even."""
    rng = np.random.default_rng(3)
    battles, expected = [], []
    for k, (a, b, label) in enumerate(simulate(TRUE, n=300, seed=11)):
        kind = rng.random()
        others = [x for x in LABELS if x != label]
        if kind < 0.7:
            labels = [label] * 3
        elif kind < 0.9:
            labels = [label, others[k % 3], label]
        else:
            labels = [label, others[0], others[1]]
        long, short = "word " * 12, "word " * 5
        ra, rb = (long, short) if (label == "A") == (k % 2 == 0) else (short, long)
        time = 1_700_000_000.0 + (300 - k) * 10  # later lines voted earlier: online Elo runs backwards
        votes = tuple(Vote(f"p{j}", x, f"critique {j}", time + j) for j, x in enumerate(labels))
        battles.append(Battle(f"b{k:03d}", f"i{k}", a, b, ra.strip(), rb.strip(), votes=votes))
        expected.append((a, b, label) if len(set(labels)) < 3 else None)
    path = tmp_path_factory.mktemp("votes") / "votes.jsonl"
    write_battles(path, battles)
    return path, battles, expected


def _rate(votes_path, out, *extra):
    result = CliRunner().invoke(
        app, ["arena", "rate", "--votes", str(votes_path), "--out", str(out), "--bootstrap", "40", *extra]
    )
    assert result.exit_code == 0, result.output
    return json.loads((out / "ratings.json").read_text())


def test_ratings_json_follows_the_contract_and_the_majority_labels(votes, tmp_path):
    path, battles, expected = votes
    result = _rate(path, tmp_path / "r")
    assert set(result) == {"method", "models", "elo", "agreement", "dropped"} and result["method"] == "bt"
    assert all(set(m) == {"model", "rating", "lower", "upper", "rank", "battles"} for m in result["models"])
    kept = [e for e in expected if e is not None]
    assert result["dropped"] == len(expected) - len(kept)
    m = ratings.Matchups.of(kept)
    bt = dict(zip(m.models, ratings.bradley_terry(m)))
    assert [e["model"] for e in result["models"]] == ["strong", "middle", "weak"]
    for entry in result["models"]:
        assert entry["rating"] == pytest.approx(bt[entry["model"]], abs=1e-9)
        assert entry["lower"] < entry["rating"] < entry["upper"]
        assert entry["battles"] == sum(entry["model"] in (a, b) for a, b, _ in kept)
        assert entry["rank"] == 1 + sum(o["lower"] > entry["upper"] for o in result["models"] if o is not entry)
    elo = ratings.Matchups.of(kept[::-1])  # first votes were cast in reverse file order
    assert result["elo"] == pytest.approx(dict(zip(elo.models, ratings.online_elo(elo))), abs=1e-9)
    agreement = result["agreement"]["annotators"]
    assert agreement["full_agreement"]["chance"] == pytest.approx(0.0625)
    assert agreement["full_disagreement"]["chance"] == pytest.approx(0.375)
    same = sum(len({v.label for v in b.votes}) == 1 for b in battles) / len(battles)
    assert agreement["full_agreement"]["share"] == pytest.approx(same)
    assert agreement["full_agreement"]["verdict"] == "above chance"
    assert agreement["full_disagreement"]["verdict"] == "below chance"


def test_bias_checks_and_matrices(votes, tmp_path):
    path, battles, expected = votes
    _rate(path, tmp_path / "r")
    extra = json.loads((tmp_path / "r/analysis.json").read_text())
    decisive = [k for k, e in enumerate(expected) if e is not None and e[2] in ("A", "B")]
    length = extra["bias"]["length"]
    assert length["decisive_battles"] == len(decisive) and length["equal_length"] == 0
    longer = sum(k % 2 == 0 for k in decisive) / len(decisive)
    assert length["winner_longer_share"] == pytest.approx(longer)
    assert length["mean_difference_words"] == pytest.approx(7 * longer - 7 * (1 - longer))
    every = Counter(v.label for b in battles for v in b.votes)
    position = extra["bias"]["position"]
    assert position["shares"] == pytest.approx({x: every[x] / (3 * len(battles)) for x in LABELS})
    assert position["b_share_of_a_or_b"] == pytest.approx(every["B"] / (every["A"] + every["B"]))
    names = extra["models"]
    kept = [e for e in expected if e is not None]
    s, w = names.index("strong"), names.index("weak")
    pair = [e for e in kept if {e[0], e[1]} == {"strong", "weak"}]
    wins = sum((e[2] == "A") == (e[0] == "strong") for e in pair if e[2] in ("A", "B"))
    decided = sum(e[2] in ("A", "B") for e in pair)
    assert extra["win_rate"][s][w] == pytest.approx(wins / decided)
    assert extra["battle_counts"][s][w] == extra["battle_counts"][w][s] == len(pair)
    assert extra["warnings"] == []
    assert extra["battles"] == {
        "in_file": 300,
        "rated": len(kept),
        "too_few_votes": 0,
        "all_disagree": 300 - len(kept),
        "no_majority": 0,
    }


def test_report_is_self_contained_says_fastchat_and_is_deterministic(votes, tmp_path):
    path, _, _ = votes
    _rate(path, tmp_path / "one")
    _rate(path, tmp_path / "two")
    for name in ("ratings.json", "analysis.json", "leaderboard.md", "report.html"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name
    page = (tmp_path / "one/report.html").read_text()
    assert "<title>Arena ratings</title>" in page and "<script" not in page
    assert not re.search(r"""(src|href)=["'](?!data:)""", page)
    png = re.search(r'src="data:image/png;base64,([^"]+)"', page)
    assert png and base64.b64decode(png.group(1)).startswith(b"\x89PNG")
    board = (tmp_path / "one/leaderboard.md").read_text()
    for text in (page, board):
        assert "FastChat" in text and "leaves the K-factor, the treatment of ties and the intervals unstated" in text
    assert "| 1 | strong |" in board
    other = _rate(path, tmp_path / "seed", "--seed", "1")
    first = json.loads((tmp_path / "one/ratings.json").read_text())
    assert [m["rating"] for m in other["models"]] == [m["rating"] for m in first["models"]]
    assert [m["lower"] for m in other["models"]] != [m["lower"] for m in first["models"]]


def test_too_few_annotators_is_one_clear_error(votes, tmp_path):
    _path, battles, _ = votes
    single = tmp_path / "single.jsonl"
    write_battles(single, [b.with_votes(b.votes[:1]) for b in battles])
    result = CliRunner().invoke(app, ["arena", "rate", "--votes", str(single), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "pass --min-annotators 1" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "r").exists()
    rated = _rate(single, tmp_path / "r1", "--min-annotators", "1")
    assert rated["dropped"] == 0 and rated["agreement"]["annotators"]["battles"] == 0


def test_a_model_that_never_loses_is_flagged(tmp_path):
    battles = [
        Battle(f"b{k}", f"i{k}", "x", "y", "long answer", "short", votes=(Vote("p", "A", "", float(k)),))
        for k in range(4)
    ]
    write_battles(tmp_path / "votes.jsonl", battles)
    result = CliRunner().invoke(
        app,
        [
            "arena",
            "rate",
            "--votes",
            str(tmp_path / "votes.jsonl"),
            "--out",
            str(tmp_path / "r"),
            "--min-annotators",
            "1",
            "--bootstrap",
            "10",
        ],
    )
    assert result.exit_code == 0 and "warning: The Bradley-Terry ratings have no finite" in result.output
    extra = json.loads((tmp_path / "r/analysis.json").read_text())
    assert len(extra["warnings"]) == 1
    assert "Warning: The Bradley-Terry ratings have no finite" in (tmp_path / "r/leaderboard.md").read_text()
