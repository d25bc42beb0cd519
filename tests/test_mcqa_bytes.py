"""A generic multiple-choice file: a row whose options repeat or are blank is skipped and named; a CSV or TSV
written back keeps its line endings and the bytes of every cell the command did not change."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats import read_source, write_mcqa


def desiq(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_repeated_and_blank_options_skip_their_row_with_its_line(tmp_path):
    good = {"question": "Why?", "choices": ["a cat", "a dog", "a cow"], "label": 0}
    rows = [
        good,
        {**good, "choices": ["a cat", "A  Cat", "a cow"]},  # the same text, as replacements compare texts
        {**good, "choices": ["a cat", " \t", "a cow"]},
        {**good, "choices": ["x" * 5000, "a dog", "x" * 5000]},
        {**good, "label": 2},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    reading = read_source(path)
    assert [item.answer_idx for item in reading.items] == [0, 2]
    assert reading.skipped[0] == f"{path}, line 2: field 'choices': options 0 and 1 are the same text ('A  Cat')"
    assert reading.skipped[1] == f"{path}, line 3: field 'choices': option 1 is blank (whitespace only)"
    assert reading.skipped[2].startswith(f"{path}, line 4: field 'choices': options 0 and 2 are the same text")
    assert "(5,000 characters)" in reading.skipped[2] and len(reading.skipped[2]) < len(str(path)) + 220


def test_option_columns_name_the_column_of_the_repeat(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text(
        "question,answerA,answerB,answerC,label\nWhy?,yes,no,maybe,A\nHow?,yes, ,maybe,B\nWho?,me,you,me,C\n",
        encoding="utf-8",
    )
    reading = read_source(path)
    assert [item.question for item in reading.items] == ["Why?"]
    assert reading.skipped == [
        f"{path}, line 3: field 'answerB': option 1 is blank (whitespace only)",
        f"{path}, line 4: field 'answerC': options 0 and 2 are the same text ('me')",
    ]


QUOTED = (
    'id,"question",answerA,answerB,answerC,label,note\r\n'
    '1,"Why, then?","yes",no,maybe,A,"said ""hi""\r\nand left"\r\n'
    '2,"How?",up,"down",left,C,"one\nline, two"\r\n'
    "3,Who?,me,you,them,B,\r\n"
)
"""Quotes where none are needed, a doubled quote, line breaks of either kind inside cells, Windows line ends."""


@pytest.mark.parametrize("suffix, delimiter", [(".csv", ","), (".tsv", "\t")])
def test_a_table_written_back_unchanged_is_the_same_bytes(tmp_path, suffix, delimiter):
    path = tmp_path / f"q{suffix}"
    path.write_bytes(QUOTED.replace(",", delimiter).encode())
    reading = read_source(path)
    assert [item.answer_idx for item in reading.items] == [0, 2, 1]
    out = tmp_path / f"out{suffix}"
    write_mcqa(out, reading.items, "mcqa", reading)
    assert out.read_bytes() == path.read_bytes()
    unix = tmp_path / f"unix{suffix}"
    unix.write_bytes(path.read_bytes().replace(b"\r\n", b"\n"))
    reading = read_source(unix)
    write_mcqa(out, reading.items, "mcqa", reading)
    assert out.read_bytes() == unix.read_bytes()


def test_a_shuffled_csv_keeps_the_bytes_of_the_cells_it_did_not_move(tmp_path):
    path = tmp_path / "q.csv"
    path.write_bytes(QUOTED.encode())
    out = tmp_path / "shuf.csv"
    desiq("perturb", "--data", path, "--condition", "SHUF", "--choices", "A3", "--out", out)
    written = out.read_bytes().decode()
    lines = ["id", *written.split("\r\n")[1:]]
    assert written.startswith('id,"question",answerA,answerB,answerC,label,note\r\n') and written.endswith("\r\n")
    assert '1,"Why, then?",' in written and '"said ""hi""\r\nand left"\r\n' in written
    assert '2,"How?",' in written and ',"one\nline, two"\r\n' in written
    assert lines[-2].startswith("3,Who?,") and lines[-2].endswith(",")
    back = read_source(out).items
    assert [item.options[item.answer_idx] for item in back] == ["yes", "left", "you"]
    assert [sorted(item.options) for item in back] == [sorted(item.options) for item in read_source(path).items]
