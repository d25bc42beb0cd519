"""Every path read from data stays inside its root: traversal, absolute paths and symlinks out of the
data folder are named, skipped bad items, never opened."""

import json
from pathlib import Path

import pytest
from PIL import Image

from mmsoc.core.paths import OutsideRoot, inside
from mmsoc.tasks import get_task
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.data.hub import from_hub_rows
from mmsoc.tasks.data.registry import DATASETS


def _image(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), "red").save(path, format="PNG")
    return path


@pytest.fixture
def layout(tmp_path) -> tuple[Path, Path]:
    """(data root, a valid image outside it that no item may reach)."""
    secret = _image(tmp_path / "secret.png")
    root = tmp_path / "data"
    _image(root / "hateful_memes/img/ok.png")
    (root / "hateful_memes/img/link.png").symlink_to(secret)
    (root / "hateful_memes/img/inner.png").symlink_to(root / "hateful_memes/img/ok.png")
    return root, secret


def test_inside_resolves_within_the_root_and_refuses_the_rest(layout):
    root, secret = layout
    base = root / "hateful_memes"
    assert inside(base, "img/ok.png") == (base / "img/ok.png").resolve()
    assert inside(base, "img/../img/ok.png") == (base / "img/ok.png").resolve()
    assert inside(base, "img/inner.png") == (base / "img/ok.png").resolve()  # a link that stays inside
    for name in ("../../secret.png", str(secret), "img/link.png", "/etc/passwd", ""):
        with pytest.raises(OutsideRoot):
            inside(base, name)


def test_manifest_paths_out_of_the_root_are_skipped_and_named(layout):
    root, secret = layout
    rows = [
        {"id": 1, "img": "img/ok.png", "label": 1, "text": "fine"},
        {"id": 2, "img": "../../secret.png", "label": 0, "text": "traversal"},
        {"id": 3, "img": str(secret), "label": 0, "text": "absolute"},
        {"id": 4, "img": "img/link.png", "label": 1, "text": "symlink out"},
        {"id": 5, "img": "img/inner.png", "label": 0, "text": "symlink in"},
    ]
    manifest = root / "hateful_memes/test.jsonl"
    manifest.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = load_examples("hate", str(root))
    assert [e.id for e in result.examples] == ["1", "5"]
    assert all(str(secret) not in e.images for e in result.examples)
    problems = {p.id: p for p in result.problems}
    assert sorted(problems) == ["2", "3", "4"]
    for item_id, line in (("2", 2), ("3", 3), ("4", 4)):
        problem = problems[item_id]
        assert (problem.file, problem.line, problem.field) == (str(manifest), line, "img")
        assert problem.message.startswith("skipped: ")
    assert "leads outside" in problems["2"].message and "leads outside" in problems["4"].message
    assert "not a relative path" in problems["3"].message


def test_description_paths_may_not_leave_the_data_folder(layout):
    root, _ = layout
    (root / "descriptions").mkdir()
    (root / "descriptions/social_context_test.jsonl").write_text(
        json.dumps({"id": "a", "image": "hateful_memes/img/ok.png", "reference": "fine"})
        + "\n"
        + json.dumps({"id": "b", "image": "../secret.png", "reference": "escapes"})
        + "\n"
    )
    result = load_examples("social_context", str(root))
    assert [e.id for e in result.examples] == ["a"]
    assert [(p.id, p.line, p.field) for p in result.problems] == [("b", 2, "image")]


def test_hub_file_names_cannot_escape_the_image_cache(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("MMSOC_CACHE", str(tmp_path / "cache"))
    rows = datasets.Dataset.from_dict(
        {
            "id": ["../../../../escaped", "fine"],
            "image": [Image.new("RGB", (4, 4)), Image.new("RGB", (4, 4))],
            "text": ["a", "b"],
            "label": [1, 0],
            "split": ["test", "test"],
        }
    )
    rows = rows.cast_column("image", datasets.Image())
    hub = DATASETS.get("hateful_memes").hub
    result = from_hub_rows(get_task("hate"), hub, "Ahren09/MMSoc_HatefulMemes", rows, "test")
    assert [e.id for e in result.examples] == ["fine"]
    assert [(p.id, p.line, p.field) for p in result.problems] == [("../../../../escaped", 1, "img")]
    assert not list(tmp_path.rglob("escaped*"))
