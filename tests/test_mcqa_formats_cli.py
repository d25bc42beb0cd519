"""MCQA formats in and out, named or chosen: ``--format`` on reading (a file that does not look like the named
format is refused, naming the file and what the format expects), ``--out-format`` on writing (by default the
input's own format where the output's suffix fits it, else the format the suffix names; a format whose files
cannot carry the suffix is refused), the one-line notes of what was read and written, and ``--data sample``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from desiq.cli import app
from desiq.data import qa_data, resolve_data
from desiq.formats import read_note, read_source, resolve_out_format, write_like, write_mcqa, write_note
from desiq.formats.mcqa_fields import Mapping
from desiq.sample import SPLITS, sample_items
from mmsoc.core.io import InputError, UsageError

ROWS = [
    {
        "qid": "q1",
        "q": "Why does the man laugh?",
        "vid_name": "v1",
        "ts": "1-5",
        "ans_corr": "He heard a joke.",
        "answer_idx": 1,
        "idx_types": ["matched", "corr", "rewrite", "matched"],
        "a0": "He is angry.",
        "a1": "He heard a joke.",
        "a2": "He is sad.",
        "a3": "He is bored.",
    },
    {
        "qid": "q2",
        "q": "How does the woman feel?",
        "vid_name": "v1",
        "ts": "6-9",
        "ans_corr": "She is relieved.",
        "answer_idx": 0,
        "idx_types": ["corr", "matched", "matched", "rewrite"],
        "a0": "She is relieved.",
        "a1": "She is furious.",
        "a2": "She is asleep.",
        "a3": "She is lost.",
    },
    {
        "qid": "q3",
        "q": "What does the boy want?",
        "vid_name": "v2",
        "ts": "0-4",
        "ans_corr": "A turn on the swing.",
        "answer_idx": 3,
        "idx_types": ["rewrite", "matched", "matched", "corr"],
        "a0": "To go home.",
        "a1": "Nothing at all.",
        "a2": "A new car.",
        "a3": "A turn on the swing.",
    },
]
SIQ2_COLUMNS = ["qid", "q", "vid_name", "ts", "ans_corr", "answer_idx", "idx_types", "a0", "a1", "a2", "a3"]


@pytest.fixture
def siq2_file(tmp_path) -> Path:
    path = tmp_path / "qa_val.json"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    return path


@pytest.fixture
def csv_file(tmp_path) -> Path:
    path = tmp_path / "qa.csv"
    path.write_text(
        "id,question,answerA,answerB,answerC,label\n1,Who waves?,Ann,Bo,Cy,B\n2,Who sings?,Di,Ed,Flo,C\n",
        encoding="utf-8",
    )
    return path


def test_a_named_format_reads_like_auto_where_the_file_is_in_it(siq2_file, csv_file):
    assert read_source(siq2_file, format="siq2").items == read_source(siq2_file).items
    assert [item.answer for item in read_source(csv_file, format="mcqa").items] == ["Bo", "Flo"]
    assert qa_data(siq2_file, format="siq2").reading().format == "siq2"


def test_a_named_format_the_file_does_not_look_like_is_refused_naming_both(siq2_file, csv_file):
    with pytest.raises(InputError) as err:
        read_source(csv_file, format="siq2")
    assert str(err.value) == (
        f"{csv_file}: does not look like --format siq2, which expects Social-IQ 2.0 JSON Lines with q, "
        "vid_name and options a0, a1, ..."
    )
    with pytest.raises(InputError, match=r"qa_val\.json: does not look like --format siq1, which expects .*correct"):
        qa_data(siq2_file, format="siq1").reading()
    with pytest.raises(UsageError, match=r"--fields and --schema map a generic file's columns"):
        read_source(csv_file, Mapping(question="question"), format="siq2")
    with pytest.raises(KeyError, match="unknown MCQA format 'sqi2'; nearest: siq2"):
        read_source(siq2_file, format="sqi2")


@pytest.mark.parametrize(
    ("out", "expected"),
    [("x.json", "siq2"), ("x.jsonl", "siq2"), ("x.txt", "siq2"), ("x.csv", "mcqa"), ("x.TSV", "mcqa")],
)
def test_the_default_out_format_of_a_social_iq_file(siq2_file, out, expected):
    assert resolve_out_format(Path(out), None, read_source(siq2_file)) == expected


def test_the_default_out_format_of_a_generic_file_is_its_own(csv_file):
    reading = read_source(csv_file)
    assert [resolve_out_format(Path(name), "auto", reading) for name in ("x.jsonl", "x.parquet")] == ["mcqa", "mcqa"]


def test_a_named_out_format_must_fit_the_suffix_and_be_writable(siq2_file, tmp_path):
    reading = read_source(siq2_file)
    assert resolve_out_format(Path("x.csv"), "mcqa", reading) == "mcqa"
    assert resolve_out_format(Path("x.out"), "siq2", reading) == "siq2"  # a suffix no format writes fits any
    with pytest.raises(UsageError) as err:
        resolve_out_format(Path("x.csv"), "siq2", reading)
    assert str(err.value) == (
        "--out x.csv: siq2 writes Social-IQ 2.0 JSON Lines (.json, .jsonl, .ndjson), not .csv; name the file so, "
        "or pass --out-format mcqa"
    )
    with pytest.raises(UsageError, match=r"^--out .*x\.parquet: siq2 writes"):
        write_mcqa(tmp_path / "x.parquet", reading.items, "siq2", reading)  # every writer checks
    with pytest.raises(UsageError, match="--out-format siq1 is read-only: write in mcqa, siq2"):
        resolve_out_format(Path("x.jsonl"), "siq1", reading)


def test_social_iq_items_written_as_csv_keep_its_columns_and_read_back(siq2_file, tmp_path):
    reading = read_source(siq2_file)
    out = tmp_path / "x.csv"
    assert write_like(out, reading.items, reading) == "mcqa"
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == SIQ2_COLUMNS
    assert rows[0]["q"] == "Why does the man laugh?" and rows[0]["idx_types"] == json.dumps(ROWS[0]["idx_types"])
    again = read_source(out)
    assert again.format == "mcqa"
    fields = ("id", "qid", "video", "question", "options", "answer_idx", "option_markers")
    assert [[getattr(i, f) for f in fields] for i in again.items] == [
        [getattr(i, f) for f in fields] for i in reading.items
    ]


def test_the_notes_say_what_was_read_and_written(siq2_file, tmp_path):
    reading = read_source(siq2_file)
    assert read_note(reading) == f"read {siq2_file}: siq2 (Social-IQ 2.0 JSON Lines), 3 questions"
    assert write_note(tmp_path / "x.csv", "mcqa", reading) == f"wrote {tmp_path / 'x.csv'}: mcqa (CSV)"
    assert write_note(tmp_path / "x.txt", "mcqa", reading) == f"wrote {tmp_path / 'x.txt'}: mcqa (JSON Lines)"
    many = tmp_path / "many.jsonl"
    many.write_text("".join(json.dumps({**ROWS[0], "qid": f"q{k}"}) + "\n" for k in range(1234)), encoding="utf-8")
    assert read_note(read_source(many)).endswith(": siq2 (Social-IQ 2.0 JSON Lines), 1,234 questions")


def _desiq(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_desiq_perturb_into_csv_writes_csv(siq2_file, tmp_path):
    out = tmp_path / "x.csv"
    _desiq("perturb", "--data", siq2_file, "--kind", "RIWA", "--out", out)
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == SIQ2_COLUMNS and [row["qid"] for row in rows] == ["q1", "q2", "q3"]
    assert rows[0]["a1"] == "He heard a joke."  # RIWA keeps the correct option


@pytest.fixture(scope="module")
def in_sample_cache(tmp_path_factory):
    """A fresh cache and a working folder without a ``sample`` in it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MMSOC_CACHE", str(tmp_path_factory.mktemp("cache")))
        patch.chdir(tmp_path_factory.mktemp("work"))
        yield


