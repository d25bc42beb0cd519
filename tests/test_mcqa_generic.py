"""Any multiple-choice file runs where Social-IQ runs: the generic reader, K options, data cards."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from desiq.formats import read_source, write_mcqa
from desiq.formats.mcqa_fields import Mapping, read_schema
from desiq.formats.siq2 import write_siq2
from desiq.perturbation_schemes import perturb
from desiq.probe_report import probe_markdown
from desiq.probe_table import debiased_rows, run_probe
from desiq.probes import make_probe
from desiq.records import configs, in_config
from desiq.sample import sample_items
from desiq.splits import build_split
from mmsoc.core.io import InputError, UsageError

LETTERS = "ABCDE"
SUBJECTS = ["the chef", "a pilot", "the nurse", "my uncle", "a student", "the baker", "our coach", "a singer"]
VERBS = ["laughs", "waves", "cries", "runs", "sings", "frowns", "jumps", "nods", "sighs", "claps", "yawns", "bows"]


def write_csv(path: Path, header: list[str], rows: list[list[object]], delimiter: str = ",") -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def as_csv(items, path: Path) -> Path:
    """Social-IQ 2.0 questions as a CSV of other column names, letter answers and a group column."""
    header = ["item", "prompt", *(f"choice {c}" for c in "1234"), "key", "clip"]
    rows = [[i.qid, i.question, *i.options, LETTERS[i.answer_idx], i.video] for i in items]
    return write_csv(path, header, rows)


CSV_FIELDS = "id=item,question=prompt,options=choice 1|choice 2|choice 3|choice 4,answer=key,group=clip"


def test_social_iq_as_a_csv_gives_the_same_probe_table(tmp_path):
    train, val = sample_items("train"), sample_items("val")
    native = [tmp_path / "train.jsonl", tmp_path / "val.jsonl"]
    for path, items in zip(native, (train, val)):
        write_siq2(path, items)
    mapping = Mapping.parse(CSV_FIELDS)
    generic = [read_source(as_csv(items, tmp_path / f"{n}.csv"), mapping) for n, items in (("t", train), ("v", val))]
    assert generic[1].decisions[1] == "answer: a letter (A is the first option)" and not generic[1].skipped
    repeats = [i.qid for i in train if len({" ".join(o.split()).casefold() for o in i.options}) < len(i.options)]
    assert len(generic[0].skipped) == len(repeats) == 1 and "are the same text" in generic[0].skipped[0]
    natives = [[i for i in read_source(p).items if i.qid not in repeats] for p in native]  # the rows the CSV skips
    tables = []
    for train_items, eval_items in (natives, [r.items for r in generic]):
        backend = make_probe("tfidf-linear")
        report = run_probe(backend, train_items, eval_items, "a", seed=3)
        report.results += debiased_rows(backend, train_items, eval_items, "a", seed=3, variants=("d",))
        tables.append(report.to_json()["results"])
    assert tables[0] == tables[1] and len(tables[0]) == 14  # original and 5 perturbations, DeSIQ_d; A4 and A2


def options_file(tmp_path: Path, k: int) -> Path:
    """K options per question: SocialIQA's shape for 3 (context, answerA..C, a 1-based label), a
    CommonsenseQA-like shape for 5 (a choices list, a letter), 96 questions over 24 groups; the correct
    option repeats the question's verb, which a probe that sees the question can learn; every option is
    unique to its question."""
    rows = []
    for n in range(96):
        subject, verb = SUBJECTS[n % len(SUBJECTS)], VERBS[n % len(VERBS)]
        slot = (n * 7) % k
        wrong = [v for v in VERBS if v != verb]
        options = [f"{subject} {wrong[(n + j * 3) % len(wrong)]} at {n}" for j in range(k - 1)]
        options.insert(slot, f"{subject} {verb} at {n}")
        group = f"scene{n // 4}"
        if k == 3:
            row = {"context": f"{subject.capitalize()} {verb} here.", "question": f"Who {verb}?", "group": group}
            row.update({f"answer{LETTERS[j]}": o for j, o in enumerate(options)}, label=str(slot + 1))
        else:
            row = {"id": f"c{n}", "question": f"Who {verb}?", "choices": options, "answerKey": LETTERS[slot]}
            row["group"] = group
        rows.append(row)
    return write_jsonl(tmp_path / f"k{k}.jsonl", rows)


def desiq(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "desiq", *args], capture_output=True, text=True)


@pytest.mark.parametrize("k", [3, 5])
def test_three_and_five_options_run_through_probe_perturb_build_and_eval(tmp_path, k):
    from desiq.llm.evaluate import EvalOptions, evaluate

    path = options_file(tmp_path, k)
    reading = read_source(path)
    items = reading.items
    assert reading.format == "mcqa" and len(items) == 96 and configs(items) == (f"A{k}", "A2")
    assert len({item.video for item in items}) == 24
    report = run_probe(make_probe("tfidf-linear"), items[:64], items[64:], "q+a", seed=0)
    chance = f"{100 / k:.1f}%"
    assert report.get("original").chance == pytest.approx(1 / k) and report.get("original", "A2").chance == 0.5
    assert f"Chance: A{k} {chance}, A2 50.0%." in probe_markdown(report)
    riwa = perturb(in_config(items, f"A{k}"), "RIWA", seed=0)
    assert riwa.options_replaced == 96 * (k - 1) and riwa.dry_options == 0
    group_of = {item.answer: item.video for item in items}
    other, same = build_split(items, "d", seed=0), build_split(items, "s", seed=0)
    for before, d, s in zip(items, other.items, same.items):
        assert all(group_of[d.options[i]] != before.video for i in d.incorrect_idx)
        in_group = sum(group_of[s.options[i]] == before.video for i in s.incorrect_idx)
        assert in_group == min(k - 1, 3)  # three partners in a group of four questions
    assert (same.fallback_items, same.fallback_options) == ((0, 0) if k == 3 else (96, 96))
    metrics = evaluate(
        "random",
        path,
        tmp_path / "run",
        EvalOptions(inputs="q+a+t" if k == 3 else "q+a", conditions="original,circular"),
    )
    assert metrics is not None
    got = {(r["condition"], r["config"]): (r["chance"], r["n"]) for r in metrics["results"]}
    assert got[("original", f"A{k}")] == (pytest.approx(1 / k), 96)
    assert got[("circular", f"A{k}")] == (pytest.approx((1 / k) ** k), 96)
    assert got[("circular", "A2")] == (pytest.approx(0.25), 96 * (k - 1))
    assert f"| condition | A{k} | A2 |" in (tmp_path / "run" / "table.md").read_text()


def test_perturb_and_build_write_the_input_format_with_a_data_card(tmp_path):
    path = options_file(tmp_path, 3)
    out = tmp_path / "riwi.jsonl"
    run = desiq("perturb", "--data", str(path), "--condition", "RIWI", "--choices", "A3", "--out", str(out))
    assert run.returncode == 0, run.stderr
    back = read_source(out)
    assert back.format == "mcqa" and [i.options[i.answer_idx] for i in back.items] == [
        i.answer for i in read_source(path).items
    ]
    before = read_source(path).items[0]
    assert back.items[0].context == "The chef laughs here." and back.items[0].answer == before.answer
    assert not set(back.items[0].options) & {before.options[i] for i in before.incorrect_idx}  # both replaced
    card = (tmp_path / "riwi.jsonl.card.md").read_text()
    for line in ("| options | answerA\\|answerB\\|answerC |", "- answer: 1-based index", "- options replaced: 192"):
        assert line.replace("\\|", "|") in card.replace("\\|", "|")
    assert "questions read: 96; rows skipped: 0" in card
    five, built = options_file(tmp_path, 5), tmp_path / "s.jsonl"
    run = desiq("build", "--data", str(five), "--variant", "s", "--out", str(built), "--fields", "group=nope")
    assert run.returncode == 2 and run.stderr.startswith(f"error: {five}: column 'nope' is not in the file")
    assert "Traceback" not in run.stderr and not built.exists()
    assert desiq("build", "--data", str(five), "--variant", "s", "--out", str(built)).returncode == 0
    card = (tmp_path / "s.jsonl.card.md").read_text()
    assert "- options taken from other groups (fallback): 96" in card and "- answer: a letter" in card


def test_answers_as_indices_letters_or_text_and_the_base_decision(tmp_path):
    rows = [{"question": f"Q{n}?", "options": ["x", "y", f"z{n}"], "answer": n % 2 + 1} for n in range(4)]
    ambiguous = write_jsonl(tmp_path / "amb.jsonl", rows)
    with pytest.raises(InputError, match=r"neither 0 nor K .*answer_base=0 or answer_base=1"):
        read_source(ambiguous)
    one = read_source(ambiguous, Mapping.parse("answer_base=1"))
    assert [i.answer_idx for i in one.items] == [0, 1, 0, 1] and "answer_base in the mapping" in one.decisions[1]
    text = [{**row, "answer": " Y "} for row in rows]
    assert {i.answer_idx for i in read_source(write_jsonl(tmp_path / "t.jsonl", text)).items} == {1}
    zero = [{**row, "answer": n % 3} for n, row in enumerate(rows)]
    assert "0-based index (detected" in read_source(write_jsonl(tmp_path / "z.jsonl", zero)).decisions[1]


def test_bad_rows_are_skipped_and_named_by_file_line_and_field(tmp_path):
    good = {"question": "Why?", "choices": ["a", "b", "c"], "label": 0, "group": "g", "media": "clips/a.mp4"}
    rows = [
        good,
        {**good, "question": 7},
        {**good, "choices": ["a", None, "c"]},
        {**good, "choices": ["a", "b"]},
        {**good, "label": 2.5},
        {**good, "media": "../../etc/passwd"},
        {**good, "label": 2},
    ]
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"question": NaN, "choices": ["a", "b", "c"], "label": 0}\n')
    reading = read_source(path)
    assert [i.answer_idx for i in reading.items] == [0, 2]
    assert [(why.split(": field ")[0], why.split("'")[1]) for why in reading.skipped] == [
        (f"{path}, line {n}", field)
        for n, field in ((2, "question"), (3, "choices"), (5, "label"), (6, "media"), (8, "question"), (4, "choices"))
    ]
    assert "2 options, the file's count is 3" in reading.skipped[-1]


def test_tsv_json_parquet_and_a_yaml_schema_read_alike(tmp_path):
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    header = ["qid", "text", "o1", "o2", "o3", "gold", "vid"]
    cells = [[f"q{n}", f"Why {n}?", "a", "b", f"c{n}", str(n % 3), f"v{n // 2}"] for n in range(6)]
    tsv = write_csv(tmp_path / "qa.tsv", header, cells, delimiter="\t")
    objects = [dict(zip(header, row)) for row in cells]
    array = tmp_path / "qa.json"
    array.write_text(json.dumps(objects, indent=1), encoding="utf-8")
    parquet = tmp_path / "qa.parquet"
    pq.write_table(pa.Table.from_pylist(objects), parquet)
    schema = tmp_path / "schema.yaml"
    schema.write_text("id: qid\nquestion: text\noptions: [o1, o2, o3]\nanswer: gold\ngroup: vid\n", encoding="utf-8")
    mapping = read_schema(schema)
    assert mapping == Mapping.parse("id=qid,question=text,options=o1|o2|o3,answer=gold,group=vid")
    read = [read_source(p, mapping).items for p in (tsv, array, parquet)]
    assert read[0] == read[1] == read[2] and [i.video for i in read[0]][:3] == ["v0", "v0", "v1"]
    with pytest.raises(UsageError, match="unknown key 'answers'"):
        Mapping.parse("answers=gold")
    with pytest.raises(InputError, match="column 'nope' is not in the file"):
        read_source(tsv, Mapping.parse("question=nope"))


def test_context_is_shown_as_the_transcript_and_the_format_writes_back_what_it_read(tmp_path):
    from desiq.inputs import InputSetting
    from desiq.llm.conditions import ask
    from desiq.llm.prompts import get_prompt
    from desiq.llm.requests import RequestBuilder

    rows = [{"question": "Why?", "options": ["a", "b", "c"], "answer_idx": 0, "context": "Line one.\nLine two."}]
    items = read_source(write_jsonl(tmp_path / "c.jsonl", rows)).items
    builder = RequestBuilder(get_prompt(), InputSetting.parse("q+a+t"), None, frozenset({"image"}))
    text = builder.build(ask(items, ["original"])[0]).request.parts[-1].text
    assert text.startswith("Transcript:\nLine one.\nLine two.\n\nQuestion: Why?\nOptions:\nA. a\nB. b\nC. c\n")
    write_mcqa(tmp_path / "back.jsonl", items, "mcqa")
    assert read_source(tmp_path / "back.jsonl").items == items
