"""A ``--model`` value a command cannot use is refused in one line, exit status 2, before anything is
loaded or fetched: a backend given to a command that trains a transformers checkpoint, a near miss of a
backend's name, and a backend that cannot answer a multiple-choice question at all. Hub ids without an
owner (``gpt2``) still name transformers checkpoints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from desiq.cli import app as desiq_app
from mmsoc.core.io import UsageError
from mmsoc.models.registry import BACKENDS, checkpoint_of, model_help, resolve

CHILD = """
import json, sys
command, args, loaded_file = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
sys.argv = [command, *args]
try:
    __import__(f"{command}.cli", fromlist=["main"]).main()
finally:
    heavy = [name for name in ("torch", "transformers", "peft") if name in sys.modules]
    open(loaded_file, "w").write(",".join(heavy))
"""

NOT_A_CHECKPOINT = "a transformers checkpoint (a hub id or folder, or hf:ID), not the {} backend"
CASES = [
    (
        "mmsoc",
        ["finetune", "--model", "openai:x", "--out", "{out}"],
        "--model openai:x: mmsoc finetune trains " + NOT_A_CHECKPOINT.format("openai"),
    ),
    (
        "mmsoc",
        ["finetune", "--model", "random", "--out", "{out}"],
        "--model random: mmsoc finetune trains " + NOT_A_CHECKPOINT.format("random"),
    ),
    (  # mmsoc finetune loads image-text-to-text / multimodal LM classes only, never a plain text LM
        "mmsoc",
        ["finetune", "--model", "lm:gpt2", "--out", "{out}"],
        "--model lm:gpt2: mmsoc finetune trains " + NOT_A_CHECKPOINT.format("lm"),
    ),
    (
        "mmsoc",
        ["merge-adapter", "--model", "random", "--adapter", "{out}", "--out", "{out}/merged"],
        "--model random: mmsoc merge-adapter merges an adapter into " + NOT_A_CHECKPOINT.format("random"),
    ),
    (
        "mmsoc",
        ["merge-adapter", "--model", "foo:bar", "--adapter", "{out}", "--out", "{out}/merged"],
        "--model foo:bar: unknown model backend 'foo'; known: hf, lm, openai, random, text-baseline "
        "(a hub id or a folder takes no prefix)",
    ),
    (
        "desiq",
        ["finetune", "--model", "random", "--data", "sample", "--out", "{out}"],
        "--model random: desiq finetune trains " + NOT_A_CHECKPOINT.format("random"),
    ),
    (
        "mmsoc",
        ["eval", "--model", "rando", "--task", "hate", "--data", "sample", "--out", "{out}"],
        "--model rando: no backend or folder of that name; nearest backend: random (a hub id is OWNER/NAME)",
    ),
    (
        "mmsoc",
        ["eval", "--model", "text-baselin", "--task", "hate", "--data", "sample", "--out", "{out}"],
        "--model text-baselin: no backend or folder of that name; nearest backend: text-baseline "
        "(a hub id is OWNER/NAME)",
    ),
    (  # text-baseline answers an MM-Soc task's labels: it neither scores options nor writes free answers
        "desiq",
        ["eval", "--model", "text-baseline", "--data", "sample", "--inputs", "q+a", "--out", "{out}"],
        "--model text-baseline: the text-baseline backend can neither score a question's options nor write "
        "an answer to it (it answers only an MM-Soc task's own labels)",
    ),
]


@pytest.mark.parametrize(("command", "args", "message"), CASES, ids=[" ".join(c[1][:3]) for c in CASES])
def test_an_unusable_model_is_one_line_before_anything_loads(command, args, message, tmp_path):
    out, loaded = tmp_path / "out", tmp_path / "loaded"
    argv = [arg.format(out=out) for arg in args]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", CHILD, command, json.dumps(argv), str(loaded)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stdout + result.stderr == f"error: {message}\n"
    assert loaded.read_text() == ""  # neither torch, transformers nor peft was imported
    assert not out.exists()


@pytest.mark.parametrize("hub_id", ["gpt2", "t5-small", "bert-base-uncased", "openai-gpt", "distilgpt2"])
def test_a_hub_id_without_an_owner_is_still_a_transformers_checkpoint(hub_id):
    entry, arg = resolve(hub_id)
    assert (entry.name, arg) == ("hf", hub_id)
    assert checkpoint_of(hub_id, "trains") == hub_id
    assert checkpoint_of(f"hf:{hub_id}", "trains") == hub_id


def test_a_folder_named_like_a_near_miss_is_a_checkpoint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rando").mkdir()
    assert resolve("rando")[0].name == "hf"
    (tmp_path / "rando").rmdir()
    with pytest.raises(UsageError, match=r"^--model rando: no backend or folder of that name"):
        resolve("rando")


def test_an_empty_hf_checkpoint_is_refused():
    with pytest.raises(UsageError, match=r"^--model hf:: name the checkpoint \(a hub id or folder, or hf:ID\)$"):
        checkpoint_of("hf:", "mmsoc finetune trains")


def test_desiq_eval_model_help_lists_every_backend():
    command = typer.main.get_command(desiq_app).commands["eval"]  # type: ignore[attr-defined]
    (option,) = [p for p in command.params if p.name == "model"]
    assert option.help == model_help()
    for spelling in ("random", "lm:ID", "openai:NAME", "text-baseline"):
        assert spelling in option.help


def test_desiq_finetune_model_help_names_a_checkpoint():
    command = typer.main.get_command(desiq_app).commands["finetune"]  # type: ignore[attr-defined]
    (option,) = [p for p in command.params if p.name == "model"]
    assert option.help == "Hub id or folder (or hf:ID) of the base model."


def test_the_backend_table_says_which_backends_are_checkpoints():
    # lm:ID loads a text LM that mmsoc finetune's loader (image-text-to-text or multimodal LM) cannot load
    assert {name for name, entry in BACKENDS.items() if entry.checkpoint} == {"hf"}


def test_near_misses_are_judged_on_the_bare_value_only():
    assert resolve(str(Path("owner") / "rando")) == (resolve("gpt2")[0], "owner/rando")