def test_data_sample_is_the_embedded_sample_with_media(in_sample_cache):
    val = qa_data(Path("sample"))
    assert val.split == "val" and val.items() == sample_items("val")
    assert qa_data(Path("sample"), "train").items() == sample_items("train")
    videos = sorted({item.video for item in val.items()})
    assert len(videos) == SPLITS["val"]
    assert val.media_root is not None
    assert all((val.media_root / "video" / f"{vid}.mp4").is_file() for vid in videos)
    assert all((val.media_root / "transcript" / f"{vid}.vtt").is_file() for vid in videos)
    assert qa_data(Path("sample")).media_root == val.media_root == resolve_data(Path("sample"))  # written once


def test_a_folder_named_sample_here_is_read_as_itself(in_sample_cache, siq2_file, tmp_path, monkeypatch):
    (tmp_path / "sample" / "qa").mkdir(parents=True)
    siq2_file.rename(tmp_path / "sample" / "qa" / "qa_val.json")
    monkeypatch.chdir(tmp_path)
    assert resolve_data(Path("sample")) == Path("sample")
    assert [item.qid for item in qa_data(Path("sample"), "val").items()] == ["q1", "q2", "q3"]


def test_desiq_perturb_reads_data_sample(in_sample_cache, tmp_path):
    out = tmp_path / "p.jsonl"
    _desiq("perturb", "--data", "sample", "--kind", "RIWI", "--out", out)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["qid"] for row in rows] == [item.qid for item in sample_items("val")]


