"""Fine-tuning: targets the parser accepts, answer-only loss, LoRA on a tiny LLaVA, reload and merge."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import torch
from PIL import Image
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.core.io import InputError
from mmsoc.core.records import Example
from mmsoc.models.backends.hf import HFModel
from mmsoc.models.base import GenerationSettings
from mmsoc.models.loading import load_hf_model
from mmsoc.models.prompting import format_prompt
from mmsoc.runners.finetune.collate import IGNORE_INDEX, TrainCollator
from mmsoc.runners.finetune.data import answer_text, build_training_set
from mmsoc.runners.finetune.explain import why_prompt
from mmsoc.runners.finetune.explanations import Explanation, read_explanations
from mmsoc.runners.finetune.lora_training import LoraSettings, TrainSettings, train_lora
from mmsoc.runners.finetune.merge import merge_adapter
from mmsoc.tasks import parse_response
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.kinds.base import answer_part, with_explanation
from mmsoc.tasks.mmsoc.youtube2000 import YOUTUBE_TOPICS
from mmsoc.tasks.registry import TASKS

PROMPTS = {task: spec.prompt for task, spec in TASKS.items()}
# A tiny random model: LoRA on the output layer too, and a high learning rate, so it learns in seconds.
LORA = LoraSettings(rank=16, alpha=32, dropout=0.0, target_modules=("q_proj", "v_proj", "lm_head"))
TRAIN = TrainSettings(epochs=10, batch_size=8, micro_batch_size=8, learning_rate=1e-2)
GREEDY = GenerationSettings(greedy=True, max_new_tokens=6)


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny models run fastest (and reproducibly) on one thread on a shared machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def hate_humor():
    examples = load_examples("hate", "sample", "train").examples + load_examples("humor", "sample", "train").examples
    return build_training_set(examples, PROMPTS)


@pytest.fixture(scope="module")
def trained(tiny_llava, hate_humor, tmp_path_factory):
    model, processor, family = load_hf_model(str(tiny_llava))
    out = tmp_path_factory.mktemp("adapter")
    return train_lora(model, processor, family, hate_humor.items, out, LORA, TRAIN)


@pytest.fixture(scope="module")
def merged(trained, tmp_path_factory) -> Path:
    return merge_adapter(trained.adapter_dir, tmp_path_factory.mktemp("merged") / "model")


# --- targets -------------------------------------------------------------------------------------


def _parsed(task: str, raw: str) -> tuple:
    result = parse_response(task, raw, "strict")
    return result.label, result.ok


@pytest.mark.parametrize("task", [t for t, s in TASKS.items() if s.kind == "classification"])
def test_every_label_target_parses_strictly_to_itself(task):
    for label in TASKS[task].labels:
        assert _parsed(task, answer_text(task, label)) == (label, True)


def test_yes_no_tasks_answer_yes_for_the_first_label():
    assert [answer_text("hate", label) for label in ("hateful", "not_hateful")] == ["Yes", "No"]
    assert [answer_text("misinfo_gossipcop", label) for label in ("fake", "true")] == ["Yes", "No"]


def test_ocr_tagging_and_description_targets():
    assert answer_text("ocr", "  cats rule  ") == '"cats rule"'
    assert parse_response("ocr", answer_text("ocr", "cats rule"), "strict").label == "cats rule"
    tags = [YOUTUBE_TOPICS[3], YOUTUBE_TOPICS[40]]
    assert _parsed("tagging", answer_text("tagging", tags)) == (tags, True)
    assert answer_text("social_context", "A joke about work.") == "A joke about work."
    with pytest.raises(ValueError, match="not one of"):
        answer_text("hate", "maybe")
    with pytest.raises(ValueError, match="unknown or missing topics"):
        answer_text("tagging", ["not-a-topic"])


def test_explained_target_keeps_the_answer_first_and_parseable():
    for task in ("hate", "humor", "sentiment", "tagging"):
        label = ["film", "music"] if task == "tagging" else TASKS[task].labels[-1]
        answer = answer_text(task, label)
        full = with_explanation(answer, "  the picture\nand the words disagree. ")
        assert full == answer + " Explanation: the picture and the words disagree."
        assert full.startswith(answer)
        assert _parsed(task, answer_part(full)) == (label, True)
    assert with_explanation("Yes", None) == "Yes" == with_explanation("Yes", "   ")


def test_why_prompts_cover_every_label_and_quote_the_release():
    explained = [spec for spec in TASKS.values() if spec.why and spec.kind == "classification"]
    assert len(explained) == 7
    for spec in explained:
        assert set(dict(spec.why)) == set(spec.labels)
    assert why_prompt("hate", "hateful") == "Why do you think this meme is potentially hateful?"
    assert why_prompt("tagging", ["film", "music"]) == 'Why do the tags "film,music" potentially fit this online video?'
    with pytest.raises(ValueError, match="no label to explain"):
        why_prompt("ocr", "text")


# --- data ----------------------------------------------------------------------------------------


def test_bad_explanation_rows_name_file_line_and_field(tmp_path):
    path = tmp_path / "teacher.jsonl"
    path.write_text('{"id": "1", "explanation": "fine"}\n{"id": "2", "explanation": ""}\n')
    with pytest.raises(InputError) as err:
        read_explanations(path)
    assert (err.value.line, err.value.field) == (2, "explanation") and str(path) in str(err.value)
    row = '{"id": "1", "task": "hate", "explanation": "%s"}\n'
    path.write_text(row % "a" + row % "b")
    with pytest.raises(InputError, match="duplicate"):
        read_explanations(path)


def test_training_set_skips_and_records_unusable_items(tmp_path):
    image = str(tmp_path / "x.png")
    examples = [
        Example("a", "hate", images=(image,), label="hateful"),
        Example("b", "hate", images=(image,)),
        Example("c", "hate", label="hateful"),
        Example("d", "humor", images=(image,), label="funny"),
    ]
    table = {("", "a"): Explanation("a", "it mocks a group")}
    result = build_training_set(examples, PROMPTS, table)
    assert [(i.request.id, i.target, i.explained) for i in result.items] == [
        ("a", "Yes Explanation: it mocks a group", True)
    ]
    assert [(p["id"], p["reason"]) for p in result.problems] == [
        ("b", "no gold label"),
        ("c", "no image"),
        ("d", "task 'humor': label 'funny' is not one of humorous, not_humorous"),
    ]


def test_ocr_requests_never_show_the_answer_text(hate_humor):
    ocr = build_training_set(load_examples("ocr", "sample", "train", limit=2).examples, PROMPTS)
    assert all(item.request.prompt == PROMPTS["ocr"] for item in ocr.items)
    assert hate_humor.items[0].request.prompt.startswith('Text: "')


# --- loss mask -----------------------------------------------------------------------------------


def test_labels_cover_exactly_the_target_and_eos(tiny_llava, hate_humor):
    _, processor, family = load_hf_model(str(tiny_llava))
    collator = TrainCollator(processor, lambda r: format_prompt(family, processor, r.parts))
    items = hate_humor.items[:3] + hate_humor.items[-2:]
    batch = collator(items)
    tok = processor.tokenizer
    image_id = tok.convert_tokens_to_ids("<image>")
    for row, item in enumerate(items):
        ids, labels, mask = batch["input_ids"][row], batch["labels"][row], batch["attention_mask"][row]
        learnt = labels != IGNORE_INDEX
        assert not learnt[ids == image_id].any()
        assert torch.equal(labels[learnt], ids[learnt])
        # in context: LLaVA's prompt ends "ASSISTANT:", so the target follows a space (as answers are scored)
        assert tok.decode(ids[learnt]) == " " + item.target + tok.eos_token
        assert int(mask.sum()) == int(learnt.nonzero().max()) + 1  # padding only after the target
        image = Image.open(item.request.images[0]).convert("RGB")
        prompt = processor(
            text=[format_prompt(family, processor, item.request.parts)], images=[image], return_tensors="pt"
        )
        n_prompt = prompt["input_ids"].shape[1]
        assert torch.equal(ids[:n_prompt], prompt["input_ids"][0]) and not learnt[:n_prompt].any()


# --- training, adapter use, merge ----------------------------------------------------------------


def test_loss_falls_and_log_has_every_step(trained):
    log = [json.loads(line) for line in (trained.adapter_dir / "train_log.jsonl").read_text().splitlines()]
    assert [row["step"] for row in log] == list(range(1, trained.steps + 1)) and trained.steps == 100
    losses = [row["loss"] for row in log]
    assert sum(losses[-10:]) / 10 < 0.3 * sum(losses[:3]) / 3
    config = json.loads((trained.adapter_dir / "finetune_config.json").read_text())
    assert (config["effective_batch_size"], config["gradient_accumulation"], config["total_steps"]) == (8, 1, 100)
    assert config["train"]["warmup_ratio"] == 0.03 and losses[0] == pytest.approx(losses[1], abs=0.05)  # lr 0 at step 1


def test_adapter_answers_in_format_where_the_base_model_does_not(tiny_llava, trained, hate_humor):
    requests = [item.request for item in hate_humor.items]
    base = HFModel(str(tiny_llava)).generate(requests, GREEDY)
    tuned = HFModel(str(tiny_llava), adapter=str(trained.adapter_dir)).generate(requests, GREEDY)

    def parsed(responses):
        return [parse_response(r.task, raw, "strict") for r, raw in zip(requests, responses)]

    base_ok = sum(p.ok for p in parsed(base)) / len(requests)
    tuned_parsed = parsed(tuned)
    assert base_ok <= 0.05
    assert sum(p.ok for p in tuned_parsed) / len(requests) >= 0.95
    gold = [parse_response(item.request.task, item.target, "strict").label for item in hate_humor.items]
    accuracy = sum(p.label == g for p, g in zip(tuned_parsed, gold)) / len(gold)
    assert accuracy >= 0.6, Counter(tuned)


def test_adapter_reloads_and_merges_with_identical_outputs(tiny_llava, trained, merged, hate_humor):
    requests = [item.request for item in hate_humor.items[::8]]
    with_adapter = HFModel(str(tiny_llava), adapter=str(trained.adapter_dir))
    folded = HFModel(str(merged))
    assert folded.generate(requests, GREEDY) == with_adapter.generate(requests, GREEDY)
    batch = with_adapter.encode(requests)
    with torch.no_grad():
        torch.testing.assert_close(
            folded.model(**batch).logits, with_adapter.model(**batch).logits, atol=1e-4, rtol=1e-4
        )
    with pytest.raises(FileExistsError):
        merge_adapter(trained.adapter_dir, merged)


def test_eval_with_adapter_matches_the_merged_model(tiny_llava, trained, merged, tmp_path):
    args = [
        "eval",
        "--no-progress",
        "--fast-metrics",
        "--task",
        "hate,humor",
        "--greedy",
        "--limit",
        "4",
        "--max-new-tokens",
        "6",
    ]
    models = {"adapter": [str(tiny_llava), "--adapter", str(trained.adapter_dir)], "merged": [str(merged)]}
    for name, model in models.items():
        result = CliRunner().invoke(app, [*args, "--model", *model, "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "adapter/predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 8 and sum(row["strict_valid"] for row in rows) >= 7  # the adapter was applied
    for name in ("predictions.jsonl", "metrics.json"):
        assert (tmp_path / "adapter" / name).read_bytes() == (tmp_path / "merged" / name).read_bytes()


def test_explanation_augmented_model_answers_first(tiny_llava, tmp_path):
    examples = load_examples("hate", "sample", "train", limit=24).examples
    teacher = tmp_path / "teacher.jsonl"
    reasons = {"hateful": "it mocks a group", "not_hateful": "it is friendly"}
    teacher.write_text(
        "".join(json.dumps({"id": e.id, "task": "hate", "explanation": reasons[e.label]}) + "\n" for e in examples)
    )
    training = build_training_set(examples, PROMPTS, read_explanations(teacher))
    assert all(item.explained and " Explanation: " in item.target for item in training.items)
    model, processor, family = load_hf_model(str(tiny_llava))
    result = train_lora(
        model,
        processor,
        family,
        training.items,
        tmp_path / "ad",
        LORA,
        TrainSettings(epochs=30, batch_size=8, micro_batch_size=8, learning_rate=1e-2),
    )
    tuned = HFModel(str(tiny_llava), adapter=str(result.adapter_dir))
    responses = tuned.generate([i.request for i in training.items], GenerationSettings(greedy=True, max_new_tokens=16))
    answers = [parse_response("hate", answer_part(raw), "strict") for raw in responses]
    assert sum(a.ok for a in answers) / len(answers) >= 0.9, responses
    assert sum("Explanation:" in raw for raw in responses) / len(responses) >= 0.9, responses


# --- CLI -----------------------------------------------------------------------------------------


def test_cli_reports_bad_teacher_file_with_line_and_field(tmp_path):
    bad = tmp_path / "teacher.jsonl"
    bad.write_text('{"id": "1"}\n')
    result = CliRunner().invoke(
        app,
        [
            "finetune",
            "--model",
            str(tmp_path / "nowhere"),
            "--task",
            "hate",
            "--explanations",
            str(bad),
            "--out",
            str(tmp_path / "ad"),
        ],
    )
    assert result.exit_code == 2
    assert f"{bad}, line 1: field 'explanation'" in result.output


def test_cli_refuses_to_overwrite_an_adapter_folder(tiny_llava, trained, tmp_path):
    result = CliRunner().invoke(
        app,
        [
            "finetune",
            "--model",
            str(tiny_llava),
            "--task",
            "hate",
            "--limit",
            "2",
            "--out",
            str(trained.adapter_dir),
            "--no-progress",
        ],
    )
    assert result.exit_code == 2 and "resume it or choose a new folder" in result.output


def test_explain_writes_a_run_folder_that_resumes_refuses_other_settings_and_feeds_finetune(tmp_path):
    def explain(out: Path, *extra: str):
        return CliRunner().invoke(
            app,
            [
                "explain",
                "--model",
                "random",
                "--task",
                "hate",
                "--limit",
                "6",
                "--out",
                str(out),
                "--no-progress",
                *extra,
            ],
        )

    out = tmp_path / "teacher"
    first = explain(out)
    assert first.exit_code == 0 and "6 written, 0 already there, 0 skipped" in first.output, first.output
    log = (out / "predictions.jsonl").read_bytes()
    rows = [json.loads(line) for line in log.splitlines()]
    examples = load_examples("hate", "sample", "train", limit=8).examples
    assert [(r["task"], r["id"]) for r in rows] == [("hate", e.id) for e in examples[:6]]
    assert all(
        r["prompt"].endswith("\n" + why_prompt("hate", e.label)) and r["explanation"] and r["label"] == e.label
        for r, e in zip(rows, examples)
    )
    assert json.loads((out / "config.json").read_text())["model"] == "random"
    again = explain(out)
    assert "0 written, 6 already there" in again.output and (out / "predictions.jsonl").read_bytes() == log
    more = explain(out, "--limit", "8")  # more items of the same run: only the new ones are asked
    assert more.exit_code == 0 and "2 written, 6 already there" in more.output
    assert explain(tmp_path / "fresh", "--limit", "8").exit_code == 0
    assert (out / "predictions.jsonl").read_bytes() == (tmp_path / "fresh" / "predictions.jsonl").read_bytes()
    other = explain(out, "--sample", "--seed", "3")
    assert other.exit_code == 2 and "different run" in other.output and "seed: None there, 3 now" in other.output
    table = read_explanations(out)
    assert sorted(table) == sorted(("hate", e.id) for e in examples)
    training = build_training_set(examples, PROMPTS, table)
    assert all(item.explained and " Explanation: " in item.target for item in training.items)
