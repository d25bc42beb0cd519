"""The shared progress display: stderr only, plain lines when stderr is no terminal, nothing when disabled."""

import io
import subprocess
import sys
import time

from mmsoc.core import progress
from mmsoc.core.progress import steps, track


def test_a_step_under_a_non_terminal_stderr_writes_lines_and_nothing_on_stdout(capsys):
    with steps("embedding 3 texts", total=3) as bar:
        for _ in range(3):
            bar.advance()
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "embedding 3 texts: started"
    assert lines[-1].startswith("embedding 3 texts: done, 3/3 (100%), ")


def test_a_slow_step_writes_a_line_at_each_tenth(capsys, monkeypatch):
    monkeypatch.setattr(progress, "QUIET_S", 0.0)  # every milestone is "late enough" to be written
    assert list(track(range(20), "fitting")) == list(range(20))
    lines = capsys.readouterr().err.splitlines()
    # started, then 2/20 ... 18/20 (one line per tenth; 20/20 is the closing line), then done
    assert [line.split(": ", 1)[1].split(" ")[0] for line in lines[1:-1]] == [f"{k}/20" for k in range(2, 20, 2)]
    assert len(lines) == 11 and lines[-1].startswith("fitting: done, 20/20")


def test_a_description_change_shows_in_the_next_line(capsys, monkeypatch):
    monkeypatch.setattr(progress, "QUIET_S", 0.0)
    with steps("probe tfidf-linear", total=2) as bar:
        bar.describe("probe tfidf-linear: A4 fit on a")
        bar.advance()
    lines = capsys.readouterr().err.splitlines()
    assert "probe tfidf-linear: A4 fit on a: 0/2 (0%), 0s" in lines
    assert lines[-1].startswith("probe tfidf-linear: done, 1/2 (50%)")


def test_a_long_unit_still_writes_heartbeat_lines_from_the_innermost_step(capsys, monkeypatch):
    monkeypatch.setattr(progress, "EVERY_S", 0.04)
    with steps("outer step", total=1) as outer:
        with steps("t-SNE of 40 options"):
            time.sleep(0.4)  # one unit of work that takes ten heartbeats
        outer.advance()
    lines = capsys.readouterr().err.splitlines()
    assert lines[:2] == ["outer step: started", "t-SNE of 40 options: started"]
    assert lines[-2].startswith("t-SNE of 40 options: done, 0 in ")
    assert lines[-1].startswith("outer step: done, 1/1 (100%)")
    beats = lines[2:-2]  # the outer step keeps quiet while the inner one runs
    assert len(beats) >= 3 and all(line.startswith("t-SNE of 40 options: 0 in ") for line in beats)


def test_disabled_progress_prints_nothing(capsys):
    with steps("scoring", total=4, enabled=False) as bar:
        bar.advance(4, description="scoring again")
    assert list(track([1, 2], "more", enabled=False)) == [1, 2]
    assert capsys.readouterr() == ("", "")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_nested_steps_share_one_rich_display_on_stderr(capsys, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with steps("outer step", total=2) as outer:
        for chunk in track([1, 2, 3], "inner step"):  # a second rich display at once would raise
            assert chunk
        print("a result row")  # what a command prints meanwhile stays on stdout
        outer.advance(2)
    assert capsys.readouterr().out == "a result row\n"
    assert "a result row" not in terminal.getvalue()
    assert "outer step" in terminal.getvalue() and "inner step" in terminal.getvalue()


def test_desiq_probe_on_the_sample_names_each_step_on_stderr(tmp_path):
    command = [sys.executable, "-m", "desiq", "probe", "--out", str(tmp_path), "--inputs", "a"]
    command += ["--probe", "tfidf-linear", "--no-tsne", "--no-debiased", "--per-item"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "probe tfidf-linear: started" in run.stderr
    assert (
        "probe tfidf-linear: done, 14/14 (100%)" in run.stderr
    )  # 2 fits + 12 scored cells (original, 5 perturbations; A4, A2)
    for inputs in ("a", "q+a"):
        assert f"per-item tfidf-linear:{inputs}: done, 5/5 (100%)" in run.stderr  # 5 folds by video
    assert ": started" not in run.stdout and ": done, " not in run.stdout  # stdout: the tables only


def test_report_steps_go_to_stderr_and_leave_the_report_unchanged(tmp_path, capsys):
    import json

    from report_data import write_run

    from mmsoc.report import ReportSettings, write_report

    run = write_run(tmp_path / "run", "m", [0], 0.7, {}, tasks=("hate",))
    written = {}
    for shown in (False, True):
        write_report([run], tmp_path / str(shown), ReportSettings(n_boot=20, seed=0, fast=True, progress=shown))
        written[shown] = json.loads((tmp_path / str(shown) / "report.json").read_text())
        out, err = capsys.readouterr()
        assert out == ""
        assert ("report: scoring: started" in err) is shown and ("bootstrap replicates" in err) is shown
    assert written[True] == written[False]
