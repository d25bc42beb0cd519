"""End-of-run console summaries: whole task ids in an 80-column terminal, each headline with its interval."""

import io
import math

import numpy as np
import pytest
from rich.console import Console

from mmsoc.runners.console import print_eval_summary, values_line
from mmsoc.runners.summary import summarize

SIMILARITY = "supertweeteval/tweet_similarity"  # the longest SuperTweetEval id
NERD = "supertweeteval/tweet_nerd"


def _rows(task: str, predictions: list, references: list) -> list[dict]:
    return [
        {"task": task, "seed": 0, "id": str(i), "parsed": p, "valid": True, "strict_valid": True, "reference": r}
        for i, (p, r) in enumerate(zip(predictions, references))
    ]


@pytest.fixture(scope="module")
def metrics() -> dict:
    references = ["yes", "no"] * 20
    rows = _rows(NERD, ["yes"] * 40, references)  # right on every "yes": accuracy 20/40
    scores = [float(i % 5) for i in range(30)]
    rows += _rows(SIMILARITY, [float(3 * i % 5) for i in range(30)], scores)
    return summarize(rows, [NERD, SIMILARITY], fast=True)


def test_the_headline_interval_in_metrics_json_brackets_the_value_as_a_binomial_interval_would(metrics):
    entry = metrics[NERD]
    assert entry["metrics"]["accuracy"] == 0.5
    low, high = entry["ci95"]["accuracy"]
    half = 1.96 * math.sqrt(0.5 * 0.5 / 40)  # the normal approximation of a 95% interval on 40 items
    assert low == pytest.approx(0.5 - half, abs=0.05) and high == pytest.approx(0.5 + half, abs=0.05)
    s_low, s_high = metrics[SIMILARITY]["ci95"]["spearman"]
    assert s_low < metrics[SIMILARITY]["metrics"]["spearman"] < s_high


def test_an_80_column_summary_keeps_every_task_id_whole_and_prints_each_interval(metrics):
    out = io.StringIO()
    print_eval_summary(metrics, Console(file=out, width=80))
    text = out.getvalue()
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "…" not in text
    assert SIMILARITY in text and NERD in text
    for task, headline in ((NERD, "accuracy"), (SIMILARITY, "spearman")):
        value, (low, high) = metrics[task]["metrics"][headline], metrics[task]["ci95"][headline]
        for figure in (value, low, high):  # the interval may fold onto a second line of its cell
            assert f"{figure:.4f}" in text, (task, figure)


def test_a_task_with_several_seeds_shows_its_spread_and_the_seed_resampled_interval():
    references = ["yes", "no"] * 10
    rows = _rows(NERD, ["yes"] * 20, references)  # seed 0: right on every "yes", 10/20
    seed1 = _rows(NERD, ["no"] * 19 + ["yes"], references)  # right on the first nine "no", 9/20
    rows += [{**row, "seed": 1} for row in seed1]
    entry = summarize(rows, [NERD], fast=True)[NERD]
    assert entry["metrics"]["accuracy"] == pytest.approx(np.mean([10 / 20, 9 / 20]))
    out = io.StringIO()
    print_eval_summary({NERD: entry}, Console(file=out, width=80))
    spread = np.std([10 / 20, 9 / 20], ddof=1)
    assert f"± {spread:.4f}" in out.getvalue()
    low, high = entry["ci95"]["accuracy"]
    assert low < entry["metrics"]["accuracy"] < high and f"{low:.4f}" in out.getvalue()


def test_score_values_carry_their_intervals():
    line = values_line({"accuracy": 0.5, "n": 40}, {"accuracy": [0.35, 0.65]})
    assert line == "accuracy=0.5000 [0.3500, 0.6500] n=40"
    assert values_line({"accuracy": 0.5}) == "accuracy=0.5000"


@pytest.mark.parametrize("width", [80, 40])
def test_a_names_column_stays_whole_and_cells_are_plain_text_whatever_the_width(width):
    from mmsoc.runners.console import print_whole

    model = "meta-llama/Llama-3.2-11B-Vision-Instruct"
    rows = [("1", model, "1012.5", "[990.1, 1030.4]"), ("2", "[bold]random[/bold]", "988.0", "[970.2, 1005.9]")]
    out = io.StringIO()
    print_whole(("rank", "model", "rating", "95% interval"), rows, Console(file=out, width=width), "[ratings]", 1)
    text = out.getvalue()
    assert model in text and "[bold]random[/bold]" in text and "[ratings]" in text  # nothing read as markup
    assert "…" not in text
    for figure in ("1012.5", "990.1", "1030.4", "970.2", "1005.9"):
        assert figure in text
    assert ("┃" in text) is (width == 80)  # a table where it fits, plain lines where it does not


def test_fewer_than_ten_items_give_no_interval_and_the_summary_says_why():
    # nine items: one short of MIN_CLUSTERS; accuracy 5/9 (right on the five "yes")
    entry = summarize(_rows(NERD, ["yes"] * 9, ["yes", "no"] * 4 + ["yes"]), [NERD], fast=True)[NERD]
    assert entry["metrics"]["accuracy"] == pytest.approx(5 / 9)
    assert entry["ci95"] is None
    assert entry["ci95_note"] == "too few items to tell (9 items), at least 10 needed"
    out = io.StringIO()
    print_eval_summary({NERD: entry}, Console(file=out, width=200))
    text = out.getvalue()
    assert "accuracy 0.5556 (too few items to tell (9 items), at least 10 needed)" in text
    assert "[0." not in text and "[1." not in text  # no interval printed
    ten = summarize(_rows(NERD, ["yes"] * 10, ["yes", "no"] * 5), [NERD], fast=True)[NERD]
    assert "ci95_note" not in ten and len(ten["ci95"]["accuracy"]) == 2
