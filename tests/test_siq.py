import json
import subprocess
import sys

import pytest

from desiq.siq import a2_a4_from_answers, read_siq2, siq2_row, to_a2, write_siq2
from mmsoc.core.io import InputError
from siq_data import REAL_SIQ2, needs_real_data

ROW = {"qid": "vid1_q0_0", "q": "How does he feel?", "vid_name": "vid1", "ts": "0.00-60.0",
       "ans_corr": "He is calm.", "answer_idx": 2, "idx_types": ["rewrite", "matched", "corr", "matched"],
       "a0": "He is angry.", "a1": "He sings.", "a2": "He is calm.", "a3": "He leaves."}


def write_rows(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@needs_real_data
def test_real_file_round_trips_byte_for_byte(tmp_path):
    items = read_siq2(REAL_SIQ2)
    assert len(items) == 6159
    assert len({i.video for i in items}) == 987
    assert len({i.qid for i in items}) == 6136  # qids repeat: items are never keyed by qid alone
    write_siq2(tmp_path / "out.jsonl", items)
    assert (tmp_path / "out.jsonl").read_bytes() == REAL_SIQ2.read_bytes()


def test_unlabelled_test_rows_are_accepted_and_written_back(tmp_path):
    row = {k: v for k, v in ROW.items() if k not in ("ans_corr", "answer_idx", "idx_types")}
    items = read_siq2(write_rows(tmp_path / "qa_test.json", [row]))
    assert items[0].answer_idx is None and not items[0].labelled
    assert siq2_row(items[0]) == row


@pytest.mark.parametrize("change, line, field", [
    ({"ans_corr": "He is angry."}, 2, "ans_corr"),
    ({"idx_types": ["corr", "matched", "corr", "matched"]}, 2, "idx_types"),
    ({"idx_types": ["rewrite", "matched", "corr"]}, 2, "idx_types"),
    ({"idx_types": ["rewrite", "matched", "correct", "matched"]}, 2, "idx_types"),
    ({"answer_idx": 7}, 2, "answer_idx"),
    ({"answer_idx": "2"}, 2, "answer_idx"),
    ({"q": None}, 2, "q"),
])
def test_malformed_rows_name_file_line_and_field(tmp_path, change, line, field):
    path = write_rows(tmp_path / "qa.json", [ROW, {**ROW, **change}])
    with pytest.raises(InputError) as err:
        read_siq2(path)
    assert (err.value.line, err.value.field) == (line, field)
    assert str(path) in str(err.value) and f"line {line}" in str(err.value)


def test_missing_field_and_bad_json(tmp_path):
    missing = {k: v for k, v in ROW.items() if k != "vid_name"}
    with pytest.raises(InputError, match=r"line 1: field 'vid_name': missing"):
        read_siq2(write_rows(tmp_path / "a.json", [missing]))
    with pytest.raises(InputError, match=r"line 2: invalid JSON"):
        read_siq2(write_rows(tmp_path / "b.json", [ROW, '{"qid": "x", ']))


def test_cli_reports_bad_input_without_traceback(tmp_path):
    path = write_rows(tmp_path / "qa.json", [ROW, {**ROW, "ans_corr": "nope"}])
    run = subprocess.run([sys.executable, "-m", "desiq", "build", "--data", str(path), "--variant", "d",
                          "--out", str(tmp_path / "out.json")], capture_output=True, text=True)
    assert run.returncode == 2
    assert "line 2" in run.stderr and "ans_corr" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "out.json").exists()


def test_a2_pairs_each_correct_with_each_incorrect():
    item = read_siq2_item()
    pairs = to_a2([item, item])
    assert len(pairs) == 6
    assert all(p.answer == "He is calm." and len(p.options) == 2 for p in pairs)
    assert {p.options[1 - p.answer_idx] for p in pairs[:3]} == {"He is angry.", "He sings.", "He leaves."}
    assert sorted(p.answer_idx for p in pairs) == [0, 0, 0, 1, 1, 1]  # slot alternates: no position bias


def read_siq2_item():
    from desiq.siq import parse_siq2_row

    return parse_siq2_row(ROW)


def test_social_iq_1_construction_gives_12_a2_and_4_a4_items():
    correct = [f"right {i}" for i in range(4)]
    wrong = [f"wrong {i}" for i in range(3)]
    a2, a4 = a2_a4_from_answers("q1", "v1", "Why?", correct, wrong)
    assert len(a2) == 12 and len(a4) == 4
    assert {(p.answer, p.options[1 - p.answer_idx]) for p in a2} == {(c, w) for c in correct for w in wrong}
    for item, c in zip(a4, correct):
        assert item.answer == c and sorted(item.options) == sorted([c, *wrong])
    assert len({item.answer_idx for item in a4}) == 4  # the correct slot rotates
