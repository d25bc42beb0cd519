"""``mmsoc list`` / ``desiq list``, and unknown names answered with the nearest known ones."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from desiq.cli import app as desiq_app
from mmsoc.cli import app as mmsoc_app
from mmsoc.core.io import UsageError
from mmsoc.core.registry import Registry, nearest
from mmsoc.metrics.registry import find_metric
from mmsoc.models.registry import resolve
from mmsoc.tasks.registry import qualified


def listed(app, *args: str) -> dict[str, tuple[str, str]]:
    """Name -> (origin, description) of a ``list`` output."""
    result = CliRunner().invoke(app, ["list", *args])
    assert result.exit_code == 0, result.output
    header, *lines = result.stdout.splitlines()
    origin_at, description_at = header.index("origin"), header.index("description")
    return {line[:origin_at].strip(): (line[origin_at:description_at].strip(), line[description_at:]) for line in lines}


def test_perturbations_and_conditions_are_the_papers():
    # DeSIQ paper, section 2 (perturbations) and 3 (the DeSIQ splits), then option shuffling; CircularEval
    # from VLMEvalKit
    perturbations = listed(desiq_app, "perturbations")
    assert list(perturbations) == ["NCAQ", "RIWI", "RIWA", "RAWI", "RAWA", "SHUF"]
    assert perturbations["RIWA"] == ("built in", "each incorrect option -> a partner's correct answer")
    conditions = listed(mmsoc_app, "conditions")
    assert list(conditions) == ["original", *perturbations, "desiq_d", "desiq_s", "circular"]
    assert conditions["desiq_d"][1].endswith("partners from other videos")


def test_suites_count_their_papers_tasks():
    # MM-Soc: ten tasks, misinformation on two datasets; SocKET: 58 tasks; SuperTweetEval: 12 tasks
    suites = listed(mmsoc_app, "suites")
    assert suites == {
        "mmsoc": ("built in", "11 tasks"),
        "socket": ("built in", "58 tasks"),
        "supertweeteval": ("built in", "12 tasks"),
    }
    socket = listed(mmsoc_app, "tasks", "--suite", "socket")
    assert len(socket) == 58 and all(name.startswith("socket/") for name in socket)
    assert socket["socket/sarc"][1].startswith("socket_cls on sarc")


def test_models_give_their_model_option_spelling():
    models = listed(mmsoc_app, "models")
    assert list(models) == ["hf", "lm", "openai", "random", "text-baseline"]
    assert models["lm"][1].startswith("--model lm:ID: ")
    assert list(listed(desiq_app, "models")) == list(models)


def test_mmsoc_lists_the_prompts_and_formats_of_every_command_and_desiq_its_own():
    prompts = listed(mmsoc_app, "prompts")
    tasks = ["mmsoc-v1", "socket-table8", "supertweeteval-appendix-c"]
    desiq = ["siq2-challenge-v1", "mc-letter-v1"]
    assert list(prompts) == [*tasks, "arena-judge-v1", *desiq]
    assert prompts["socket-table8"][1] == "mmsoc eval/finetune/self-improve --prompt: the prompts of 58 tasks of socket"
    assert prompts["arena-judge-v1"][1].startswith("mmsoc arena judge --prompt: ")
    assert prompts["mc-letter-v1"][1].startswith("desiq eval/finetune --prompt: options labelled A..J")
    assert list(listed(desiq_app, "prompts")) == desiq
    assert listed(desiq_app, "prompts")["mc-letter-v1"][1].startswith("options labelled A..J")
    formats = listed(mmsoc_app, "formats")
    assert list(formats) == ["rows", "socket-tsv", "supertweeteval-lines", "mcqa", "siq1", "siq2"]
    assert formats["rows"][1].startswith("mmsoc score --format: ")
    assert formats["siq1"][1].startswith("desiq ... --format: ") and formats["siq1"][1].endswith("(read only)")
    assert list(listed(desiq_app, "formats")) == ["mcqa", "siq1", "siq2"]


def test_each_metric_is_one_short_line_of_its_kinds_and_packages():
    metrics = listed(mmsoc_app, "metrics")
    assert metrics["bleu4"][1] == "kinds: ocr, generation; packages: nltk"
    assert metrics["wer"][1] == "kinds: ocr; packages: jiwer, rapidfuzz"
    # macro_f1 comes from four groups: classification and multilabel labels (own code), ste_multilabel
    # (scikit-learn), ste_ner (seqeval); OCR's token F1 is a metric of its own
    assert (
        metrics["macro_f1"][1]
        == "kinds: classification, ste_multilabel, ste_ner, multilabel; packages: scikit-learn, seqeval"
    )
    assert metrics["token_f1"][1] == "kinds: ocr; packages: scikit-learn"
    assert metrics["length"][1] == "kinds: generation; computed by mmsoc itself"
    assert all(0 < len(description) <= 100 for _, description in metrics.values())


@pytest.mark.parametrize("app", [mmsoc_app, desiq_app])
def test_an_unknown_list_is_one_line_naming_the_known_ones(app):
    result = CliRunner().invoke(app, ["list", "probe"])
    assert result.exit_code == 2
    assert result.output.startswith("error: unknown list 'probe'; nearest: probes; known: ")
    assert len(result.output.strip().splitlines()) == 1


def test_nearest_puts_the_closest_first():
    assert nearest("RAWl", ["NCAQ", "RIWI", "RIWA", "RAWI", "RAWA"]) == ["RAWI", "RAWA"]
    assert nearest("riwa", ["RIWI", "RIWA"]) == ["RIWA", "RIWI"]  # the same but for case first
    assert nearest("zzz", ["hf", "lm"]) == []
    with pytest.raises(KeyError, match=r"^\"unknown thing 'bx'; nearest: b; known: a, b\"$"):
        Registry[int]("thing", {"a": 1, "b": 2}).get("bx")


def test_an_unknown_model_prefix_names_the_backends(tmp_path):
    with pytest.raises(UsageError) as err:
        resolve("opnai:gpt-4o")
    assert str(err.value) == (
        "--model opnai:gpt-4o: unknown model backend 'opnai'; nearest: openai; "
        "known: hf, lm, openai, random, text-baseline (a hub id or a folder takes no prefix)"
    )
    folder = tmp_path / "run:3"
    folder.mkdir()
    entry, arg = resolve(str(folder))  # an existing folder whose name holds ':' is a transformers model
    assert (entry.name, arg) == ("hf", str(folder))


def test_unknown_tasks_and_metrics_name_the_nearest():
    with pytest.raises(KeyError, match=r"^\"unknown task 'hatte' in suite 'mmsoc'; nearest: hate; known: misinfo"):
        qualified("hatte")
    with pytest.raises(KeyError) as err:
        find_metric("classification", "acuracy")
    assert err.value.args[0] == (
        "unknown metric 'acuracy' of task kind 'classification'; nearest: accuracy, auc; "
        "known: accuracy, macro_precision, macro_recall, macro_f1, auc"
    )


def test_a_backend_without_free_text_answers_only_scores_options_in_desiq(tmp_path):
    # random draws from an MM-Soc task's own labels, so a desiq question has none to draw from
    args = ["eval", "--model", "random", "--answer", "generate", "--data", "sample", "--inputs", "q+a"]
    result = CliRunner().invoke(desiq_app, [*args, "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert result.output == "error: the random backend only scores options: use --answer loglik\n"
