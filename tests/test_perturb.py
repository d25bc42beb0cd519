"""Perturbations and DeSIQ splits keep their invariants, on the embedded sample (always) and on the real
Social-IQ 2.0 training questions (marked ``shared``)."""

from collections import defaultdict

import numpy as np
import pytest
from siq_data import REAL_DATA_MARKS, REAL_SIQ2, needs_real_data

from desiq.formats import read_mcqa
from desiq.formats.siq2 import write_siq2
from desiq.perturbation_schemes import FromPartner, drop_question, perturb
from desiq.perturbations import PERTURBATIONS, SPLITS, Pool, Target
from desiq.records import MCQAItem, to_a2
from desiq.sample import sample_items
from desiq.splits import build_split, check_split

PARTNER_PERTURBATIONS = [p for p in PERTURBATIONS.values() if isinstance(p.apply, FromPartner)]


def _pool(record):
    assert isinstance(record.apply, FromPartner)
    return record.apply.pool


@pytest.fixture(scope="module", params=["sample", pytest.param("real", marks=REAL_DATA_MARKS)])
def items(request):
    if request.param == "real":
        return read_mcqa(REAL_SIQ2)
    return sample_items("train") + sample_items("val")


def _own_answer_never_distractor(before, after):
    return all(after.options[i] != before.answer for i in after.incorrect_idx)


def _incorrect(item):
    return [(item.options[i], item.option_markers[i]) for i in item.incorrect_idx]


@pytest.mark.parametrize("config", ["A4", "A2"])
@pytest.mark.parametrize("record", PERTURBATIONS.values(), ids=lambda p: p.name)
def test_perturbation_invariants(items, record, config):
    """What a record says it leaves alone stays as it was; the answer keeps its index or follows its option."""
    base = items if config == "A4" else to_a2(items[:1500])
    result = perturb(base, record, seed=3)
    assert len(result.items) == len(base)
    for before, after in zip(base, result.items):
        assert (after.id, after.video, len(after.options)) == (before.id, before.video, len(before.options))
        if record.keeps_answer_index:
            assert after.answer_idx == before.answer_idx
        if Target.correct not in record.targets:  # the correct option, where it now stands, with its marker
            assert after.answer == before.answer
            assert after.option_markers[after.answer_idx] == before.option_markers[before.answer_idx]
        if Target.question not in record.targets:
            assert (after.question, after.context) == (before.question, before.context)
        if Target.incorrect not in record.targets:  # the incorrect options, in their order unless it changes
            moved = Target.order in record.targets
            assert (sorted if moved else list)(_incorrect(after)) == (sorted if moved else list)(_incorrect(before))
        if Target.order not in record.targets:  # an option in a new text carries the record's marker
            replaced = [i for i in range(len(after.options)) if after.options[i] != before.options[i]]
            assert all(after.option_markers[i] == record.marker for i in replaced)


@pytest.mark.parametrize("config", ["A4", "A2"])
@pytest.mark.parametrize("record", PARTNER_PERTURBATIONS, ids=lambda p: p.name)
def test_partner_replacements_are_new_and_marked(items, record, config):
    base = items if config == "A4" else to_a2(items[:1500])
    result = perturb(base, record, seed=3)
    for before, after in zip(base, result.items):
        if len(set(before.options)) < len(before.options) and Target.correct in record.targets:
            # a defect of the release (repeated options): replacing the correct option keeps the
            # distractors as they are, but the substitute itself is new
            new = after.options[after.answer_idx]
            assert new != before.answer and new not in before.options
            continue
        assert len(set(after.options)) == len(after.options), "duplicate options"
        assert _own_answer_never_distractor(before, after)
        changed = [i for i in range(len(after.options)) if after.options[i] != before.options[i]]
        assert changed == (list(before.incorrect_idx) if Target.incorrect in record.targets else [before.answer_idx])
        assert all(after.option_markers[i] == record.marker for i in changed)


