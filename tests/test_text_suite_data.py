"""The text suites' loaders on their hub layouts (SocKET text/label files, SuperTweetEval JSON Lines), the
embedded samples, and bad input named by file, line and field."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.core.io import InputError
from mmsoc.tasks import parse_task_list
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.data.sample import write_sample
from mmsoc.tasks.registry import get_task, task_ids


def _socket(tmp_path, task: str, texts: list[str], labels: list[str], split: str = "test", label_list=None):
    folder = tmp_path / "SOCKET_DATA" / task
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{split}_text.txt").write_text("".join(f"{t}\n" for t in texts), encoding="utf-8")
    (folder / f"{split}_labels.txt").write_text("".join(f"{x}\n" for x in labels), encoding="utf-8")
    if label_list is not None:
        (folder / "label_list.txt").write_text("\n".join(label_list), encoding="utf-8")
    return tmp_path


def test_socket_classes_by_name_or_number_and_splits(tmp_path):
    root = _socket(
        tmp_path,
        "sarc",
        ["  first  ", "second", "third"],
        ["sarcastic", "1", " literal "],
        label_list=["sarcastic", "literal"],
    )
    _socket(tmp_path, "sarc", ["v"], ["0"], split="val")
    loaded = load_examples("socket/sarc", str(root), "test")
    assert [(e.id, e.text, e.label) for e in loaded.examples] == [
        ("0", "first", "sarcastic"),
        ("1", "second", "literal"),
        ("2", "third", "literal"),
    ]
    assert [e.label for e in load_examples("socket/sarc", str(root), "dev").examples] == ["sarcastic"]
    assert [e.label for e in load_examples("socket/sarc", str(root), "validation").examples] == ["sarcastic"]


def test_socket_pairs_regression_and_spans(tmp_path):
    _socket(tmp_path, "humor-pairs", ["a one [SEP]  b two", "no separator"], ["0", "1"])
    _socket(tmp_path, "emobank#valence", ["x", "y"], ["3.2", "nan"])
    _socket(
        tmp_path,
        "toxic-span",
        ["you fool", "fine", "a b c", "x"],
        ["{'toxic': ['fool']}", "{'toxic': []}", "[{'toxic': 'a b'}]", "__import__('os')"],
    )
    pairs = load_examples("socket/humor-pairs", str(tmp_path))
    assert pairs.examples[0].meta["text_a"] == "a one " and pairs.examples[0].meta["text_b"] == "  b two"
    assert len(pairs.examples) == 1 and "[SEP]" in str(pairs.problems[0]) and pairs.problems[0].field == "text"
    valence = load_examples("socket/emobank#valence", str(tmp_path))
    assert [e.label for e in valence.examples] == [3.2] and "NaN" in str(valence.problems[0])
    with pytest.raises(InputError, match=r"test_labels.txt, line 4: field 'label': not a Python literal"):
        load_examples("socket/toxic-span", str(tmp_path))
    (tmp_path / "SOCKET_DATA/toxic-span/test_labels.txt").write_text(
        "{'toxic': ['fool']}\n{'toxic': []}\n[{'toxic': 'a b'}]\n['x']\n"
    )
    spans = load_examples("socket/toxic-span", str(tmp_path)).examples
    assert [e.label["spans"] for e in spans] == [["fool"], [], ["a b"], ["x"]]
    assert spans[0].label["text"] == "you fool"


def test_socket_bad_files_are_named(tmp_path):
    _socket(tmp_path, "sarc", ["a", "b"], ["sarcastic"])
    with pytest.raises(InputError, match="1 labels for 2 texts"):
        load_examples("socket/sarc", str(tmp_path))
    _socket(tmp_path, "sarc", ["a"], ["funny"])
    with pytest.raises(InputError, match=r"line 1: field 'label': 'funny' is neither a class"):
        load_examples("socket/sarc", str(tmp_path))
    _socket(tmp_path, "sarc", ["a"], ["0"], label_list=["literal", "sarcastic"])
    with pytest.raises(InputError, match=r"label_list\.txt: names"):
        load_examples("socket/sarc", str(tmp_path))
    with pytest.raises(InputError, match="file not found"):
        load_examples("socket/hypo-l", str(tmp_path))


def _ste(tmp_path, task: str, rows: list[dict], map_lines: list[str] | None = None):
    folder = tmp_path / "data" / task
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    if map_lines is not None:
        (folder / "map.txt").write_text("\n".join(map_lines), encoding="utf-8")


def test_supertweeteval_gold_fields(tmp_path):
    _ste(tmp_path, "tweet_topic", [{"text": "t", "gold_label_list": [0] * 16 + [1, 0, 1]}])
    _ste(tmp_path, "tweet_emoji", [{"text": "t", "gold_label": 1}], ["0,😀", "1,🎉"])
    _ste(tmp_path, "tempo_wic", [{"text_1": "a", "text_2": "b", "target": "w", "gold_label_binary": 1}])
    _ste(tmp_path, "tweet_qa", [{"text": "tweet", "context": "who?", "gold_label_str": "me"}])
    _ste(tmp_path, "tweet_ner7", [{"text": "a b", "text_tokenized": ["a", "b"], "gold_label_sequence": [5, 12]}])
    assert load_examples("supertweeteval/tweet_topic", str(tmp_path)).examples[0].label == [
        "sports",
        "youth_&_student_life",
    ]
    assert load_examples("supertweeteval/tweet_emoji", str(tmp_path)).examples[0].label == "🎉"
    wic = load_examples("supertweeteval/tempo_wic", str(tmp_path)).examples[0]
    assert wic.label == "yes" and wic.meta["target"] == "w" and wic.meta["text_2"] == "b"
    assert load_examples("supertweeteval/tweet_qa", str(tmp_path)).examples[0].meta["context"] == "who?"
    assert load_examples("supertweeteval/tweet_ner7", str(tmp_path)).examples[0].label == {
        "tokens": ["a", "b"],
        "tags": ["B-person", "I-person"],
    }


def test_supertweeteval_emoji_needs_its_map_and_bad_rows_are_named(tmp_path):
    _ste(tmp_path, "tweet_emoji", [{"text": "t", "gold_label": 1}])
    with pytest.raises(InputError, match=r"map\.txt: tweet_emoji takes its label names from this file"):
        load_examples("supertweeteval/tweet_emoji", str(tmp_path))
    _ste(tmp_path, "tweet_hate", [{"text": "t", "gold_label": 3}, {"text": "u", "gold_label": 9}])
    with pytest.raises(InputError, match=r"test.jsonl, line 2: field 'gold_label': bad gold value"):
        load_examples("supertweeteval/tweet_hate", str(tmp_path))


@pytest.mark.parametrize("suite", ["socket", "supertweeteval"])
def test_samples_cover_every_task_and_are_deterministic(suite, tmp_path):
    write_sample(tmp_path / "a", suite=suite)
    write_sample(tmp_path / "b", suite=suite)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files and all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
    for task in task_ids(suite):
        loaded = load_examples(task, str(tmp_path / "a"), "test")
        assert len(loaded.examples) >= 4 and not loaded.problems, task
        assert load_examples(task, str(tmp_path / "a"), "train").examples, task
    kinds = {get_task(task).kind for task in task_ids(suite)}
    assert len(kinds) == (4 if suite == "socket" else 9)


def test_task_names_are_resolved_in_their_suite():
    assert parse_task_list("sarc, humor-pairs", "socket") == ("socket/sarc", "socket/humor-pairs")
    assert parse_task_list("tweet_emoji", "supertweeteval") == ("supertweeteval/tweet_emoji",)
    assert parse_task_list("tweet_emoji", "socket") == ("socket/tweet_emoji",)
    assert len(parse_task_list("all", "socket")) == 58 and len(parse_task_list("all", "supertweeteval")) == 12
    with pytest.raises(KeyError, match="unknown task 'hate' in suite 'socket'"):
        parse_task_list("hate", "socket")
    with pytest.raises(KeyError, match="not in suite 'mmsoc'"):
        parse_task_list("socket/sarc", "mmsoc")


def test_tasks_listing_per_suite():
    listing = CliRunner().invoke(app, ["tasks", "--suite", "socket"])
    assert listing.exit_code == 0 and "socket tasks (58)" in listing.output
    assert "questionintimacy" in listing.output and "Trustworthiness" in listing.output and "SPAN" in listing.output
    ste = CliRunner().invoke(app, ["tasks", "--suite", "supertweeteval"])
    assert ste.exit_code == 0 and "combined_f1_script" in ste.output and "mae_m_score" in ste.output
    bad = CliRunner().invoke(app, ["tasks", "--suite", "glue"])
    assert bad.exit_code == 2 and "unknown suite 'glue'" in bad.output
