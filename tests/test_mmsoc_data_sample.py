"""The embedded sample: layout, sizes, determinism, labels carried by the picture (not the text), the cache,
and the CLI."""

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFont
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.tasks import task_ids
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.data.sample import N_TEST, N_TRAIN, write_sample
from mmsoc.tasks.registry import TASKS

CLASSIFICATION = [t for t, spec in TASKS.items() if spec.kind == "classification"]


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def sample_dir(tmp_path_factory) -> Path:
    return write_sample(tmp_path_factory.mktemp("s") / "sample")


def test_every_task_has_train_and_test(sample_dir):
    for task in task_ids():
        sizes = {}
        for split in ("train", "test"):
            result = load_examples(task, str(sample_dir), split)
            assert result.problems == []
            assert all(len(e.images) == 1 and Path(e.images[0]).is_absolute() for e in result.examples)
            assert {e.meta["split"] for e in result.examples} == {split}
            sizes[split] = len(result.examples)
        factor = 2 if task == "ocr" else 1
        assert sizes == {"train": N_TRAIN * factor, "test": N_TEST * factor}, task
        if TASKS[task].kind == "classification":
            labels = {e.label for e in load_examples(task, str(sample_dir), "test").examples}
            assert labels == set(TASKS[task].labels), task


def test_sample_bytes_are_deterministic(sample_dir, tmp_path):
    again = write_sample(tmp_path / "again")
    first, second = _digest(sample_dir), _digest(again)
    assert len(first) > 300 and first == second


def test_image_sizes_and_ocr_captions_fit(sample_dir):
    font = ImageFont.load_default(size=12)
    for example in load_examples("ocr", str(sample_dir), "test").examples:
        with Image.open(example.images[0]) as image:
            assert image.size == (160, 160)
            width, height = image.size
        words, lines, line = example.label.split(), [], ""
        for word in words:  # independent greedy wrap, checked against the image bounds
            if line and font.getlength(f"{line} {word}") > width - 8:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        lines.append(line)
        assert max(font.getlength(x) for x in lines) <= width - 8
        assert 4 + len(lines) * 15 <= height // 2, example.label


def test_text_alone_is_at_chance_by_construction(sample_dir):
    """Every text of a classification task is shared by items whose labels are balanced, so any prediction
    from the text alone is right on exactly one item in len(labels); a TF-IDF classifier stays at chance."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score

    for task in CLASSIFICATION:
        train = load_examples(task, str(sample_dir), "train").examples
        test = load_examples(task, str(sample_dir), "test").examples
        by_text: dict[str, Counter] = {}
        for example in test:
            by_text.setdefault(example.text, Counter())[example.label] += 1
        for text, counts in by_text.items():
            assert set(counts) == set(TASKS[task].labels) and len(set(counts.values())) == 1, (task, text, counts)
        vectorizer = TfidfVectorizer(ngram_range=(1, 2))
        model = LogisticRegression(C=10, max_iter=1000).fit(
            vectorizer.fit_transform([e.text for e in train]), [e.label for e in train]
        )
        predicted = model.predict(vectorizer.transform([e.text for e in test]))
        assert f1_score([e.label for e in test], predicted, average="macro") <= 1 / len(TASKS[task].labels) + 1e-9, task


def _pixels(example) -> np.ndarray:
    with Image.open(example.images[0]) as image:
        return np.asarray(image.convert("RGB").resize((16, 16), Image.BILINEAR), dtype=np.float64).ravel() / 255


def test_the_picture_carries_every_classification_label(sample_dir):
    """A linear classifier on 16x16 thumbnails of the pictures (no text) learns every classification task."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score

    for task in CLASSIFICATION:
        train = load_examples(task, str(sample_dir), "train").examples
        test = load_examples(task, str(sample_dir), "test").examples
        model = LogisticRegression(C=10, max_iter=5000).fit(
            np.stack([_pixels(e) for e in train]), [e.label for e in train]
        )
        predicted = model.predict(np.stack([_pixels(e) for e in test]))
        assert f1_score([e.label for e in test], predicted, average="macro") >= 0.85, task


