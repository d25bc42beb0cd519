"""Hostile and careless input: paths out of the data root, rows that would be read shifted, Social-IQ rows
that lose data, bytes that are not UTF-8, unlabelled data given to a build (issue items 2, 9, 10, 12, 14)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from .harness import jsonl, run

SIQ_ROW = {
    "qid": "v1_q0_0",
    "q": "Why does she smile?",
    "vid_name": "v1",
    "ts": "0.00-10.00",
    "a0": "She is happy.",
    "a1": "She is lost.",
    "a2": "She is cold.",
    "a3": "She is late.",
    "answer_idx": 0,
    "ans_corr": "She is happy.",
    "idx_types": ["corr", "rewrite", "matched", "matched"],
}


def _siq_file(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _rows(n: int) -> list[dict]:
    return [
        {
            **SIQ_ROW,
            "qid": f"v{k}_q0_0",
            "vid_name": f"v{k}",
            "q": f"Why does person {k} smile?",
            "a0": f"Because of {k}.",
            "ans_corr": f"Because of {k}.",
        }
        for k in range(n)
    ]


# --- item 2: data-derived paths stay inside their root -------------------------------------------------


@pytest.fixture(scope="module")
def mmsoc_data(tmp_path_factory) -> Path:
    from mmsoc.tasks.data.sample import write_sample

    return write_sample(tmp_path_factory.mktemp("mmsoc") / "data")


def test_manifest_paths_out_of_the_data_root_are_skipped_and_named(mmsoc_data, scratch, cache, tmp_path):
    data = shutil.copytree(mmsoc_data, tmp_path / "data", symlinks=True)
    secret = tmp_path / "secret.png"
    Image.new("RGB", (8, 8), "red").save(secret)
    manifest = data / "hateful_memes" / "test.jsonl"
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    (data / "hateful_memes" / "img" / "link.png").symlink_to(secret)
    hostile = {rows[0]["id"]: "../../secret.png", rows[1]["id"]: str(secret), rows[2]["id"]: "img/link.png"}
    for row in rows[:3]:
        row["img"] = hostile[row["id"]]
    manifest.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "run"
    result = run(
        "mmsoc",
        "eval",
        "--task",
        "hate",
        "--data",
        str(data),
        "--model",
        "random",
        "--greedy",
        "--limit",
        "6",
        "--no-progress",
        "--out",
        str(out),
        cwd=scratch,
        cache=cache,
    )
    assert result.returncode == 0, result.stderr
    assert not hostile.keys() & {row["id"] for row in jsonl(out / "predictions.jsonl")}
    problems = {p["id"]: p for p in jsonl(out / "problems.jsonl")}
    for item_id, name in hostile.items():
        assert item_id in problems and "skipped" in problems[item_id]["problem"], problems
        assert repr(name) in problems[item_id]["problem"] and str(manifest) in problems[item_id]["problem"]


def test_a_vid_name_out_of_the_media_folder_is_masked_and_named(small_siq, tiny_t5, scratch, cache, tmp_path):
    """A vid_name with ``..`` and a transcript symlinked out of the folder: neither file is read."""
    data = tmp_path / "data"
    (data / "qa").mkdir(parents=True)
    (data / "transcript").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    rows = {split: jsonl(small_siq / "qa" / f"qa_{split}.json") for split in ("train", "val")}
    videos = sorted({r["vid_name"] for r in rows["train"] + rows["val"]})
    for vid in videos:
        shutil.copy(small_siq / "transcript" / f"{vid}.vtt", data / "transcript" / f"{vid}.vtt")
    escaped, linked = videos[0], videos[1]
    shutil.move(data / "transcript" / f"{escaped}.vtt", outside / "escaped.vtt")
    shutil.move(data / "transcript" / f"{linked}.vtt", outside / "linked.vtt")
    (data / "transcript" / f"{linked}.vtt").symlink_to(outside / "linked.vtt")
    for split, split_rows in rows.items():
        for row in split_rows:
            row["vid_name"] = "../../outside/escaped" if row["vid_name"] == escaped else row["vid_name"]
        _siq_file(data / "qa" / f"qa_{split}.json", split_rows)
    hostile = sum(r["vid_name"] in ("../../outside/escaped", linked) for rs in rows.values() for r in rs)
    model = tmp_path / "model"
    result = run(
        "desiq",
        "fusion",
        "train",
        "--architecture",
        "ours",
        "--data",
        str(data),
        "--inputs",
        "q+a+t",
        "--backbone",
        str(tiny_t5),
        "--epochs",
        "1",
        "--out",
        str(model),
        "--cache-dir",
        str(tmp_path / "features"),
        cwd=scratch,
        cache=cache,
    )
    assert result.returncode == 0, result.stderr
    metrics = json.loads((model / "metrics.json").read_text())
    assert metrics["missing"]["transcript"] == hostile > 0
    assert "transcript masked for 2 video(s)" in result.stderr and "leads outside" in result.stderr


# --- item 9: a CSV row with more values than columns ------------------------------------------------------


def test_a_prediction_row_with_an_extra_column_is_skipped_and_named(scratch, cache, tmp_path):
    """x3's answer 'hateful,not_hateful' was written unquoted: read by position, x3 would be scored as
    answering 'hateful' against the reference 'not_hateful' (its own answer's tail)."""
    path = tmp_path / "preds.csv"
    path.write_text(
        "id,prediction,reference\nx1,hateful,hateful\nx2,not_hateful,hateful\n"
        "x3,hateful,not_hateful,not_hateful\nx4,not_hateful,not_hateful\n"
    )
    result = run(
        "mmsoc",
        "score",
        "--task",
        "hate",
        "--predictions",
        str(path),
        "--out",
        str(tmp_path / "score"),
        "--fast-metrics",
        "--bootstrap",
        "0",
        cwd=scratch,
        cache=cache,
    )
    assert result.returncode == 0, result.stderr
    assert f"skipped {path}, line 4: 4 values for 3 columns" in result.stderr
    info = json.loads((tmp_path / "score" / "score_info.json").read_text())
    assert info["n"] == 3 and json.loads((tmp_path / "score" / "metrics.json").read_text())["n"] == 3


# --- item 10: Social-IQ rows that would lose data -----------------------------------------------------------


def test_repeated_qids_are_kept_and_named(scratch, cache, tmp_path):
    rows = _rows(6)
    rows[3] = {**rows[3], "qid": rows[1]["qid"]}  # another question under the same qid (as in the release)
    rows.append(dict(rows[4]))  # the same (qid, question) again
    source = _siq_file(tmp_path / "qa.json", rows)
    out = tmp_path / "out.json"
    result = run(
        "desiq", "perturb", "--data", str(source), "--condition", "NCAQ", "--out", str(out), cwd=scratch, cache=cache
    )
    assert result.returncode == 0, result.stderr
    assert len(jsonl(out)) == 7
    assert (
        f"{source}: 1 qid(s) used on several lines with different questions (first: 'v1_q0_0' on lines 2, 4)"
        in result.stderr
    )
    assert (
        f"{source}: 1 qid(s) used on several lines with the same question (first: 'v4_q0_0' on lines 5, 7)"
        in result.stderr
    )


@pytest.mark.parametrize(
    "change, where",
    [
        ({"a5": "A sixth option.", "a4": None}, "line 2: field 'a4': missing while a5 is present"),
        ({"ts": [0.0, 10.0]}, "line 2: field 'ts': expected str, got list"),
    ],
    ids=["a5-without-a4", "ts-list"],
)
def test_siq_rows_that_would_lose_data_are_refused_and_named(change, where, scratch, cache, tmp_path):
    rows = _rows(3)
    rows[1] = {k: v for k, v in {**rows[1], **change}.items() if v is not None}
    source = _siq_file(tmp_path / "qa.json", rows)
    out = tmp_path / "out.json"
    result = run(
        "desiq", "perturb", "--data", str(source), "--condition", "RIWI", "--out", str(out), cwd=scratch, cache=cache
    )
    assert result.error_line().startswith(f"error: {source}, {where}")
    assert not out.exists()


# --- item 12: bytes that are not UTF-8 are named by file and line ------------------------------------------


def test_non_utf8_prediction_csv_names_file_and_line(scratch, cache, tmp_path):
    path = tmp_path / "preds.csv"
    path.write_bytes(b"id,prediction,reference\nx1,hateful,hateful\nx2,caf\xe9,hateful\n")
    result = run(
        "mmsoc",
        "score",
        "--task",
        "hate",
        "--predictions",
        str(path),
        "--out",
        str(tmp_path / "score"),
        "--fast-metrics",
        cwd=scratch,
        cache=cache,
    )
    assert result.error_line().startswith(f"error: {path}, line 3: not UTF-8 text (byte 7 of the line is 0xe9)")


def test_non_utf8_label_csv_names_file_and_line(mmsoc_data, scratch, cache, tmp_path):
    data = shutil.copytree(mmsoc_data, tmp_path / "data", symlinks=True)
    labels = data / "fakenewsnet" / "politi_test.csv"
    lines = labels.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b"e", b"\xe9", 1)
    labels.write_bytes(b"".join(lines))
    result = run(
        "mmsoc",
        "eval",
        "--task",
        "misinfo_politifact",
        "--data",
        str(data),
        "--model",
        "random",
        "--greedy",
        "--limit",
        "2",
        "--no-progress",
        "--out",
        str(tmp_path / "run"),
        cwd=scratch,
        cache=cache,
    )
    assert result.error_line().startswith(f"error: {labels}, line 3: not UTF-8 text")


