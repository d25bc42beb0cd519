"""Every command on a read-only or full output folder, or with an input it cannot read, ends in one line
``error: ...`` and exit status 2, and leaves no temporary file behind (issue item 11).

The commands of each condition run one after another in one process (``driver.py``: the entry points
as a console script runs them) so that the matrix pays the imports once; the commands the issue named
(``desiq perturb``, ``desiq build``, ``mmsoc score``) also run as processes of their own.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .harness import base_env, files, jsonl, run, temporaries
from .places import make_unreadable, no_space, read_only

pytestmark = pytest.mark.slow  # long end-to-end runs: `pytest -m slow`

DRIVER = Path(__file__).with_name("driver.py")


@dataclass
class Assets:
    """Inputs of every command, made by the code under test where it makes them."""

    root: Path
    llava: str
    t5: Path
    data: Path
    run_a: Path
    run_b: Path
    predictions: Path
    battles: Path
    votes: Path
    db: Path
    adapter: Path
    qa_train: Path
    qa_val: Path
    model: Path
    cache: Path


def _ok(result) -> None:
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.fixture(scope="module")
def assets(tmp_path_factory, tiny_dirs, tiny_t5, small_siq, scratch, cache) -> Assets:
    from mmsoc.arena.records import Battle, Vote, write_battles
    from mmsoc.arena.store import VoteStore
    from mmsoc.tasks.data.sample import write_sample

    root = tmp_path_factory.mktemp("assets")
    data = write_sample(root / "data")
    common = [
        "eval",
        "--task",
        "social_context",
        "--model",
        "random",
        "--limit",
        "2",
        "--no-progress",
        "--fast-metrics",
        "--data",
        str(data),
    ]
    _ok(run("mmsoc", *common, "--seeds", "0", "--out", str(root / "run_a"), cwd=scratch, cache=cache))
    _ok(run("mmsoc", *common, "--seeds", "1", "--out", str(root / "run_b"), cwd=scratch, cache=cache))
    predictions = root / "predictions.jsonl"
    predictions.write_text(
        '{"id": "a", "prediction": "hateful", "reference": "hateful"}\n'
        '{"id": "b", "prediction": "not_hateful", "reference": "hateful"}\n'
    )
    battles = [
        Battle(
            f"b{k}",
            f"i{k}",
            "a",
            "b",
            f"answer a{k}",
            f"answer b{k}",
            task="social_context",
            votes=(Vote("ann", "A", "", 1.0 + k),),
        )
        for k in range(4)
    ]
    write_battles(root / "votes.jsonl", battles)
    write_battles(root / "battles.jsonl", [Battle(**{**b.__dict__, "votes": ()}) for b in battles])
    VoteStore(root / "votes.db").add_battles(battles, root / "battles.jsonl")
    adapter = root / "adapter"
    _ok(
        run(
            "mmsoc",
            "finetune",
            "--model",
            tiny_dirs["llava"],
            "--task",
            "hate",
            "--limit",
            "2",
            "--batch-size",
            "2",
            "--max-steps",
            "1",
            "--target-modules",
            "q_proj,v_proj",
            "--no-progress",
            "--data",
            str(data),
            "--out",
            str(adapter),
            cwd=scratch,
            cache=cache,
        )
    )
    model = root / "model"
    qa_train, qa_val = small_siq / "qa" / "qa_train.json", small_siq / "qa" / "qa_val.json"
    _ok(
        run(
            "desiq",
            "fusion",
            "train",
            "--architecture",
            "ours",
            "--data",
            str(qa_train),
            "--inputs",
            "q+a",
            "--backbone",
            str(tiny_t5),
            "--epochs",
            "1",
            "--out",
            str(model),
            cwd=scratch,
            cache=cache,
        )
    )
    features = root / "features"
    for k in range(3):
        (features / "video" / f"{k}0").mkdir(parents=True)
        (features / "video" / f"{k}0" / f"{k}0abc.npy").write_bytes(b"\x93NUMPY")
    return Assets(
        root,
        tiny_dirs["llava"],
        tiny_t5,
        data,
        root / "run_a",
        root / "run_b",
        predictions,
        root / "battles.jsonl",
        root / "votes.jsonl",
        root / "votes.db",
        adapter,
        qa_train,
        qa_val,
        model,
        features,
    )


def _spoil(source: Path, dest: Path, name: str) -> Path:
    """A copy of the folder ``source`` whose file ``name`` cannot be read."""
    shutil.copytree(source, dest, symlinks=True)
    (dest / name).unlink()
    make_unreadable(dest / name)
    return dest


def unreadable_inputs(a: Assets, folder: Path) -> Assets:
    """The assets with each command's main input replaced by one that cannot be read."""
    bad = {name: make_unreadable(folder / name) for name in ("p.jsonl", "b.jsonl", "v.jsonl", "qa.json", "db")}
    data = _spoil(a.data, folder / "data", "hateful_memes/test.jsonl")
    (data / "hateful_memes" / "train.jsonl").unlink()
    make_unreadable(data / "hateful_memes" / "train.jsonl")
    return Assets(
        a.root,
        a.llava,
        a.t5,
        data,
        _spoil(a.run_a, folder / "run_a", "predictions.jsonl"),
        a.run_b,
        bad["p.jsonl"],
        bad["b.jsonl"],
        bad["v.jsonl"],
        bad["db"],
        _spoil(a.adapter, folder / "adapter", "adapter_config.json"),
        bad["qa.json"],
        bad["qa.json"],
        _spoil(a.model, folder / "model", "fusion_config.json"),
        a.cache,
    )


