"""Plugins through the ``mmsoc.plugins`` entry points: the example package in tests/plugin_package installed
as a distribution, listed, in help texts and run end to end; and the one-line errors of bad plugins."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mmsoc.core.plugins import PluginError, plugins
from mmsoc.core.registry import Registry

PACKAGE = Path(__file__).parent / "plugin_package"
BIN = Path(sys.executable).parent
ORIGIN = "plugin mmsoc-echo (mmsoc_echo)"
QUESTIONS = [
    {"ask": "Why does the man laugh?", "picks": ["the man heard a joke", "it rains"], "right": 0, "clip": "v1"},
    {"ask": "Where is the dog?", "picks": ["a cat", "the dog is on the sofa"], "right": 1, "clip": "v1"},
    {"ask": "What colour is the car?", "picks": ["the car is red", "loud"], "right": 0, "clip": "v2"},
    {"ask": "Who opens the door?", "picks": ["nobody", "the woman opens the door"], "right": 1, "clip": "v2"},
]
"""Questions in the plugin's format; in each the correct option is the longer one."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example plugin installed (offline, from a copy of its folder) into a folder of its own."""
    root = tmp_path_factory.mktemp("plugin")
    source = shutil.copytree(PACKAGE, root / "source")
    target = root / "site"
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*command, "--target", str(target), str(source)], check=True, capture_output=True)
    return target


def run(site: Path, command: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "COLUMNS": "2000", "NO_COLOR": "1"}
    return subprocess.run([str(BIN / command), *map(str, args)], capture_output=True, text=True, env=env)


def rows(output: str) -> dict[str, str]:
    """Name -> the rest of its line, of a ``list`` output."""
    return {line.split()[0]: line.split(None, 1)[1] for line in output.splitlines()[1:]}


@pytest.mark.parametrize(
    ("command", "kind", "name"),
    [
        ("mmsoc", "models", "echo"),
        ("desiq", "models", "echo"),
        ("mmsoc", "metrics", "first_label_share"),
        ("desiq", "formats", "echo-jsonl"),
        ("desiq", "perturbations", "RIWA_SAME"),
        ("desiq", "conditions", "RIWA_SAME"),
        ("mmsoc", "perturbations", "RIWA_SAME"),
    ],
)
def test_plugin_entries_are_listed_with_their_origin(site, command, kind, name):
    listed = run(site, command, "list", kind)
    assert listed.returncode == 0, listed.stderr
    assert rows(listed.stdout)[name].startswith(ORIGIN)


def test_the_plugin_backend_is_in_the_model_help(site):
    assert "echo:TEXT" in run(site, "mmsoc", "eval", "--help").stdout


def test_the_plugin_perturbation_is_in_the_condition_help(site):
    assert "RIWA_SAME" in run(site, "desiq", "perturb", "--help").stdout


def test_mmsoc_eval_with_the_plugin_backend_reports_the_plugin_metric(site, tmp_path):
    # echo:yes answers "yes" to every item: hate's first label (hateful) on all three
    done = run(site, "mmsoc", "eval", "--model", "echo:yes", "--task", "hate", "--data", "sample", "--limit", "3",
               "--out", tmp_path / "run")  # fmt: skip
    assert done.returncode == 0, done.stderr
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())["hate"]
    assert metrics["n"] == 3 and metrics["metrics"]["first_label_share"] == 1.0


def test_desiq_perturb_reads_and_writes_the_plugin_format(site, tmp_path):
    data = tmp_path / "questions.jsonl"
    data.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    done = run(site, "desiq", "perturb", "--data", data, "--condition", "RIWA_SAME", "--out", tmp_path / "out.jsonl")
    assert done.returncode == 0, done.stderr
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    # each video holds two questions: each one's incorrect option becomes the other's correct answer
    assert [row["picks"] for row in written] == [
        ["the man heard a joke", "the dog is on the sofa"],
        ["the man heard a joke", "the dog is on the sofa"],
        ["the car is red", "the woman opens the door"],
        ["the car is red", "the woman opens the door"],
    ]
    assert [row["tags"] for row in written] == [["corr", "riwa_same"], ["riwa_same", "corr"]] * 2