@pytest.mark.parametrize("record", PARTNER_PERTURBATIONS, ids=lambda p: p.name)
def test_replacements_come_from_the_records_pool_of_other_questions(items, record):
    answers, distractors = defaultdict(set), defaultdict(set)
    for item in items:
        answers[item.answer].add(item.id)
        for i in item.incorrect_idx:
            distractors[item.options[i]].add(item.id)
    pool = answers if _pool(record) is Pool.partner_answer else distractors
    result = perturb(items, record, seed=0)
    for before, after in zip(items, result.items):
        slots = after.incorrect_idx if Target.incorrect in record.targets else (after.answer_idx,)
        for i in slots:
            assert pool[after.options[i]] - {before.id}  # an option from that pool of *another* question


def test_ncaq_drops_only_the_question(items):
    out = perturb(items[:50], "NCAQ").items
    assert all(
        o.question == "" and o.options == i.options and o.answer_idx == i.answer_idx for o, i in zip(out, items[:50])
    )


def test_shuf_moves_each_answer_with_its_option_in_numpys_seeded_order():
    """Two questions, each shuffled by one ``permutation`` of the seeded generator, in item order."""
    q1 = MCQAItem("q1@0", "q1", "v", "Why?", ("a1", "x1", "y1", "z1"), 0, ("corr", "matched", "matched", "rewrite"))
    q2 = MCQAItem("q2@1", "q2", "w", "How?", ("x2", "y2", "a2", "z2"), 2, ("matched", "rewrite", "corr", "matched"))
    rng = np.random.default_rng(11)
    orders = [rng.permutation(4).tolist(), rng.permutation(4).tolist()]
    out = perturb([q1, q2], "SHUF", seed=11).items
    for item, order, after in zip([q1, q2], orders, out):
        assert after.options == tuple(item.options[i] for i in order)
        assert after.option_markers == tuple(item.option_markers[i] for i in order)
        assert after.answer_idx == order.index(item.answer_idx)
        assert after.answer == item.answer and after.option_markers[after.answer_idx] == "corr"


def test_shuf_moves_most_answers_and_needs_no_label(items):
    out = perturb(items, "SHUF", seed=0).items
    moved = sum(a.answer_idx != b.answer_idx for a, b in zip(out, items))
    assert 0.6 * len(items) < moved < len(items)  # a uniform order keeps the answer's slot 1 time in 4
    unlabelled = [MCQAItem(f"u{k}", f"u{k}", "v", "Why?", ("a", "b", "c"), None) for k in range(3)]
    shuffled = perturb(unlabelled, "SHUF", seed=0).items
    assert all(s.answer_idx is None and sorted(s.options) == ["a", "b", "c"] for s in shuffled)
    with pytest.raises(ValueError, match="RIWI needs labelled items; 3 have no answer"):
        perturb(unlabelled, "RIWI")


@pytest.mark.parametrize("record", PERTURBATIONS.values(), ids=lambda p: p.name)
def test_same_seed_same_bytes_other_seed_other_output(items, record, tmp_path):
    def written(seed, file):
        write_siq2(tmp_path / file, perturb(items, record, seed=seed).items)
        return (tmp_path / file).read_bytes()

    assert written(7, "a") == written(7, "b")
    if record.apply is not drop_question:  # NCAQ draws nothing
        assert written(7, "a") != written(8, "c")


def test_desiq_d_partners_come_from_other_videos(items):
    answer_videos = defaultdict(set)
    for item in items:
        answer_videos[item.answer].add(item.video)
    result = build_split(items, "d", seed=0)
    assert check_split(items, result.items) == []
    for before, after in zip(items, result.items):
        assert after.answer == before.answer
        for i in after.incorrect_idx:
            assert after.option_markers[i] == SPLITS["d"].marker
            assert answer_videos[after.options[i]] - {before.video}