def commands(a: Assets, out: Path) -> dict[str, tuple[str, list[str]]]:
    """Command name -> (program, arguments) reading ``a`` and writing under ``out``."""
    return {
        "mmsoc eval": (
            "mmsoc",
            [
                "eval",
                "--task",
                "hate",
                "--model",
                "random",
                "--greedy",
                "--limit",
                "2",
                "--no-progress",
                "--data",
                str(a.data),
                "--out",
                str(out / "run"),
            ],
        ),
        "mmsoc score": (
            "mmsoc",
            [
                "score",
                "--task",
                "hate",
                "--predictions",
                str(a.predictions),
                "--out",
                str(out / "score"),
                "--fast-metrics",
                "--bootstrap",
                "0",
            ],
        ),
        "mmsoc report": (
            "mmsoc",
            ["report", str(a.run_a), "--out", str(out / "report"), "--fast-metrics", "--bootstrap", "10"],
        ),
        "mmsoc data sample": ("mmsoc", ["data", "sample", "--out", str(out / "sample")]),
        "mmsoc finetune": (
            "mmsoc",
            [
                "finetune",
                "--model",
                a.llava,
                "--task",
                "hate",
                "--limit",
                "2",
                "--batch-size",
                "2",
                "--max-steps",
                "1",
                "--no-progress",
                "--data",
                str(a.data),
                "--out",
                str(out / "adapter"),
            ],
        ),
        "mmsoc explain": (
            "mmsoc",
            [
                "explain",
                "--model",
                "random",
                "--task",
                "hate",
                "--limit",
                "2",
                "--no-progress",
                "--data",
                str(a.data),
                "--out",
                str(out / "explain"),
            ],
        ),
        "mmsoc self-improve": (
            "mmsoc",
            [
                "self-improve",
                "--model",
                "random",
                "--task",
                "hate",
                "--rounds",
                "2",
                "--limit",
                "2",
                "--no-progress",
                "--data",
                str(a.data),
                "--out",
                str(out / "improve"),
            ],
        ),
        "mmsoc merge-adapter": (
            "mmsoc",
            ["merge-adapter", "--adapter", str(a.adapter), "--model", a.llava, "--out", str(out / "merged")],
        ),
        "mmsoc arena pair": (
            "mmsoc",
            [
                "arena",
                "pair",
                "--runs",
                str(a.run_a),
                "--runs",
                str(a.run_b),
                "--names",
                "a,b",
                "--out",
                str(out / "battles.jsonl"),
            ],
        ),
        "mmsoc arena judge": (
            "mmsoc",
            [
                "arena",
                "judge",
                "--model",
                a.llava,
                "--battles",
                str(a.battles),
                "--max-new-tokens",
                "2",
                "--no-progress",
                "--out",
                str(out / "judged.jsonl"),
            ],
        ),
        "mmsoc arena rate": (
            "mmsoc",
            [
                "arena",
                "rate",
                "--votes",
                str(a.votes),
                "--min-annotators",
                "1",
                "--bootstrap",
                "10",
                "--out",
                str(out / "rate"),
            ],
        ),
        "mmsoc arena export": ("mmsoc", ["arena", "export", "--db", str(a.db), "--out", str(out / "export.jsonl")]),
        "desiq data sample": ("desiq", ["data", "sample", "--no-media", "--out", str(out / "siq")]),
        "desiq perturb": (
            "desiq",
            ["perturb", "--data", str(a.qa_train), "--condition", "RIWI", "--out", str(out / "perturbed.json")],
        ),
        "desiq build": (
            "desiq",
            ["build", "--data", str(a.qa_train), "--variant", "d", "--out", str(out / "built.json")],
        ),
        "desiq probe": (
            "desiq",
            [
                "probe",
                "--probe",
                "tfidf-linear",
                "--train",
                str(a.qa_train),
                "--eval",
                str(a.qa_val),
                "--no-tsne",
                "--no-debiased",
                "--out",
                str(out / "probe"),
            ],
        ),
        "desiq fusion train": (
            "desiq",
            [
                "fusion",
                "train",
                "--architecture",
                "ours",
                "--data",
                str(a.qa_train),
                "--inputs",
                "q+a",
                "--backbone",
                str(a.t5),
                "--epochs",
                "1",
                "--out",
                str(out / "model"),
            ],
        ),
        "desiq fusion eval": (
            "desiq",
            ["fusion", "eval", "--model", str(a.model), "--data", str(a.qa_val), "--out", str(out / "evaluated")],
        ),
        "desiq cache clear": ("desiq", ["cache", "clear", "--cache-dir", str(out / "features")]),
    }


