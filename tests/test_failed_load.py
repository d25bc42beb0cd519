"""A model that cannot be loaded ends ``mmsoc eval`` and ``desiq eval`` with one line, exit status 2, and
leaves no run folder behind; a folder that was there before is left exactly as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from desiq.cli import app as desiq_app
from desiq.sample import write_sample
from mmsoc.cli import app as mmsoc_app
from mmsoc.core.runfolder import RunFolder

MISSING = "nonexistent-org/no-such-model"


@pytest.fixture
def offline(monkeypatch):
    """The hub unreachable at once (no retries), as on a machine without network (``HF_HUB_OFFLINE=1``)."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


@pytest.fixture(scope="module")
def weightless(tiny_llava, tmp_path_factory) -> Path:
    """The tiny LLaVA's config and processor files without its weights: described, never loaded."""
    folder = tmp_path_factory.mktemp("weightless") / "llava"
    shutil.copytree(tiny_llava, folder, ignore=shutil.ignore_patterns("*.safetensors"))
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_eval_of_a_model_id_that_does_not_exist_leaves_no_folder(offline, tmp_path):
    mmsoc_out, desiq_out = tmp_path / "runs" / "new" / "run", tmp_path / "desiq_run"
    mmsoc = CliRunner().invoke(
        mmsoc_app, ["eval", "--task", "hate", "--model", MISSING, "--limit", "2", "--out", str(mmsoc_out)]
    )
    sample = write_sample(tmp_path / "sample")
    desiq = CliRunner().invoke(
        desiq_app, ["eval", "--model", MISSING, "--data", str(sample), "--inputs", "q+a", "--out", str(desiq_out)]
    )
    for result in (mmsoc, desiq):
        assert result.exit_code == 2, result.output
        (line,) = [line for line in result.output.strip().splitlines() if not line.startswith("read ")]
        assert line.startswith(f"error: cannot load model '{MISSING}'")
    assert not (tmp_path / "runs").exists() and not desiq_out.exists()  # nor the parents mmsoc eval made


def test_a_model_whose_weights_cannot_be_loaded_leaves_no_folder_in_either_command(weightless, tmp_path):
    mmsoc_out, desiq_out = tmp_path / "mmsoc" / "run", tmp_path / "desiq_run"
    mmsoc = CliRunner().invoke(
        mmsoc_app, ["eval", "--task", "hate", "--model", str(weightless), "--limit", "1", "--out", str(mmsoc_out)]
    )
    sample = write_sample(tmp_path / "sample")
    desiq = CliRunner().invoke(
        desiq_app,
        ["eval", "--model", str(weightless), "--data", str(sample), "--inputs", "q+a", "--out", str(desiq_out)],
    )
    for result in (mmsoc, desiq):
        assert result.exit_code == 2, result.output
        (line,) = [line for line in result.output.strip().splitlines() if not line.startswith("read ")]
        assert line.startswith(f"error: cannot load model '{weightless}'")
    assert not (tmp_path / "mmsoc").exists() and not desiq_out.exists()


def test_a_folder_that_was_there_is_left_as_it_was(weightless, tiny_llava, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me\n")
    args = ["eval", "--task", "hate", "--model", str(weightless), "--limit", "1", "--no-progress", "--fast-metrics"]
    result = CliRunner().invoke(mmsoc_app, [*args, "--out", str(mine)])
    assert result.exit_code == 2 and snapshot(mine) == {"notes.txt": b"keep me\n"}
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]

    model = tmp_path / "model"  # a finished run, then its model loses its weights and the run is extended
    shutil.copytree(tiny_llava, model)
    run = tmp_path / "run"
    good = ["eval", "--task", "hate", "--model", str(model), "--greedy", "--no-progress", "--fast-metrics"]
    result = CliRunner().invoke(mmsoc_app, [*good, "--max-new-tokens", "2", "--limit", "1", "--out", str(run)])
    assert result.exit_code == 0, result.output
    before = snapshot(run)
    for weights in model.glob("*.safetensors"):
        weights.unlink()
    result = CliRunner().invoke(mmsoc_app, [*good, "--max-new-tokens", "2", "--limit", "2", "--out", str(run)])
    assert result.exit_code == 2 and "cannot load model" in result.output
    assert snapshot(run) == before and (run / ".lock").exists()


def test_only_what_the_lock_made_is_removed_and_only_before_config_json(tmp_path):
    folder = RunFolder(tmp_path / "a" / "b")
    with pytest.raises(OSError, match="model"), folder.lock():
        raise OSError("the model could not be loaded")
    assert not (tmp_path / "a").exists()
    with pytest.raises(RuntimeError), folder.lock():
        folder.claim({"model": "m"})
        raise RuntimeError("failed while generating")
    assert sorted(p.name for p in folder.path.iterdir()) == [".lock", "config.json", "provenance.json"]  # resumable
    other = RunFolder(tmp_path / "c")
    with pytest.raises(OSError), other.lock():
        (other.path / "written.txt").write_text("by someone else")
        raise OSError("the model could not be loaded")
    assert sorted(p.name for p in other.path.iterdir()) == ["written.txt"]  # not empty: the folder stays