def _fallback_bounds(items):
    """Items that must fall back (their video offers fewer distinct partner answers than they have
    incorrect slots) and items that may (fewer such answers outside their own options)."""
    by_video = defaultdict(list)
    for k, item in enumerate(items):
        by_video[item.video].append(k)
    must = may = 0
    for k, item in enumerate(items):
        partners = {items[j].answer for j in by_video[item.video] if j != k} - {item.answer}
        slots = len(item.incorrect_idx)
        must += len(partners) < slots
        may += len(partners - set(item.options)) < slots
    return must, may


def test_desiq_s_partners_come_from_the_same_video_or_are_counted_as_fallbacks(items):
    answer_videos = defaultdict(set)
    for item in items:
        answer_videos[item.answer].add(item.video)
    result = build_split(items, "s", seed=0)
    assert check_split(items, result.items) == []
    outside = sum(
        before.video not in answer_videos[after.options[i]]
        for before, after in zip(items, result.items)
        for i in after.incorrect_idx
    )
    assert outside == result.fallback_options
    must, may = _fallback_bounds(items)
    assert must > 0  # both datasets have single-question videos
    assert must <= result.fallback_items <= may


@needs_real_data
def test_desiq_s_falls_back_for_few_real_questions():
    items = read_mcqa(REAL_SIQ2)
    result = build_split(items, "s", seed=0)
    assert 0 < result.fallback_items <= 0.01 * len(items)  # 32 of 6,159 at seed 0


def test_desiq_split_is_deterministic(items):
    a = build_split(items, "s", seed=5).items
    b = build_split(items, "s", seed=5).items
    assert a == b and build_split(items, "s", seed=6).items != a


def test_partner_scope_errors_are_clear():
    items = sample_items("train")[:1]
    with pytest.raises(ValueError, match="at least two questions"):
        perturb(items, "RIWI")
    with pytest.raises(KeyError, match="unknown perturbation 'SWAP'; known: NCAQ, RIWI"):
        perturb(items, "SWAP")


@pytest.mark.parametrize("record", PARTNER_PERTURBATIONS, ids=lambda p: p.name)
def test_an_a2_partner_never_comes_from_the_same_question(items, record):
    """A2 pairs of one question share the question and its options: every replacement must come from another
    question (before, a sibling pair could lend its distractor under RIWI / RAWI)."""
    base = items[:400]
    pairs = to_a2(base)
    source = {item.id: item for item in base}
    pool = defaultdict(set)
    for item in base:
        for i in item.incorrect_idx if _pool(record) is Pool.partner_distractor else (item.answer_idx,):
            pool[item.options[i]].add(item.id)
    for seed in range(3):
        for before, after in zip(pairs, perturb(pairs, record, seed=seed).items):
            own = source[before.source]
            for i in range(2):
                if after.options[i] != before.options[i]:
                    assert pool[after.options[i]] - {own.id}, (before.id, after.options[i])


def test_a2_partners_by_hand():
    """Two questions of one video, three pairs each: under RIWI every pair of q1 must take a distractor of q2,
    and the reverse."""
    q1 = MCQAItem("q1@0", "q1", "v", "Why?", ("a1", "x1", "y1", "z1"), 0, ("corr", "matched", "matched", "rewrite"))
    q2 = MCQAItem("q2@1", "q2", "v", "How?", ("a2", "x2", "y2", "z2"), 0, ("corr", "matched", "matched", "rewrite"))
    pairs = to_a2([q1, q2])
    assert [p.question_key for p in pairs] == ["q1@0"] * 3 + ["q2@1"] * 3
    for seed in range(20):
        out = perturb(pairs, "RIWI", seed=seed).items
        for p in out:
            wrong = p.options[1 - p.answer_idx]
            assert wrong in ({"x2", "y2", "z2"} if p.question_key == "q1@0" else {"x1", "y1", "z1"})
    with pytest.raises(ValueError, match="at least two questions"):
        perturb(to_a2([q1]), "RIWI")  # three pairs, one question: no partner at all