READS_NOTHING = {"mmsoc data sample", "desiq data sample"}
ONLY_READ_ONLY = {"desiq cache clear"}
"""Deleting cache entries fails on a read-only folder only (a full one frees space, an input is not read)."""
CONDITIONS = ("read-only output", "full output", "unreadable input")


def _drive(commands_: dict[str, tuple[str, list[str]]], folder: Path, scratch: Path, cache: Path) -> dict[str, dict]:
    todo = folder / "commands.json"
    todo.write_text(json.dumps(list(commands_.values())))
    done = subprocess.run(
        [sys.executable, str(DRIVER), str(todo), str(folder / "results.json")],
        cwd=scratch,
        env=base_env(cache),
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(zip(commands_, json.loads((folder / "results.json").read_text())))


@pytest.fixture(scope="module")
def outcomes(assets, tmp_path_factory, scratch, cache) -> dict[str, dict]:
    """(condition, command) -> what the command did and which temporaries it left."""
    found = {}
    folder = tmp_path_factory.mktemp("readonly")
    shutil.copytree(assets.cache, folder / "features")
    with read_only(folder):
        for name, result in _drive(commands(assets, folder), tmp_path_factory.mktemp("driver"), scratch, cache).items():
            found[CONDITIONS[0], name] = {**result, "left": temporaries(folder)}
    with no_space(tmp_path_factory.mktemp("nospace")) as folder:
        todo = {k: v for k, v in commands(assets, folder).items() if k not in ONLY_READ_ONLY}
        for name, result in _drive(todo, tmp_path_factory.mktemp("driver"), scratch, cache).items():
            found[CONDITIONS[1], name] = {**result, "left": temporaries(folder)}
    bad = unreadable_inputs(assets, tmp_path_factory.mktemp("unreadable"))
    out = tmp_path_factory.mktemp("out")
    todo = {k: v for k, v in commands(bad, out).items() if k not in READS_NOTHING | ONLY_READ_ONLY}
    for name, result in _drive(todo, tmp_path_factory.mktemp("driver"), scratch, cache).items():
        found[CONDITIONS[2], name] = {**result, "left": temporaries(out)}
    return found


NAMES = (
    "mmsoc eval",
    "mmsoc score",
    "mmsoc report",
    "mmsoc data sample",
    "mmsoc finetune",
    "mmsoc explain",
    "mmsoc self-improve",
    "mmsoc merge-adapter",
    "mmsoc arena pair",
    "mmsoc arena judge",
    "mmsoc arena rate",
    "mmsoc arena export",
    "desiq data sample",
    "desiq perturb",
    "desiq build",
    "desiq probe",
    "desiq fusion train",
    "desiq fusion eval",
    "desiq cache clear",
)
CASES = [
    (c, name)
    for c in CONDITIONS
    for name in NAMES
    if not (c == CONDITIONS[2] and name in READS_NOTHING) and not (c != CONDITIONS[0] and name in ONLY_READ_ONLY)
]


@pytest.mark.parametrize("condition, name", CASES, ids=[f"{c}: {n}" for c, n in CASES])
def test_one_error_line_exit_2_and_no_temporaries(outcomes, condition, name):
    outcome = outcomes[condition, name]
    lines = [line for line in outcome["stderr"].splitlines() if line.strip()]
    assert outcome["returncode"] == 2, f"exit status {outcome['returncode']}:\n{outcome['stderr'][-3000:]}"
    assert "Traceback" not in outcome["stderr"], outcome["stderr"][-3000:]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], outcome["stderr"][-3000:]
    assert not outcome["left"], outcome["left"]


