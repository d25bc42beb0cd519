"""Perturbation pools never hand an item its own answers back.

Six Social-IQ 2.0 val questions list their correct answer among their distractors too; a pool of
"incorrect options of other questions" drawn from them held correct answers (RIWI options that are an
answer, RAWI substitutes that are an answer), and texts differing from the item's answer only in case
or spacing passed as new options. Here every question but one repeats its correct answer as a
distractor, and the remaining distractors are the other questions' answers respelt.
"""

from __future__ import annotations

from desiq.perturbation_schemes import perturb
from desiq.records import MCQAItem

N = 12
KINDS = ("corr", "matched", "matched", "rewrite")


def answer(k: int) -> str:
    return f"They answer number {k}."


def respelt(k: int) -> str:
    """The answer of question k as another text would carry it: other case, other spacing."""
    return f"  they ANSWER  number {k}. "


def items() -> list[MCQAItem]:
    out = []
    for k in range(N):
        repeat = answer(k) if k else f"Plain distractor {k}."  # question 0 is the only clean one
        options = (answer(k), repeat, respelt((k + 1) % N), f"Plain distractor {k}b.")
        out.append(MCQAItem(f"q{k}@{k}", f"q{k}", f"v{k % 4}", f"Question {k}?", options, 0, KINDS))
    return out


def same(text: str) -> str:
    return " ".join(text.split()).casefold()


ANSWERS = {answer(k) for k in range(N)}
"""The correct answers as their questions spell them (the repeats carry this spelling too)."""


def test_riwi_options_and_rawi_substitutes_are_never_a_correct_answer():
    source = items()
    for seed in range(5):
        riwi, rawi = perturb(source, "RIWI", seed=seed), perturb(source, "RAWI", seed=seed)
        for before, after in zip(source, riwi.items):
            new = [after.options[i] for i, marker in enumerate(after.option_markers) if marker == "riwi"]
            assert len(new) == 3 and not ANSWERS & set(new), (seed, after.id, new)
            assert same(before.answer) not in {same(t) for t in new}, (seed, after.id, new)
            assert len({same(t) for t in after.options}) == 4, (seed, after.id, after.options)
        for before, after in zip(source, rawi.items):
            substitute = after.options[after.answer_idx]
            assert after.option_markers[after.answer_idx] == "rawi"
            assert substitute not in ANSWERS, (seed, after.id, substitute)
            assert same(substitute) not in {same(t) for t in before.options}, (seed, after.id, substitute)


def test_a_pool_that_runs_dry_is_counted_and_leaves_the_option_as_it_was():
    # every other question's only distractors are its own answer repeated: RIWI finds nothing to draw
    source = [
        MCQAItem(f"q{k}@{k}", f"q{k}", f"v{k}", "Why?", (answer(k), answer(k)), 0, ("corr", "matched"))
        for k in range(3)
    ]
    result = perturb(source, "RIWI", seed=0)
    assert (result.dry_options, result.dry_items, result.options_replaced) == (3, 3, 0)
    assert [item.options for item in result.items] == [item.options for item in source]