def test_desiq_eval_with_the_plugin_backend_and_format(site, tmp_path):
    data = tmp_path / "questions.jsonl"
    data.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    done = run(site, "desiq", "eval", "--model", "echo", "--data", data, "--inputs", "q+a",
               "--condition", "original,RIWA_SAME", "--out", tmp_path / "run")  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "run" / "metrics.json").read_text())["results"]
    accuracy = {r["condition"]: r["accuracy"] for r in results if r["config"] == "A2"}
    # the prompt holds every option, so echo picks the option of most words: the correct one as released;
    # under RIWA_SAME the first question of each video has the longer option wrong
    assert accuracy == {"original": 1.0, "RIWA_SAME": 0.5}


def fake_plugin(root: Path, distribution: str, module: str, source: str) -> None:
    """An installed distribution (its dist-info folder) whose entry point names ``module``."""
    info = root / f"{distribution.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[mmsoc.plugins]\n{module} = {module}\n")
    (root / f"{module}.py").write_text(source)


@pytest.fixture
def plugin_path(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.cache_clear()
    yield tmp_path
    plugins.cache_clear()
    for name in [m for m in sys.modules if m.startswith("fake_")]:
        del sys.modules[name]


def perturbations_registry() -> Registry[object]:
    from desiq.perturbations import PERTURBATIONS, _collect

    registry: Registry[object] = Registry("perturbation", {name: "built" for name in PERTURBATIONS.names()[:5]})
    registry.plugins(_collect)
    return registry


RECORD = "from desiq.perturbations import PERTURBATIONS\nPERTURBATION = PERTURBATIONS['{name}']\n"


def test_a_plugin_name_taken_by_a_built_in_is_one_error(plugin_path):
    fake_plugin(plugin_path, "fake-clash", "fake_clash", RECORD.format(name="RIWA"))
    with pytest.raises(PluginError) as err:
        perturbations_registry().names()
    assert str(err.value) == "plugin fake-clash (fake_clash) declares perturbation 'RIWA', which is built in"


def test_a_plugin_name_taken_by_another_plugin_is_one_error(plugin_path):
    renamed = "from dataclasses import replace\n" + RECORD.format(name="RIWI").replace("= P", "= replace(P")
    for distribution, module in (("fake-one", "fake_one"), ("fake-two", "fake_two")):
        fake_plugin(plugin_path, distribution, module, renamed.replace("']", "'], name='SAME')"))
    with pytest.raises(PluginError) as err:
        perturbations_registry().names()
    assert str(err.value) == (
        "plugin fake-two (fake_two) declares perturbation 'SAME', which is declared by plugin fake-one (fake_one)"
    )


def test_a_plugin_that_declares_nothing_is_one_error(plugin_path):
    fake_plugin(plugin_path, "fake-empty", "fake_empty", "VALUE = 1\n")
    with pytest.raises(PluginError) as err:
        plugins()
    assert str(err.value) == (
        "plugin fake-empty (fake_empty) declares none of MODEL, TASKS, DATASET, KIND, GROUP, FORMAT, PROBE, "
        "PERTURBATION, PERTURBATIONS"
    )


def test_a_plugin_that_fails_to_import_is_one_error_naming_it(plugin_path):
    fake_plugin(plugin_path, "fake-broken", "fake_broken", "raise RuntimeError('no weights here')\n")
    with pytest.raises(PluginError) as err:
        plugins()
    assert str(err.value) == "plugin fake-broken (fake_broken) cannot be imported: RuntimeError: no weights here"


def test_help_texts_name_the_built_in_entries_beside_a_broken_plugin(plugin_path):
    fake_plugin(plugin_path, "fake-empty", "fake_empty", "VALUE = 1\n")
    registry = perturbations_registry()
    assert [(name, origin) for name, _, origin in registry.known()][:2] == [("NCAQ", "built in"), ("RIWI", "built in")]
    with pytest.raises(PluginError):  # still reported when the registry is used
        registry.names()


def test_a_broken_plugin_ends_a_command_in_one_line(tmp_path):
    fake_plugin(tmp_path, "fake-empty", "fake_empty", "VALUE = 1\n")
    done = run(tmp_path, "mmsoc", "list", "models")
    assert done.returncode == 2
    assert done.stderr == (
        "error: plugin fake-empty (fake_empty) declares none of MODEL, TASKS, DATASET, KIND, GROUP, FORMAT, PROBE, "
        "PERTURBATION, PERTURBATIONS\n"
    )