@pytest.mark.parametrize(
    "prog, args",
    [
        ("desiq", ["perturb", "--data", "{qa}", "--condition", "RIWI", "--out", "{out}/perturbed.json"]),
        ("desiq", ["build", "--data", "{qa}", "--variant", "d", "--out", "{out}/built.json"]),
        (
            "mmsoc",
            ["score", "--task", "hate", "--predictions", "{predictions}", "--out", "{out}/score", "--fast-metrics"],
        ),
    ],
    ids=["desiq perturb", "desiq build", "mmsoc score"],
)
def test_named_commands_on_a_full_and_a_read_only_folder_as_processes(prog, args, small_siq, scratch, cache, tmp_path):
    """A process of its own: its real stderr ends in one line naming the file it could not write."""
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text('{"id": "a", "prediction": "hateful", "reference": "hateful"}\n')
    (tmp_path / "readonly").mkdir()
    for place in (no_space(tmp_path / "full"), read_only(tmp_path / "readonly")):
        with place as out:
            filled = [
                arg.format(qa=small_siq / "qa" / "qa_train.json", out=out, predictions=predictions) for arg in args
            ]
            before = files(out)
            line = run(prog, *filled, cwd=scratch, cache=cache).error_line()
            assert str(out) in line and ("No space left" in line or "Read-only" in line or "Permission" in line)
            assert files(out) == before and not temporaries(out)


def test_an_unreadable_input_is_named(small_siq, scratch, cache, tmp_path):
    bad = make_unreadable(tmp_path / "qa.json")
    line = run(
        "desiq",
        "build",
        "--data",
        str(bad),
        "--variant",
        "d",
        "--out",
        str(tmp_path / "b.json"),
        cwd=scratch,
        cache=cache,
    ).error_line()
    assert str(bad) in line
    assert not (tmp_path / "b.json").exists() and not jsonl(tmp_path / "b.json")
