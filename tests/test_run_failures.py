"""A run's exit status says what its items came to: none succeeded or more failed than --max-failures allows is
exit 1 with the count and the first error; some failed is exit 0 with a line saying how many. Hand-worked cases."""

from __future__ import annotations

import pytest

from mmsoc.core.io import RunFailed
from mmsoc.runners.failures import MaxFailures, Tally


@pytest.mark.parametrize(
    ("text", "failed", "items", "allowed"),
    [
        ("0", 0, 10, True),
        ("0", 1, 10, False),
        ("3", 3, 10, True),
        ("3", 4, 10, False),
        ("25%", 2, 8, True),  # 2 of 8 is 25%: not more than allowed
        ("25%", 3, 8, False),
        ("2.5%", 1, 40, True),  # 1 of 40 is 2.5%
        ("2.5%", 2, 40, False),
        ("100%", 7, 7, True),
        (" 5 ", 5, 9, True),
    ],
)
def test_max_failures_is_a_count_or_a_share_of_the_items(text, failed, items, allowed):
    limit = MaxFailures.parse(text)
    assert limit is not None and limit.allows(failed, items) is allowed


@pytest.mark.parametrize("text", ["", "-1", "1.5", "x", "5 %%", "101%", "3 items"])
def test_a_max_failures_that_is_neither_is_refused_in_one_line(text):
    with pytest.raises(ValueError, match=r"^--max-failures .*(a number of items \(3\) or a percentage|at most 100%)"):
        MaxFailures.parse(text)


def test_the_tally_counts_the_items_without_a_prediction_and_names_the_first_ones_reason():
    asked = [("t", "1", 0), ("t", "2", 0), ("t", "3", 0), ("t", "1", 1)]
    reasons = [(("t", "9"), "not asked"), (("t", "1"), "answered on a rerun"), (("t", "3"), "the server said no")]
    tally = Tally.of(asked, {("t", "1", 0), ("t", "2", 0)}, reasons, lambda key: key[:2])
    # item 3 (seed 0) and item 1 (seed 1) failed; the first reason recorded of either is item 1's
    assert (tally.items, tally.failed, tally.first_error) == (4, 2, "answered on a rerun")
    assert tally.to_json() == {"items": 4, "failed_items": 2}


def test_the_verdict_of_a_run():
    assert Tally(5, 0).verdict(None) is None
    assert Tally(5, 2, "boom").verdict(None) == "2 of 5 items failed (each in problems.jsonl); first error: boom"
    assert Tally(5, 2, "boom").verdict(MaxFailures.parse("40%")) is not None
    with pytest.raises(RunFailed, match=r"^2 of 5 items failed, more than --max-failures 1 allows; first error: boom$"):
        Tally(5, 2, "boom").verdict(MaxFailures.parse("1"))
    with pytest.raises(RunFailed, match=r"^0 of 5 items succeeded; first error: boom$"):
        Tally(5, 5, "boom").verdict(MaxFailures.parse("100%"))  # no limit makes a run of no answers a success
    with pytest.raises(RunFailed, match=r"^0 of 1 items succeeded; first error: no prediction recorded$"):
        Tally(1, 1).verdict(None)


def test_the_verdict_is_one_short_line_however_long_the_error_its_head_and_tail_kept():
    with pytest.raises(RunFailed) as raised:
        Tally(3, 3, "item 7: " + "x" * 100_000 + "\nwhy it failed").verdict(None)
    said = str(raised.value)
    assert len(said) < 200 and "\n" not in said
    assert said.startswith("0 of 3 items succeeded; first error: item 7: xxx")
    assert " ... " in said and said.endswith("xxx why it failed")


@pytest.mark.parametrize("app_name", ["mmsoc", "desiq"])
def test_a_bad_max_failures_is_one_line_exit_2_before_any_work(app_name, tmp_path):
    from typer.testing import CliRunner

    from desiq.cli import app as desiq_app
    from mmsoc.cli import app as mmsoc_app

    out = tmp_path / "run"
    command = ["eval", "--task", "hate"] if app_name == "mmsoc" else ["eval", "--data", "sample", "--inputs", "q+a"]
    app = mmsoc_app if app_name == "mmsoc" else desiq_app
    result = CliRunner().invoke(app, [*command, "--model", "random", "--out", str(out), "--max-failures", "five"])
    assert result.exit_code == 2 and result.output.strip().splitlines() == [
        "error: --max-failures 'five': give a number of items (3) or a percentage (5%)"
    ]
    assert not out.exists()
