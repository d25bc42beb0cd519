"""Loaders on small files in each real format, written here: labels, image problems, bad rows."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from mmsoc.data import load_examples
from mmsoc.core.io import InputError

MEMOTION_HEADER = ["", "image_name", "text_ocr", "text_corrected", "humour", "sarcasm", "offensive",
                   "motivational", "overall_sentiment", "split"]
MEMOTION_ROWS = [
    ["0", "image_1.jpg", "LOOK AT ME", "look at me", "hilarious", "general", "not_offensive", "motivational", "very_positive", "train"],
    ["1", "image_2.png", "ME WHEN", "", "not_funny", "not_sarcastic", "very_offensive", "not_motivational", "neutral", "test"],
    ["2", "image_3.jpg", "so true", "so true", "very_funny", "twisted_meaning", "slight", "not_motivational", "very_negative", "test"],
    ["3", "image_4.jpg", "missing picture", "missing picture", "funny", "very_twisted", "hateful_offensive", "motivational", "negative", "test"],
]


def _image(path: Path, color: str = "red", fmt: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (16, 12), color).save(path, format=fmt)


def _jsonl(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))


def _csv(path: Path, header: list, rows: list) -> None:
    import csv

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mmsoc_data")
    hm = root / "hateful_memes"
    _image(hm / "img/01235.png", fmt="PNG")
    (hm / "img/01236.png").write_bytes(b"this is not a png")
    _jsonl(hm / "test.jsonl", [
        {"id": 1235, "img": "img/01235.png", "label": 1, "text": "look how many people love you"},
        {"id": 1236, "img": "img/01236.png", "label": 0, "text": "a corrupt image"},
        {"id": 1237, "img": "img/01237.png", "label": 0, "text": "a missing image"},
    ])
    mem = root / "memotion"
    for name in ("image_1.jpg", "image_3.jpg"):
        _image(mem / "images" / name, fmt="JPEG")
    _image(mem / "images/image_2.png", fmt="PNG")
    _csv(mem / "labels.csv", MEMOTION_HEADER, MEMOTION_ROWS)
    fnn = root / "fakenewsnet"
    _image(fnn / "images/politi_test/a.jpg", fmt="JPEG")
    _image(fnn / "images/politi_test/b.jpg", fmt="JPEG")
    _csv(fnn / "politi_test.csv", ["", "content", "image", "label"],
         [["0", "Senator caught in secret deal, insiders say", "a.jpg", "0"],
          ["1", "Senate passes budget after debate", "b.jpg", "1"]])
    yt = root / "youtube2000"
    _image(yt / "thumbnails/abc.jpg", fmt="JPEG")
    _jsonl(yt / "test.jsonl", [
        {"id": "abc", "title": "Final Set Highlights", "description": "tennis final", "thumbnail": "thumbnails/abc.jpg",
         "topics": ["https://en.wikipedia.org/wiki/Tennis", "https://en.wikipedia.org/wiki/Sport"]},
        {"id": "def", "title": "Block Party", "description": "", "thumbnail": "thumbnails/def.jpg",
         "topics": "hip_hop_music, music"},
    ])
    _jsonl(root / "descriptions/social_context_test.jsonl", [
        {"id": "1235", "image": "hateful_memes/img/01235.png", "reference": "A friendly meme.", "text": "look"},
    ])
    return root


def test_hateful_memes_labels_and_image_problems(data_dir):
    result = load_examples("hate", str(data_dir))
    assert [(e.id, e.label) for e in result.examples] == [("1235", "hateful"), ("1236", "not_hateful"), ("1237", "not_hateful")]
    first = result.examples[0]
    assert first.images == (str((data_dir / "hateful_memes/img/01235.png").resolve()),)
    assert os.path.isabs(first.images[0]) and first.text == "look how many people love you"
    assert [e.images for e in result.examples[1:]] == [(), ()]
    problems = {p.id: p for p in result.problems}
    assert set(problems) == {"1236", "1237"}
    assert problems["1236"].field == "img" and "unreadable" in problems["1236"].message
    assert problems["1237"].line == 3 and "not found" in problems["1237"].message
    assert problems["1237"].file == str(data_dir / "hateful_memes/test.jsonl")


def test_memotion_csv_label_maps_and_split_column(data_dir):
    expected = {"humor": ["not_humorous", "humorous", "humorous"],
                "sarcasm": ["not_sarcastic", "sarcastic", "sarcastic"],
                "offensive": ["offensive", "offensive", "offensive"],
                "sentiment": ["neutral", "negative", "negative"]}
    for task, labels in expected.items():
        result = load_examples(task, str(data_dir), "test")
        assert [e.id for e in result.examples] == ["image_2.png", "image_3.jpg", "image_4.jpg"]
        assert [e.label for e in result.examples] == labels
        assert [(p.id, p.field, p.line) for p in result.problems] == [("image_4.jpg", "image_name", 5)]
    train = load_examples("humor", str(data_dir), "train").examples
    assert [(e.id, e.label, e.text) for e in train] == [("image_1.jpg", "humorous", "look at me")]
    # an empty text_corrected falls back to text_ocr
    assert load_examples("humor", str(data_dir)).examples[0].text == "ME WHEN"


def test_memotion_xlsx_without_split_column(tmp_path):
    from openpyxl import Workbook

    mem = tmp_path / "memotion"
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(MEMOTION_HEADER[:-1])
    names = [f"image_{i}.jpg" for i in range(60)]
    for i, name in enumerate(names):
        sheet.append([i, name, "t", f"text {i}", "funny", "general", "slight", "motivational", "positive"])
    mem.mkdir()
    workbook.save(mem / "labels.xlsx")
    splits = {s: [e.id for e in load_examples("sarcasm", str(tmp_path), s).examples] for s in ("train", "dev", "test")}
    assert sorted(sum(splits.values(), [])) == sorted(names)  # a partition of all rows
    assert 30 <= len(splits["train"]) <= 58 and splits["test"] and splits["dev"]
    again = [e.id for e in load_examples("sarcasm", str(tmp_path), "test").examples]
    assert again == splits["test"]
    sheet.append([60, "image_60.jpg", "t", "x", "funny", "general", "kind of", "motivational", "positive"])
    workbook.save(mem / "labels.xlsx")
    with pytest.raises(InputError) as err:
        for split in ("train", "dev", "test"):
            load_examples("offensive", str(tmp_path), split)
    assert (err.value.line, err.value.field) == (62, "offensive") and "labels.xlsx" in err.value.path


def test_fakenewsnet_flips_labels(data_dir):
    result = load_examples("misinfo_politifact", str(data_dir))
    assert [(e.id, e.label) for e in result.examples] == [("0", "fake"), ("1", "true")]
    assert result.examples[0].text == "Senator caught in secret deal, insiders say"
    assert result.examples[1].images[0].endswith("images/politi_test/b.jpg") and not result.problems
    with pytest.raises(InputError, match="file not found"):
        load_examples("misinfo_gossipcop", str(data_dir))


def test_youtube_topics_from_urls_and_strings(data_dir):
    result = load_examples("tagging", str(data_dir))
    assert [e.label for e in result.examples] == [["sport", "tennis"], ["hip_hop_music", "music"]]
    assert result.examples[0].text == "Final Set Highlights\ntennis final"
    assert [(p.id, p.field) for p in result.problems] == [("def", "thumbnail")]


def test_descriptions_and_ocr_across_two_datasets(data_dir):
    desc = load_examples("social_context", str(data_dir)).examples
    assert desc[0].label == "A friendly meme." and desc[0].images[0].endswith("01235.png")
    ocr = load_examples("ocr", str(data_dir))
    assert [e.id for e in ocr.examples][:3] == ["hateful_memes/1235", "hateful_memes/1236", "hateful_memes/1237"]
    assert {e.meta["dataset"] for e in ocr.examples} == {"HatefulMemes", "Memotion"}
    assert ocr.examples[0].label == "look how many people love you" and ocr.examples[0].text == ""
    assert ocr.examples[3].label == "ME WHEN"  # text_ocr where text_corrected is empty
    limited = load_examples("ocr", str(data_dir), limit=4)
    assert [e.meta["dataset"] for e in limited.examples] == ["HatefulMemes"] * 2 + ["Memotion"] * 2
    assert {p.id for p in limited.problems} == {"hateful_memes/1236"}


@pytest.mark.parametrize("line, message, field", [
    ({"id": 1, "img": "img/x.png", "label": "maybe", "text": "t"}, "expected 0 or 1", "label"),
    ({"id": 1, "label": 1, "text": "t"}, "missing", "img"),
    ("{not json", "invalid JSON", None),
])
def test_malformed_jsonl_rows_name_file_line_field(tmp_path, line, message, field):
    good = {"id": 2, "img": "img/2.png", "label": 0, "text": "fine"}
    _jsonl(tmp_path / "hateful_memes/test.jsonl", [good, line])
    with pytest.raises(InputError, match=message) as err:
        load_examples("hate", str(tmp_path))
    assert (err.value.line, err.value.field) == (2, field)
    assert err.value.path.endswith("hateful_memes/test.jsonl")


def test_malformed_csv_and_topic_rows(tmp_path):
    _csv(tmp_path / "fakenewsnet/gossip_test.csv", ["id", "content", "image", "label"],
         [["1", "ok", "1.jpg", "1"], ["2", "too", "many", "1", "values"]])
    with pytest.raises(InputError, match="5 values for 4 columns") as err:
        load_examples("misinfo_gossipcop", str(tmp_path))
    assert err.value.line == 3
    _jsonl(tmp_path / "youtube2000/test.jsonl", [
        {"id": "x", "title": "t", "thumbnail": "x.jpg", "topics": ["cooking"]}])
    with pytest.raises(InputError, match="unknown topic") as err:
        load_examples("tagging", str(tmp_path))
    assert (err.value.line, err.value.field) == (1, "topics")
    with pytest.raises(InputError, match="data folder not found"):
        load_examples("hate", str(tmp_path / "nowhere"))


def test_hub_rows_convert_through_the_local_loaders(tmp_path, monkeypatch):
    import datasets

    from mmsoc.data.hub import from_hub_rows

    monkeypatch.setenv("MMSOC_CACHE", str(tmp_path))
    images = [Image.new("RGB", (8, 8), "blue"), None]
    ds = datasets.Dataset.from_dict({"image": images, "text": ["hello there", "second meme"], "label": [1, 0]})
    result = from_hub_rows("ocr", "Ahren09/MMSoc_HatefulMemes", ds.cast_column("image", datasets.Image()), "test")
    assert [(e.id, e.label) for e in result.examples] == [("hateful_memes/1", "hello there"), ("hateful_memes/2", "second meme")]
    assert Image.open(result.examples[0].images[0]).size == (8, 8)
    assert [(p.id, p.line) for p in result.problems] == [("hateful_memes/2", 2)]
    memo = datasets.Dataset.from_dict({"image": [Image.new("RGB", (4, 4))], "image_name": ["image_9.jpg"],
                                       "text": ["lol"], "humour": ["very_funny"]})
    example = from_hub_rows("humor", "Ahren09/MMSoc_Memotion", memo.cast_column("image", datasets.Image()), "train").examples[0]
    assert (example.id, example.label, example.text) == ("image_9.jpg", "humorous", "lol")


def test_hub_offline_error_says_how_to_use_local_files(tmp_path):
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path),
           "MMSOC_CACHE": str(tmp_path)}
    code = ("from mmsoc.data import load_examples\nfrom mmsoc.data.hub import HubUnavailable\n"
            "try:\n    load_examples('sarcasm', 'hub')\nexcept HubUnavailable as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120).stdout
    assert "cannot reach the Hugging Face hub for Ahren09/MMSoc_Memotion" in out
    assert "--data DIR" in out and "--data sample" in out
