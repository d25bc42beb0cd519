import pytest

from desiq.perturb import KINDS, perturb
from desiq.sample import sample_items
from desiq.siq import read_siq2, to_a2, write_siq2
from desiq.splits import build_split, check_split
from siq_data import REAL_SIQ2


@pytest.fixture(scope="module")
def items():
    return read_siq2(REAL_SIQ2) if REAL_SIQ2.exists() else sample_items("train") + sample_items("val")


def _own_answer_never_distractor(before, after):
    return all(after.options[i] != before.answer for i in after.incorrect_idx)


@pytest.mark.parametrize("config", ["A4", "A2"])
@pytest.mark.parametrize("kind", ["RIWI", "RIWA", "RAWI", "RAWA"])
def test_perturbation_invariants(items, kind, config):
    base = items if config == "A4" else to_a2(items[:1500])
    result = perturb(base, kind, seed=3)
    assert len(result.items) == len(base)
    for before, after in zip(base, result.items):
        if len(set(before.options)) < len(before.options) and kind.startswith("RA"):
            # a defect of the release (repeated options): RA* keeps the distractors as they are,
            # but the substitute itself is new
            new = after.options[after.answer_idx]
            assert new != before.answer and new not in before.options
            continue
        assert len(set(after.options)) == len(after.options), "duplicate options"
        assert _own_answer_never_distractor(before, after)
        assert after.answer_idx == before.answer_idx and after.question == before.question
        changed = [i for i in range(len(after.options)) if after.options[i] != before.options[i]]
        if kind.startswith("RI"):
            assert after.answer == before.answer  # the correct option is untouched
            assert changed == list(before.incorrect_idx)
            assert all(after.option_kinds[i] == kind.lower() for i in changed)
        else:
            assert changed == [before.answer_idx]
            assert after.option_kinds[after.answer_idx] == kind.lower()
            assert [after.options[i] for i in after.incorrect_idx] == [before.options[i] for i in before.incorrect_idx]


def test_replacements_come_from_other_questions(items):
    answers = {}
    for item in items:
        answers.setdefault(item.answer, set()).add((item.video, item.question))
    result = perturb(items, "RIWA", seed=0)
    for before, after in zip(items, result.items):
        for i in after.incorrect_idx:
            # a', the correct answer of some *other* question
            assert answers[after.options[i]] - {(before.video, before.question)}


def test_ncaq_drops_only_the_question(items):
    out = perturb(items[:50], "NCAQ").items
    assert all(o.question == "" and o.options == i.options and o.answer_idx == i.answer_idx
               for o, i in zip(out, items[:50]))


@pytest.mark.parametrize("kind", KINDS[1:])
def test_same_seed_same_bytes_other_seed_other_output(items, kind, tmp_path):
    def written(seed, name):
        write_siq2(tmp_path / name, perturb(items, kind, seed=seed).items)
        return (tmp_path / name).read_bytes()

    assert written(7, "a") == written(7, "b")
    assert written(7, "a") != written(8, "c")


def test_desiq_d_partners_come_from_other_videos(items):
    answer_videos = {}
    for item in items:
        answer_videos.setdefault(item.answer, set()).add(item.video)
    result = build_split(items, "d", seed=0)
    assert check_split(items, result.items) == []
    for before, after in zip(items, result.items):
        assert after.answer == before.answer
        for i in after.incorrect_idx:
            assert after.option_kinds[i] == "desiq_d"
            assert answer_videos[after.options[i]] - {before.video}


def test_desiq_s_partners_come_from_the_same_video_or_are_counted_as_fallbacks(items):
    answer_videos = {}
    for item in items:
        answer_videos.setdefault(item.answer, set()).add(item.video)
    per_video = {}
    for item in items:
        per_video[item.video] = per_video.get(item.video, 0) + 1
    result = build_split(items, "s", seed=0)
    assert check_split(items, result.items) == []
    outside = 0
    for before, after in zip(items, result.items):
        for i in after.incorrect_idx:
            if before.video not in answer_videos[after.options[i]]:
                outside += 1
    assert outside == result.fallback_options
    assert result.fallback_items > 0  # single-question videos exist in both datasets
    single = sum(1 for item in items if per_video[item.video] == 1)
    assert single <= result.fallback_items <= 0.05 * len(items)


def test_desiq_split_is_deterministic(items, tmp_path):
    a = build_split(items, "s", seed=5).items
    b = build_split(items, "s", seed=5).items
    assert a == b and build_split(items, "s", seed=6).items != a


def test_partner_scope_errors_are_clear():
    items = sample_items("train")[:1]
    with pytest.raises(ValueError, match="at least two questions"):
        perturb(items, "RIWI")
    with pytest.raises(ValueError, match="unknown perturbation"):
        perturb(items, "SWAP")
