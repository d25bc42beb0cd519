"""A generic multiple-choice file is written back in its own layout: its columns, its unmapped cells, its
answer style, in the container the output's suffix names."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats import read_source, write_mcqa
from desiq.formats.mcqa_fields import Mapping
from desiq.perturbation_schemes import perturb
from desiq.records import MCQAItem

HEADER = ["qid", "rater", "question", "answerA", "answerB", "answerC", "label", "video", "note"]
KEPT = [1, 3, 4, 5]
"""The questions (0-based) that the flags below leave in the blind-proof subset."""


def right(n: int) -> str:
    return f"the right answer {n}"


def wrong(n: int, j: int) -> str:
    return f"wrong answer {n}.{j}"


def csv_rows() -> list[list[str]]:
    """Six questions over three videos; question n's correct option is at slot n % 3 (letter A, B or C)."""
    rows = []
    for n in range(6):
        options = [wrong(n, 0), wrong(n, 1)]
        options.insert(n % 3, right(n))
        rows.append([f"q{n}", f"r{n % 2}", f"Why {n}?", *options, "ABC"[n % 3], f"v{n // 2}", f"note, {n}"])
    return rows


def csv_text(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerows([header, *rows])
    return buffer.getvalue()


def flags_file(tmp_path: Path, ids: list[str]) -> Path:
    rows = [
        {
            "id": item_id,
            "qid": item_id.split("@")[0],
            "predictions": {},
            "blind_solvable": k not in KEPT,
            "solved_by": [],
        }
        for k, item_id in enumerate(ids)
    ]
    path = tmp_path / "per_item.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def desiq(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def same(items: list[MCQAItem]) -> list[tuple]:
    return [(i.qid, i.question, i.options, i.answer_idx, i.video, i.context) for i in items]


def test_a_csv_comes_out_of_perturb_and_subset_as_the_same_csv(tmp_path):
    source = tmp_path / "qa.csv"
    source.write_text(csv_text(HEADER, csv_rows()), encoding="utf-8", newline="")
    out = tmp_path / "riwi.csv"
    desiq("perturb", "--data", source, "--condition", "RIWI", "--choices", "A2", "--out", out)
    with open(out, newline="", encoding="utf-8") as handle:
        header, *rows = list(csv.reader(handle))
    assert header == HEADER and len(rows) == 12
    for p, row in enumerate(rows):  # pair p of question n = p // 2; its correct option alternates A, B
        n = p // 2
        assert row[:3] == [f"q{n}#{[j for j in range(3) if j != n % 3][p % 2]}", f"r{n % 2}", f"Why {n}?"]
        assert row[6] == "AB"[p % 2] and row[3 + p % 2] == right(n) and row[5] == ""
        assert row[3 + 1 - p % 2].startswith("wrong answer ") and not row[3 + 1 - p % 2].startswith(
            f"wrong answer {n}."
        )
        assert row[7:] == [f"v{n // 2}", f"note, {n}"]
    reading = read_source(source)
    assert same(read_source(out).items) == same(perturb_a2(reading.items))
    kept = tmp_path / "kept.csv"
    desiq(
        "subset",
        "--data",
        source,
        "--method",
        "unsolved",
        "--blind-proof",
        flags_file(tmp_path, [i.id for i in reading.items]),
        "--out",
        kept,
    )
    assert kept.read_bytes().decode() == csv_text(HEADER, [csv_rows()[k] for k in KEPT])  # the input's own lines
    assert same(read_source(kept).items) == same([reading.items[k] for k in KEPT])


def perturb_a2(items: list[MCQAItem]) -> list[MCQAItem]:
    from desiq.records import in_config

    return perturb(in_config(items, "A2"), "RIWI", seed=0).items


def test_the_output_suffix_names_the_container_and_the_input_columns_stay(tmp_path):
    source = tmp_path / "qa.csv"
    source.write_text(csv_text(HEADER, csv_rows()), encoding="utf-8", newline="")
    reading = read_source(source)
    write_mcqa(tmp_path / "qa.jsonl", reading.items, "mcqa", reading)
    lines = [json.loads(line) for line in (tmp_path / "qa.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines == [dict(zip(HEADER, row)) for row in csv_rows()]
    write_mcqa(tmp_path / "qa.tsv", reading.items, "mcqa", reading)
    assert (tmp_path / "qa.tsv").read_text(encoding="utf-8").splitlines()[1].split("\t") == csv_rows()[0]
    assert same(read_source(tmp_path / "qa.tsv").items) == same(reading.items)


def json_objects() -> list[dict]:
    """Four questions with a ``choices`` list, a 0-based index ``answer`` and an object column."""
    objects = []
    for n in range(4):
        choices = [wrong(n, 0), wrong(n, 1), wrong(n, 2)]
        choices.insert(n % 4, right(n))
        objects.append({"id": n, "meta": {"source": f"s{n}", "ok": True}, "question": f"Why {n}?"})
        objects[-1].update(choices=choices, answer=n % 4, group=f"g{n % 2}")
    return objects


def test_a_json_array_with_a_choices_list_comes_out_as_a_json_array(tmp_path):
    source = tmp_path / "qa.json"
    source.write_text(json.dumps(json_objects(), indent=1), encoding="utf-8")
    reading = read_source(source)
    assert reading.decisions[1].startswith("answer: 0-based index")
    out = tmp_path / "riwi.json"
    desiq("perturb", "--data", source, "--condition", "RIWI", "--choices", "A4", "--out", out)
    written = json.loads(out.read_text(encoding="utf-8"))
    for before, after in zip(json_objects(), written):
        assert list(after) == list(before) and after["id"] == before["id"] and after["meta"] == before["meta"]
        assert after["answer"] == before["answer"] and after["choices"][after["answer"]] == right(before["id"])
        assert not set(after["choices"]) & set(before["choices"]) - {right(before["id"])}
    assert same(read_source(out).items) == same(perturb(reading.items, "RIWI", seed=0).items)
    kept = tmp_path / "kept.json"
    ids = [i.id for i in reading.items]
    desiq("subset", "--data", source, "--method", "unsolved", "--blind-proof", flags_file(tmp_path, ids), "--out", kept)
    assert json.loads(kept.read_text(encoding="utf-8")) == [json_objects()[1], json_objects()[3]]


def test_text_answers_follow_a_replaced_correct_option_and_kinds_are_kept_as_json_text(tmp_path):
    header = ["question", "options", "answer", "kinds", "extra"]
    rows = [
        [f"Why {n}?", json.dumps([right(n), wrong(n, 0)]), right(n), json.dumps(["corr", "incorrect"]), f"x{n}"]
        for n in range(3)
    ]
    source = tmp_path / "text.csv"
    source.write_text(csv_text(header, rows), encoding="utf-8", newline="")
    reading = read_source(source)
    assert reading.decisions[1] == "answer: the text of the correct option"
    result = perturb(reading.items, "RAWA", seed=0).items
    write_mcqa(tmp_path / "out.csv", result, "mcqa", reading)
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as handle:
        got = list(csv.DictReader(handle))
    for n, row in enumerate(got):
        options = json.loads(row["options"])
        assert row["answer"] == options[0] and options[0] in {right(m) for m in range(3) if m != n}
        assert json.loads(row["kinds"]) == ["rawa", "incorrect"] and row["extra"] == f"x{n}"
    assert read_source(tmp_path / "out.csv").items == [
        MCQAItem(f"{n + 1}@{n}", str(n + 1), f"{n + 1}@{n}", f"Why {n}?", i.options, 0, ("rawa", "incorrect"))
        for n, i in enumerate(result)
    ]
    stray = MCQAItem("new", "new", "new", "Why new?", ("yes", "no"), 1, ("corr", "incorrect"))
    write_mcqa(tmp_path / "stray.csv", [stray], "mcqa", reading)  # from no row: the mapped cells only
    assert (tmp_path / "stray.csv").read_text(encoding="utf-8").splitlines() == [
        ",".join(header),
        'Why new?,"[""yes"", ""no""]",no,"[""corr"", ""incorrect""]",',
    ]


def test_a_parquet_file_round_trips_and_a_base_the_answers_no_longer_show_is_noted(tmp_path, caplog):
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = tmp_path / "qa.parquet"
    pq.write_table(pa.Table.from_pylist(json_objects()), source)
    reading = read_source(source)
    out = tmp_path / "out.parquet"
    write_mcqa(out, reading.items[1:], "mcqa", reading)
    assert pq.read_table(out).to_pylist() == json_objects()[1:]
    assert pq.read_table(out).column_names == list(json_objects()[0])
    assert f"note: {out}: its answers do not show their base; read it with --fields answer_base=0" in caplog.text
    assert same(read_source(out, Mapping.parse("answer_base=0")).items) == same(reading.items[1:])


def test_commonsenseqa_labelled_choices_keep_their_labels(tmp_path):
    rows = [
        {"question": f"Why {n}?", "choices": {"label": ["a", "b", "c"], "text": [right(n), wrong(n, 0), wrong(n, 1)]}}
        for n in range(3)
    ]
    source = tmp_path / "csqa.jsonl"
    source.write_text("".join(json.dumps({**row, "answerKey": "a"}) + "\n" for row in rows), encoding="utf-8")
    reading = read_source(source)
    write_mcqa(tmp_path / "out.jsonl", perturb(reading.items, "RAWI", seed=0).items, "mcqa", reading)
    for n, line in enumerate((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        assert row["answerKey"] == "a" and row["choices"]["label"] == ["a", "b", "c"]
        assert row["choices"]["text"][1:] == [wrong(n, 0), wrong(n, 1)] and row["choices"]["text"][0] != right(n)