def test_non_utf8_social_iq_names_file_and_line(scratch, cache, tmp_path):
    path = tmp_path / "qa.json"
    good = json.dumps(SIQ_ROW).encode()
    path.write_bytes(good + b"\n" + good.replace(b"Why does", b"Caf\xe9 does") + b"\n")
    result = run(
        "desiq",
        "perturb",
        "--data",
        str(path),
        "--condition",
        "NCAQ",
        "--out",
        str(tmp_path / "out.json"),
        cwd=scratch,
        cache=cache,
    )
    assert result.error_line().startswith(f"error: {path}, line 2: not UTF-8 text")
    assert not (tmp_path / "out.json").exists()


# --- item 14: a build needs labels ---------------------------------------------------------------------------


def test_build_on_unlabelled_questions_says_a_build_needs_labels(scratch, cache, tmp_path):
    rows = [{k: v for k, v in row.items() if k not in ("answer_idx", "ans_corr", "idx_types")} for row in _rows(4)]
    source = _siq_file(tmp_path / "qa_test.json", rows)
    result = run(
        "desiq",
        "build",
        "--data",
        str(source),
        "--variant",
        "d",
        "--out",
        str(tmp_path / "b.json"),
        cwd=scratch,
        cache=cache,
    )
    line = result.error_line()
    assert line.startswith(f"error: {source}: building a DeSIQ split needs labelled questions")
    assert "4 of 4 have no label" in line and "RIWA" not in line