@pytest.mark.slow
def test_concurrent_runs_write_the_sample_once(tmp_path):
    """Two processes asking for the sample in an empty cache at once both get the same, whole folder."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "MMSOC_CACHE": str(tmp_path / "cache")}
    code = "from desiq.sample import ensure_sample; print(ensure_sample())"
    runs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True) for _ in "ab"]
    paths = {run.communicate(timeout=120)[0].strip() for run in runs}
    assert all(run.returncode == 0 for run in runs) and len(paths) == 1
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [Path(paths.pop()).name]  # nothing left behind
    folder = next((tmp_path / "cache").iterdir())
    assert len(list((folder / "video").glob("*.mp4"))) == sum(SPLITS.values())
    assert [json.loads(line)["qid"] for line in (folder / "qa" / "qa_val.json").read_text().splitlines()] == [
        item.qid for item in sample_items("val")
    ]


def test_desiq_eval_reads_data_sample(in_sample_cache, tmp_path):
    out = tmp_path / "run"
    _desiq("eval", "--model", "random", "--data", "sample", "--inputs", "q+a", "--out", out, "--no-progress")
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()]
    a4 = [row for row in rows if row["condition"] == "original" and row["config"] == "A4"]
    assert sorted(row["id"] for row in a4) == sorted(item.id for item in sample_items("val"))


def test_a_named_format_is_part_of_the_run_a_desiq_eval_records(tmp_path):
    qa = tmp_path / "qa.jsonl"
    write_mcqa(qa, sample_items("val")[:4], "siq2")
    args = ["eval", "--model", "random", "--data", str(qa), "--inputs", "q+a", "--condition", "original"]
    named = CliRunner().invoke(app, [*args, "--format", "siq2", "--out", str(tmp_path / "named")])
    detected = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "detected")])
    assert named.exit_code == 0 and detected.exit_code == 0, named.output + detected.output
    assert json.loads((tmp_path / "named" / "config.json").read_text())["format"] == "siq2"
    assert "format" not in json.loads((tmp_path / "detected" / "config.json").read_text())
    resumed = CliRunner().invoke(app, [*args, "--format", "mcqa", "--out", str(tmp_path / "named")])
    assert resumed.exit_code == 2 and "format: 'siq2' there, 'mcqa' now" in resumed.output
