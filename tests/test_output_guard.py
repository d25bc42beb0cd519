"""No command writes over, or deletes, what it reads (mmsoc.core.outputs, the table in mmsoc.commands.writes).

Every command of both apps is run with each of its outputs on each of its own inputs: the refusal is one line
naming both, exit status 2, and the input keeps its bytes. The guard runs before any work, so these inputs need
not be valid data; the cases where writing beside an input is allowed run for real on the embedded samples.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from desiq.cli import app as desiq_app
from mmsoc.cli import app as mmsoc_app
from mmsoc.commands.writes import WRITES
from mmsoc.core.io import UsageError
from mmsoc.core.runfolder import RunFolder
from tests.test_vocabulary import commands

APPS = {"mmsoc": mmsoc_app, "desiq": desiq_app}
COMMANDS = dict(commands())
FILLER = {"task": "hate", "model": "random", "condition": "RIWI", "variant": "d", "backbone": "t5-absent"}
FILLER.update(
    dict.fromkeys(("data", "blind_proof", "runs", "battles", "votes", "adapter", "predictions", "run_dirs"), "absent")
)
"""A value for each required parameter the guard does not read as a path (or reads as one that is absent)."""
INPUT_BYTES = b'{"kept": "as it was"}\n'


def _flag(param) -> str | None:
    """The long flag of an option; None for an argument (given by position)."""
    flags = [opt for opt in param.opts if opt.startswith("--")]
    return flags[0] if flags else None


def _args(command: str, values: dict[str, str]) -> list[str]:
    """The command line running ``command`` with ``values`` (parameter name -> value) and a filler for every
    other required parameter."""
    words, positional = command.split()[1:], []
    for param in COMMANDS[command].params:
        value = values.get(param.name, FILLER.get(param.name) if param.required else None)
        if value is None:
            continue
        if _flag(param) is None:
            positional.append(value)
        elif param.is_flag:
            words.append(_flag(param))
        else:
            words += [_flag(param), value]
    return [*words, *positional]


def _run(command: str, values: dict[str, str]):
    return CliRunner().invoke(APPS[command.split()[0]], _args(command, values))


def _refused(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.output, result.output
    return lines[0]


def test_every_command_of_both_apps_has_a_row():
    assert sorted(COMMANDS) == sorted(WRITES.rows)


@pytest.mark.parametrize("command", sorted(WRITES.rows))
def test_each_row_names_parameters_its_command_has(command):
    row = WRITES.rows[command]
    named = {
        *row.reads,
        *row.runs,
        *(output.param for output in row.outputs),
        *([row.overwrite] if row.overwrite else []),
    }
    assert named <= {param.name for param in COMMANDS[command].params}


CASES = [
    (command, output.param, output.shape, name)
    for command, row in sorted(WRITES.rows.items())
    for output in row.outputs
    for name in (*row.reads, *row.runs)
]


@pytest.mark.parametrize("command, out, shape, source", CASES, ids=[f"{c} {o}={s}" for c, o, _, s in CASES])
def test_every_writing_command_refuses_to_write_over_its_own_input(command, out, shape, source, tmp_path):
    output = next(o for o in WRITES.rows[command].outputs if o.param == out)
    if shape == "file":
        target = path = tmp_path / "input.json"
    else:  # a file the command writes into the folder, or any file of a folder it replaces
        target = tmp_path / "out"
        path = target / (output.inside[0] if shape == "folder" and output.inside else "input.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(INPUT_BYTES)
    line = _refused(_run(command, {out: str(target), source: str(path)}))
    assert str(path) in line and str(target) in line and len(line) <= 200 + 2 * len(str(path)), line
    assert path.read_bytes() == INPUT_BYTES
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == sorted(
        p.relative_to(tmp_path) for p in (path, *path.parents) if tmp_path in p.parents
    )


def _siq(tmp_path: Path) -> Path:
    """A Social-IQ 2.0 question file of the embedded sample."""
    from desiq.formats.siq2 import write_siq2
    from desiq.sample import sample_items

    path = tmp_path / "qa_train.json"
    write_siq2(path, sample_items("train")[:12])
    return path


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_a_link_to_the_input_is_the_input(link, tmp_path):
    data = _siq(tmp_path)
    before = data.read_bytes()
    out = tmp_path / "out.json"
    os.symlink(data, out) if link == "symlink" else os.link(data, out)
    line = _refused(_run("desiq perturb", {"data": str(data), "out": str(out)}))
    assert line == f"error: --out {out} would overwrite --data {data}; write elsewhere"
    assert data.read_bytes() == before


def test_the_input_reached_through_a_symlinked_folder_is_the_input(tmp_path):
    data = _siq(tmp_path)
    (tmp_path / "link").symlink_to(tmp_path)
    line = _refused(_run("desiq build", {"data": str(tmp_path / "link" / data.name), "out": str(data)}))
    assert f"--out {data} would overwrite --data {tmp_path / 'link' / data.name}" in line


def test_a_card_beside_the_output_may_not_be_an_input(tmp_path):
    data = _siq(tmp_path)
    card = tmp_path / "out.json.card.md"
    card.write_bytes(INPUT_BYTES)
    line = _refused(
        _run("desiq subset", {"data": str(data), "blind_proof": str(card), "out": str(tmp_path / "out.json")})
    )
    assert f"writing {card} would overwrite --blind-proof {card}" in line


def test_a_folder_replaced_whole_may_not_be_inside_an_input_folder(tmp_path):
    (tmp_path / "data" / "model").mkdir(parents=True)
    (tmp_path / "data" / "model" / "fusion_config.json").write_text("{}")
    line = _refused(
        _run("desiq fusion train", {"data": str(tmp_path / "data"), "out": str(tmp_path / "data" / "model")})
    )
    assert "is replaced whole and would delete --data" in line


def test_a_file_already_in_an_input_data_folder_is_not_written_over(tmp_path):
    data = _siq(tmp_path)
    line = _refused(_run("desiq perturb", {"data": str(tmp_path), "split": "train", "out": str(data)}))
    assert line == f"error: --out {data} would overwrite --data {tmp_path}; write elsewhere"


@pytest.mark.parametrize(
    "command, out",
    [
        (command, output.param)
        for command, row in sorted(WRITES.rows.items())
        for output in row.outputs
        if output.shape != "file"
    ],
)
def test_a_folder_of_other_files_is_refused(command, out, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    line = _refused(_run(command, {out: str(folder)}))
    said = f"error: {COMMANDS[command].flag(out)} {folder}: not empty, and nothing in it was written by mmsoc"
    assert line.startswith(said), line
    assert ("--overwrite" in line) == (WRITES.rows[command].overwrite is not None)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("app", ["mmsoc", "desiq"])
def test_overwrite_replaces_a_folder_of_other_files(app, tmp_path):
    folder = tmp_path / "sample"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    extra = ["--no-media"] if app == "desiq" else []
    result = CliRunner().invoke(APPS[app], ["data", "sample", "--out", str(folder), "--overwrite", *extra])
    assert result.exit_code == 0, result.output
    assert not (folder / "notes.txt").exists() and any(folder.iterdir())


@pytest.mark.parametrize(
    "command, values, said",
    [
        ("desiq perturb", {"data": "absent.json"}, "error: --out /: a folder, not a file; name the file to write"),
        ("mmsoc eval", {}, "error: --out /: the root folder, which is never written into; name a new folder"),
        ("desiq data sample", {"overwrite": ""}, "error: --out /: the root folder, which is never written into"),
    ],
)
def test_out_slash_is_one_line(command, values, said, tmp_path):
    line = _refused(_run(command, {"out": "/", **values}))
    assert line.startswith(said) and "Errno" not in line


def test_a_file_where_a_folder_is_written_is_one_line(tmp_path):
    (tmp_path / "report").write_text("a file")
    line = _refused(_run("mmsoc report", {"run_dirs": str(tmp_path), "out": str(tmp_path / "report")}))
    assert line == f"error: --out {tmp_path / 'report'}: a file, not a folder; name a folder to write into"


EVAL = ["eval", "--task", "hate", "--model", "random", "--limit", "2", "--greedy", "--no-progress", "--fast-metrics"]


def test_writing_beside_an_input_stays_allowed(tmp_path):
    from mmsoc.tasks.data.sample import write_sample

    data = write_sample(tmp_path / "data")
    run = data / "runs" / "x"  # a run inside its data folder, resumed
    for _ in range(2):
        result = CliRunner().invoke(mmsoc_app, [*EVAL, "--data", str(data), "--out", str(run)])
        assert result.exit_code == 0, result.output
    scores = tmp_path / "scores"  # another tool's predictions, scored into their own folder
    scores.mkdir()
    rows = '{"id": "a", "prediction": "hateful", "reference": "hateful"}\n'
    (scores / "predictions.jsonl").write_text(rows + rows.replace('"a"', '"b"'))
    before = (scores / "predictions.jsonl").read_bytes()
    args = ["score", "--task", "hate", "--predictions", str(scores / "predictions.jsonl"), "--out", str(scores)]
    scored = CliRunner().invoke(mmsoc_app, [*args, "--fast-metrics", "--bootstrap", "0"])
    assert scored.exit_code == 0, scored.output
    assert (scores / "metrics.json").is_file() and (scores / "predictions.jsonl").read_bytes() == before
    reported = CliRunner().invoke(
        mmsoc_app, ["report", str(run), "--out", str(run), "--fast-metrics", "--bootstrap", "10"]
    )
    assert reported.exit_code == 0, reported.output
    assert (run / "report.json").is_file() and (run / "config.json").is_file()


def test_a_new_file_in_the_input_data_folder_is_allowed(tmp_path):
    siq = tmp_path / "siq"
    assert CliRunner().invoke(desiq_app, ["data", "sample", "--no-media", "--out", str(siq)]).exit_code == 0
    before = (siq / "qa" / "qa_train.json").read_bytes()
    out = siq / "qa" / "riwi.json"
    result = _run("desiq perturb", {"data": str(siq), "split": "train", "out": str(out)})
    assert result.exit_code == 0, result.output
    assert out.is_file() and (siq / "qa" / "qa_train.json").read_bytes() == before


def test_a_foreign_config_json_is_refused_on_one_short_line_with_long_differences_on_their_own(tmp_path):
    folder = RunFolder(tmp_path)
    there = {f"setting_{k}": "x" * 300 for k in range(8)}
    folder.claim(there)
    with pytest.raises(UsageError) as refused:
        folder.check({name: "y" * 300 for name in there})
    line = str(refused.value)
    assert "(setting_0, setting_1, setting_2 and 5 more differ)" in line
    assert len(line) - len(str(tmp_path / "config.json")) <= 200 and "\n" not in line
    detail = refused.value.detail
    assert detail is not None and all(f"{name}: 'xxx" in detail for name in there)
    assert len(detail) < len(str(tmp_path)) + 8 * 150
    with pytest.raises(UsageError) as short:  # a short difference is said in the line itself
        folder.check({**there, "setting_0": "y"})
    assert "(setting_0: 'xxxxx" in str(short.value) and "there, 'y' now)" in str(short.value)
    assert short.value.detail is None


def test_a_foreign_config_json_on_the_command_line_ends_in_one_short_error_line(tmp_path):
    out = tmp_path / "run"
    first = CliRunner().invoke(mmsoc_app, [*EVAL, "--data", "sample", "--out", str(out)])
    assert first.exit_code == 0, first.output
    other = ["--max-new-tokens", "7", "--top-p", "0.5", "--temperature", "0.3", "--sample", "--seeds", "4,5"]
    again = ["eval", "--task", "hate", "--model", "random", "--limit", "1", "--no-progress", "--fast-metrics"]
    refused = CliRunner().invoke(mmsoc_app, [*again, *other, "--data", "sample", "--out", str(out)])
    assert refused.exit_code == 2, refused.output
    *_, detail, line = refused.stderr.splitlines()
    assert line.startswith(f"error: {out / 'config.json'} belongs to a different run (") and " more differ)" in line
    assert len(line) <= 200 + len(str(out)) and "Traceback" not in refused.output
    assert detail.startswith(str(out / "config.json")) and "max_new_tokens: 256 there, 7 now" in detail


def test_a_folder_of_run_folders_takes_a_report(tmp_path):
    runs = tmp_path / "runs"
    run = runs / "x"
    result = CliRunner().invoke(mmsoc_app, [*EVAL, "--data", "sample", "--out", str(run)])
    assert result.exit_code == 0, result.output
    (runs / "notes.txt").write_text("mine")
    reported = CliRunner().invoke(
        mmsoc_app, ["report", str(run), "--out", str(runs), "--fast-metrics", "--bootstrap", "10"]
    )
    assert reported.exit_code == 0, reported.output
    assert (runs / "report.html").is_file() and (runs / "notes.txt").read_text() == "mine"


def test_a_run_into_its_data_folder_itself_is_refused(tmp_path):
    from mmsoc.tasks.data.sample import write_sample

    data = write_sample(tmp_path / "data")
    before = sorted(p.relative_to(data) for p in data.rglob("*"))
    line = _refused(CliRunner().invoke(mmsoc_app, [*EVAL, "--data", str(data), "--out", str(data)]))
    assert line.startswith(f"error: --out {data}: not empty, and nothing in it was written by mmsoc or desiq")
    assert sorted(p.relative_to(data) for p in data.rglob("*")) == before