def test_descriptions_match_the_picture(sample_dir):
    """The image-description reference names the background colour the picture is mostly painted in, the
    symbol that carries the hate label, and the caption that OCR reads."""
    from mmsoc.tasks.data.draw import COLORS

    for split in ("train", "test"):
        labels = {e.id: e.label for e in load_examples("hate", str(sample_dir), split).examples}
        captions = {
            e.id.split("/")[1]: e.label
            for e in load_examples("ocr", str(sample_dir), split).examples
            if e.id.startswith("hateful_memes/")
        }
        for example in load_examples("image_description", str(sample_dir), split).examples:
            reference = example.label
            color = next(name for name in COLORS if f" {name} " in reference.split(" on ")[-1])
            with Image.open(example.images[0]) as image:
                pixels = np.asarray(image.convert("RGB")).reshape(-1, 3)
            assert (pixels == COLORS[color]).all(axis=1).mean() > 0.2, reference
            assert ("crossed out" in reference) == (labels[example.id] == "hateful"), reference
            assert reference.endswith(f'reads "{captions[example.id]}".'), reference


def test_tagging_topics_are_learnable(sample_dir):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import MultiLabelBinarizer

    train = load_examples("tagging", str(sample_dir), "train").examples
    test = load_examples("tagging", str(sample_dir), "test").examples
    binarizer = MultiLabelBinarizer(classes=TASKS["tagging"].labels)
    vectorizer = TfidfVectorizer()
    y_train = binarizer.fit_transform([e.label for e in train])
    seen = y_train.any(axis=0)
    model = OneVsRestClassifier(LogisticRegression(C=10, max_iter=1000))
    model.fit(vectorizer.fit_transform([e.text for e in train]), y_train[:, seen])
    predicted = np.zeros((len(test), len(binarizer.classes_)), dtype=int)
    predicted[:, seen] = model.predict(vectorizer.transform([e.text for e in test]))
    truth = binarizer.transform([e.label for e in test])
    jaccard = np.mean((predicted & truth).sum(1) / np.maximum((predicted | truth).sum(1), 1))
    assert jaccard > 0.5


def test_sample_cache_is_written_once(tmp_path, monkeypatch):
    monkeypatch.setenv("MMSOC_CACHE", str(tmp_path))
    first = load_examples("hate", "sample", limit=3)
    folders = [p for p in tmp_path.iterdir()]
    assert len(folders) == 1 and folders[0].name.startswith("sample-")
    stamp = (folders[0] / "hateful_memes/test.jsonl").stat().st_mtime_ns
    second = load_examples("hate", "sample", limit=3)
    assert second.examples == first.examples and len(first.examples) == 3
    assert list(tmp_path.iterdir()) == folders
    assert (folders[0] / "hateful_memes/test.jsonl").stat().st_mtime_ns == stamp


def test_cli_sample_tasks_and_check(tmp_path):
    runner = CliRunner()
    out = tmp_path / "sample"
    result = runner.invoke(app, ["data", "sample", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "memotion/labels.csv").is_file() and (out / "fakenewsnet/gossip_test.csv").is_file()
    again = runner.invoke(app, ["data", "sample", "--out", str(out)], env={"COLUMNS": "200"})
    assert again.exit_code != 0 and "not empty" in again.output
    listing = runner.invoke(app, ["tasks"], env={"COLUMNS": "200"})
    assert listing.exit_code == 0 and all(task in listing.output for task in task_ids())
    (out / "hateful_memes/img/10001.png").unlink()
    check = runner.invoke(
        app, ["data", "check", "--data", str(out), "--split", "train", "--task", "hate"], env={"COLUMNS": "200"}
    )
    assert check.exit_code == 0 and "image not found" in check.output
    for command in (["data", "sample"], ["data", "check"], ["tasks"]):
        help_text = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"}).output
        assert "Usage" in help_text
