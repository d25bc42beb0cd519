import json
import subprocess
import sys

import pytest
from siq_data import REAL_SIQ2, needs_real_data

from desiq.formats import MCQA_FORMATS, read_mcqa, write_mcqa
from desiq.formats.siq2 import parse_siq2_row, read_siq2, siq2_row, write_siq2
from desiq.records import to_a2
from mmsoc.core.io import InputError

ROW = {
    "qid": "vid1_q0_0",
    "q": "How does he feel?",
    "vid_name": "vid1",
    "ts": "0.00-60.0",
    "ans_corr": "He is calm.",
    "answer_idx": 2,
    "idx_types": ["rewrite", "matched", "corr", "matched"],
    "a0": "He is angry.",
    "a1": "He sings.",
    "a2": "He is calm.",
    "a3": "He leaves.",
}
V1_ROW = {
    "qid": "q1",
    "q": "Why?",
    "vid_name": "v1",
    "correct": [f"right {i}" for i in range(4)],
    "incorrect": [f"wrong {i}" for i in range(3)],
}


def write_rows(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@needs_real_data
def test_real_file_round_trips_byte_for_byte(tmp_path):
    items = read_mcqa(REAL_SIQ2)
    assert len(items) == 6159
    assert len({i.video for i in items}) == 987
    assert len({i.qid for i in items}) == 6136  # qids repeat ...
    assert len({i.id for i in items}) == 6159  # ... item ids do not
    write_siq2(tmp_path / "out.jsonl", items)
    assert (tmp_path / "out.jsonl").read_bytes() == REAL_SIQ2.read_bytes()


def test_repeated_qids_get_distinct_ids(tmp_path):
    items = read_siq2(write_rows(tmp_path / "qa.json", [ROW, ROW]))
    assert [i.qid for i in items] == ["vid1_q0_0"] * 2
    assert [i.id for i in items] == ["vid1_q0_0@0", "vid1_q0_0@1"]


def test_unlabelled_test_rows_are_accepted_and_written_back(tmp_path):
    row = {k: v for k, v in ROW.items() if k not in ("ans_corr", "answer_idx", "idx_types")}
    items = read_siq2(write_rows(tmp_path / "qa_test.json", [row]))
    assert items[0].answer_idx is None and not items[0].labelled
    assert siq2_row(items[0]) == row


@pytest.mark.parametrize(
    "change, line, field",
    [
        ({"ans_corr": "He is angry."}, 2, "ans_corr"),
        ({"idx_types": ["corr", "matched", "corr", "matched"]}, 2, "idx_types"),
        ({"idx_types": ["rewrite", "matched", "corr"]}, 2, "idx_types"),
        ({"idx_types": ["rewrite", "matched", "correct", "matched"]}, 2, "idx_types"),
        ({"idx_types": ["rewrite", "rawa", "corr", "matched"]}, 2, "idx_types"),  # a substitute counts as correct
        ({"answer_idx": 7}, 2, "answer_idx"),
        ({"answer_idx": "2"}, 2, "answer_idx"),
        ({"q": None}, 2, "q"),
    ],
)
def test_malformed_rows_name_file_line_and_field(tmp_path, change, line, field):
    path = write_rows(tmp_path / "qa.json", [ROW, {**ROW, **change}])
    with pytest.raises(InputError) as err:
        read_mcqa(path)
    assert (err.value.line, err.value.field) == (line, field)
    assert str(path) in str(err.value) and f"line {line}" in str(err.value)


def test_every_perturbation_and_split_marker_reads_back(tmp_path):
    cases = ((["riwa", "riwi", "corr", "desiq_s"], 2), (["matched", "rawi", "desiq_d", "rewrite"], 1))
    for markers, answer_idx in cases:
        row = {**ROW, "idx_types": markers, "answer_idx": answer_idx, "ans_corr": ROW[f"a{answer_idx}"]}
        assert read_mcqa(write_rows(tmp_path / "qa.json", [row]))[0].option_markers == tuple(markers)


def test_missing_field_and_bad_json(tmp_path):
    missing = {k: v for k, v in ROW.items() if k != "vid_name"}
    with pytest.raises(InputError, match=r"line 1: field 'vid_name': missing"):
        read_mcqa(write_rows(tmp_path / "a.json", [missing]))
    with pytest.raises(InputError, match=r"line 2: invalid JSON"):
        read_mcqa(write_rows(tmp_path / "b.json", [ROW, '{"qid": "x", ']))
    with pytest.raises(InputError, match=r"line 1: invalid JSON"):
        read_mcqa(write_rows(tmp_path / "c.json", ['{"qid": ']))
    with pytest.raises(InputError, match=r"no questions in file"):
        read_mcqa(write_rows(tmp_path / "d.json", [""]))


def test_format_is_detected_or_named(tmp_path):
    assert {"siq1", "siq2"} <= set(MCQA_FORMATS)
    v2, v1 = write_rows(tmp_path / "v2.jsonl", [ROW]), write_rows(tmp_path / "v1.jsonl", [V1_ROW])
    assert read_mcqa(v2) == read_mcqa(v2, "siq2") and read_mcqa(v1) == read_mcqa(v1, "siq1")
    with pytest.raises(InputError, match=r"line 1: fields \['question'\] match no known MCQA format"):
        read_mcqa(write_rows(tmp_path / "x.jsonl", [{"question": "?"}]))
    with pytest.raises(KeyError, match="unknown MCQA format 'csv'"):
        read_mcqa(v2, "csv")
    with pytest.raises(KeyError, match="read-only"):
        write_mcqa(tmp_path / "out.jsonl", read_mcqa(v1), "siq1")


def test_cli_reports_bad_input_without_traceback(tmp_path):
    path = write_rows(tmp_path / "qa.json", [ROW, {**ROW, "ans_corr": "nope"}])
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "desiq",
            "build",
            "--data",
            str(path),
            "--variant",
            "d",
            "--out",
            str(tmp_path / "out.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert "line 2" in run.stderr and "ans_corr" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "out.json").exists()


def test_a2_pairs_each_correct_with_each_incorrect():
    item = parse_siq2_row(ROW, "vid1_q0_0@0")
    pairs = to_a2([item, item])
    assert len(pairs) == 6
    assert all(p.answer == "He is calm." and len(p.options) == 2 for p in pairs)
    assert {p.options[1 - p.answer_idx] for p in pairs[:3]} == {"He is angry.", "He sings.", "He leaves."}
    assert sorted(p.answer_idx for p in pairs) == [0, 0, 0, 1, 1, 1]  # slot alternates: no position bias
    assert [p.id for p in pairs[:3]] == ["vid1_q0_0@0#0", "vid1_q0_0@0#1", "vid1_q0_0@0#3"]


def test_social_iq_1_shape_reads_as_4_a4_items_whose_a2_pairs_are_all_12(tmp_path):
    correct, wrong = V1_ROW["correct"], V1_ROW["incorrect"]
    a4 = read_mcqa(write_rows(tmp_path / "v1.jsonl", [V1_ROW, {**V1_ROW, "qid": "q2"}]))
    assert len(a4) == 8 and len({item.id for item in a4}) == 8
    for item, c in zip(a4, correct):
        assert item.answer == c and sorted(item.options) == sorted([c, *wrong])
        assert item.option_markers[item.answer_idx] == "corr" and item.option_markers.count("incorrect") == 3
    assert len({item.answer_idx for item in a4[:4]}) == 4  # the correct slot rotates
    a2 = to_a2(a4[:4])
    assert len(a2) == 12
    assert {(p.answer, p.options[1 - p.answer_idx]) for p in a2} == {(c, w) for c in correct for w in wrong}


@pytest.mark.parametrize(
    "change, field",
    [
        ({"correct": []}, "correct"),
        ({"incorrect": ["x", 3]}, "incorrect"),
        ({"correct": ["a", "a"]}, "correct"),
        ({"incorrect": ["right 1", "w"]}, "incorrect"),
        ({"q": 1}, "q"),
    ],
)
def test_malformed_social_iq_1_rows_are_named(tmp_path, change, field):
    with pytest.raises(InputError) as err:
        read_mcqa(write_rows(tmp_path / "v1.jsonl", [V1_ROW, {**V1_ROW, **change}]), "siq1")
    assert (err.value.line, err.value.field) == (2, field)


def test_perturbed_social_iq_1_items_are_written_as_social_iq_2_and_read_back(tmp_path):
    from desiq.perturbation_schemes import perturb

    rows = [
        {
            **V1_ROW,
            "qid": f"q{k}",
            "vid_name": f"v{k}",
            "correct": [f"r{k}{i}" for i in range(4)],
            "incorrect": [f"w{k}{i}" for i in range(3)],
        }
        for k in range(4)
    ]
    items = perturb(read_mcqa(write_rows(tmp_path / "v1.jsonl", rows)), "RIWA", seed=0).items
    write_mcqa(tmp_path / "out.jsonl", items)
    back = read_mcqa(tmp_path / "out.jsonl")
    assert [(b.qid, b.options, b.option_markers, b.answer_idx) for b in back] == [
        (i.qid, i.options, i.option_markers, i.answer_idx) for i in items
    ]
