"""provenance.json: what ran, beside config.json and outside the identity; --revision; the report's block."""

from __future__ import annotations

import json
import shutil
from importlib import metadata
from pathlib import Path

import numpy
import pytest
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.core.provenance import differences, fingerprint, model_source, read_records

SHA = "0123456789abcdef0123456789abcdef01234567"


def _eval(*args: str):
    result = CliRunner().invoke(app, ["eval", "--no-progress", "--fast-metrics", "--task", "hate", *args])
    assert result.exit_code == 0, result.output
    return result


def test_a_rerun_with_another_library_version_resumes_and_the_record_says_both(tmp_path):
    out = tmp_path / "run"
    _eval("--model", "random", "--limit", "4", "--out", str(out))
    config = (out / "config.json").read_bytes()
    (first,) = read_records(out)
    assert first["versions"]["numpy"] == numpy.__version__ and first["model"]["spec"] == "random"
    assert first["date"].endswith("+00:00") and first["python"] and first["hardware"]["device"]
    older = {"runs": [{**first, "versions": {**first["versions"], "numpy": "2.3.0"}}]}
    (out / "provenance.json").write_text(json.dumps(older))
    _eval("--model", "random", "--limit", "4", "--out", str(out))  # resumes: the identity is unchanged
    assert (out / "config.json").read_bytes() == config
    assert [r["versions"]["numpy"] for r in read_records(out)] == ["2.3.0", numpy.__version__]


def _planted_hub_cache(root: Path, model_folder: str) -> Path:
    """A hub cache holding org/tiny at commit SHA, with refs/main pointing at it (as the hub client writes it)."""
    repo = root / "models--org--tiny"
    shutil.copytree(model_folder, repo / "snapshots" / SHA)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(SHA)
    return root


def test_revision_loads_the_cached_snapshot_offline_and_records_its_commit(tmp_path, tiny_llava, monkeypatch):
    from huggingface_hub import constants

    cache = _planted_hub_cache(tmp_path / "hub", str(tiny_llava))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    out = tmp_path / "run"
    _eval("--model", "org/tiny", "--revision", "main", "--limit", "2", "--greedy", "--out", str(out))
    (entry,) = read_records(out)
    assert entry["model"]["repo"] == "org/tiny" and entry["model"]["revision"] == SHA
    assert json.loads((out / "config.json").read_text())["model"].endswith(SHA)
    assert model_source("org/tiny").revision == SHA  # read from the cache's refs, offline


def test_revision_of_a_local_folder_is_refused_in_one_line(tmp_path, tiny_llava):
    result = CliRunner().invoke(
        app, ["eval", "--task", "hate", "--model", str(tiny_llava), "--revision", "main", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2 and "is a local folder" in result.output and not (tmp_path / "r").exists()


def test_a_folder_fingerprint_follows_its_config_and_weights_not_its_place(tmp_path, tiny_llava):
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(tiny_llava, a)
    shutil.copytree(tiny_llava, b)
    assert fingerprint(a) == fingerprint(b) and model_source(str(a)).fingerprint == fingerprint(a)
    config = json.loads((b / "config.json").read_text())
    (b / "config.json").write_text(json.dumps({**config, "note": "retrained"}))
    assert fingerprint(a) != fingerprint(b)


@pytest.mark.parametrize(
    ("changed", "warned"),
    [({}, []), ({"versions": {"transformers": "5.20.2"}}, ["transformers: 5.24.0 (a), 5.20.2 (b)"])],
)
def test_differences_name_each_version_that_differs(changed, warned):
    entry = {"versions": {"transformers": "5.24.0"}, "model": {"repo": "org/m", "revision": SHA}}
    assert differences({"a": [entry], "b": [{**entry, **changed}]}) == warned


def test_differences_name_a_revision_that_differs():
    a = {"versions": {}, "model": {"repo": "org/m", "revision": SHA}}
    b = {"versions": {}, "model": {"repo": "org/m", "revision": "f" * 40}}
    assert differences({"a": [a], "b": [b]}) == [f"org/m revision: {SHA} (a), {'f' * 40} (b)"]


def test_the_report_folds_what_ran_and_warns_when_runs_differ(tmp_path):
    runs = [tmp_path / "a", tmp_path / "b"]
    for seed, run in enumerate(runs):
        _eval("--model", "random", "--limit", "4", "--seeds", str(seed), "--out", str(run))
    record = json.loads((runs[1] / "provenance.json").read_text())
    record["runs"][-1]["versions"]["transformers"] = "0.0.1"
    (runs[1] / "provenance.json").write_text(json.dumps(record))
    args = ["report", *map(str, runs), "--fast-metrics", "--bootstrap", "20", "--out", str(tmp_path / "report")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "warning: the runs compared differ in transformers" in result.output and "0.0.1" in result.output
    page = (tmp_path / "report" / "report.html").read_text()
    assert "<details><summary>what ran" in page and metadata.version("mmsoc") in page


def test_desiq_table_warns_when_compared_runs_differ(tmp_path):
    from desiq.cli import app as desiq_app

    runs = [tmp_path / "r0", tmp_path / "r1"]
    for seed, run in enumerate(runs):
        args = ["eval", "--model", "random", "--data", "sample", "--inputs", "q+a", "--condition", "original"]
        result = CliRunner().invoke(desiq_app, [*args, "--seed", str(seed), "--no-progress", "--out", str(run)])
        assert result.exit_code == 0, result.output
    same = CliRunner().invoke(desiq_app, ["table", *map(str, runs)])
    assert same.exit_code == 0 and "warning" not in same.output
    record = json.loads((runs[1] / "provenance.json").read_text())
    record["runs"][-1]["versions"]["torch"] = "0.0.1"
    (runs[1] / "provenance.json").write_text(json.dumps(record))
    differ = CliRunner().invoke(desiq_app, ["table", *map(str, runs)])
    assert differ.exit_code == 0 and "warning: the runs compared differ in torch" in differ.output
    assert "0.0.1 (r1)" in differ.output
