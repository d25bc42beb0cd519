"""Loaders on small files in each real format, written here: labels, image problems, bad rows."""

import json
import os
from pathlib import Path

import pytest
from PIL import Image

from mmsoc.core.io import InputError
from mmsoc.tasks.data import LoadOptions, load_examples

MEMOTION_HEADER = [
    "",
    "image_name",
    "text_ocr",
    "text_corrected",
    "humour",
    "sarcasm",
    "offensive",
    "motivational",
    "overall_sentiment",
    "split",
]
MEMOTION_ROWS = [
    [
        "0",
        "image_1.jpg",
        "LOOK AT ME",
        "look at me",
        "hilarious",
        "general",
        "not_offensive",
        "motivational",
        "very_positive",
        "train",
    ],
    [
        "1",
        "image_2.png",
        "ME WHEN",
        "",
        "not_funny",
        "not_sarcastic",
        "very_offensive",
        "not_motivational",
        "neutral",
        "test",
    ],
    [
        "2",
        "image_3.jpg",
        "so true",
        "so true",
        "very_funny",
        "twisted_meaning",
        "slight",
        "not_motivational",
        "very_negative",
        "test",
    ],
    [
        "3",
        "image_4.jpg",
        "missing picture",
        "missing picture",
        "funny",
        "very_twisted",
        "hateful_offensive",
        "motivational",
        "negative",
        "test",
    ],
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
    _jsonl(
        hm / "test.jsonl",
        [
            {"id": 1235, "img": "img/01235.png", "label": 1, "text": "look how many people love you"},
            {"id": 1236, "img": "img/01236.png", "label": 0, "text": "a corrupt image"},
            {"id": 1237, "img": "img/01237.png", "label": 0, "text": "a missing image"},
        ],
    )
    mem = root / "memotion"
    for name in ("image_1.jpg", "image_3.jpg"):
        _image(mem / "images" / name, fmt="JPEG")
    _image(mem / "images/image_2.png", fmt="PNG")
    _csv(mem / "labels.csv", MEMOTION_HEADER, MEMOTION_ROWS)
    fnn = root / "fakenewsnet"
    _image(fnn / "images/politi_test/a.jpg", fmt="JPEG")
    _image(fnn / "images/politi_test/b.jpg", fmt="JPEG")
    _csv(
        fnn / "politi_test.csv",
        ["", "content", "image", "label"],
        [
            ["0", "Senator caught in secret deal, insiders say", "a.jpg", "0"],
            ["1", "Senate passes budget after debate", "b.jpg", "1"],
        ],
    )
    yt = root / "youtube2000"
    _image(yt / "thumbnails/abc.jpg", fmt="JPEG")
    _jsonl(
        yt / "test.jsonl",
        [
            {
                "id": "abc",
                "title": "Final Set Highlights",
                "description": "tennis final",
                "thumbnail": "thumbnails/abc.jpg",
                "topics": ["https://en.wikipedia.org/wiki/Tennis", "https://en.wikipedia.org/wiki/Sport"],
            },
            {
                "id": "def",
                "title": "Block Party",
                "description": "",
                "thumbnail": "thumbnails/def.jpg",
                "topics": "hip_hop_music, music",
            },
        ],
    )
    _jsonl(
        root / "descriptions/social_context_test.jsonl",
        [
            {"id": "1235", "image": "hateful_memes/img/01235.png", "reference": "A friendly meme.", "text": "look"},
        ],
    )
    return root


def test_hateful_memes_labels_and_image_problems(data_dir):
    result = load_examples("hate", str(data_dir))
    expected = [("1235", "hateful"), ("1236", "not_hateful"), ("1237", "not_hateful")]
    assert [(e.id, e.label) for e in result.examples] == expected
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
    expected = {
        "humor": ["not_humorous", "humorous", "humorous"],
        "sarcasm": ["not_sarcastic", "sarcastic", "sarcastic"],
        "offensive": ["offensive", "offensive", "offensive"],
        "sentiment": ["neutral", "negative", "negative"],
    }
    for task, labels in expected.items():
        result = load_examples(task, str(data_dir), "test")
        assert [e.id for e in result.examples] == ["image_2.png", "image_3.jpg", "image_4.jpg"]
        assert [e.label for e in result.examples] == labels
        assert [(p.id, p.field, p.line) for p in result.problems] == [("image_4.jpg", "image_name", 5)]
    train = load_examples("humor", str(data_dir), "train").examples
    assert [(e.id, e.label, e.text) for e in train] == [("image_1.jpg", "humorous", "look at me")]
    # an empty text_corrected falls back to text_ocr
    assert load_examples("humor", str(data_dir)).examples[0].text == "ME WHEN"


OFFICIAL_MEMOTION_HEADER = [
    "",
    "image",
    "text_ocr",
    "text_corrected",
    "humor",
    "sarcasm",
    "offensive",
    "motivational",
    "sentiment",
]
"""The columns as the MM-Soc code reads its labels.xlsx (``image``, ``humor``, ``sentiment``)."""


def test_memotion_without_split_column_is_split_sequentially_as_mm_soc_does(tmp_path):
    from openpyxl import Workbook

    mem = tmp_path / "memotion"
    mem.mkdir()
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(OFFICIAL_MEMOTION_HEADER)
    for i in range(13):
        sheet.append(
            [
                i,
                f"image_{i}.jpg",
                "t",
                f"text {i}",
                "funny",
                "general",
                "slight",
                "motivational",
                "very_positive" if i % 2 else "neutral",
            ]
        )
    workbook.save(mem / "labels.xlsx")
    splits = {
        s: [e.id for e in load_examples("sentiment", str(tmp_path), s).examples] for s in ("train", "dev", "test")
    }
    # hand-worked: 13 rows -> int(10.4) = 10 train, int(1.3) = 1 dev, the remaining 2 test, in file order
    assert splits == {
        "train": [f"image_{i}.jpg" for i in range(10)],
        "dev": ["image_10.jpg"],
        "test": ["image_11.jpg", "image_12.jpg"],
    }
    assert [e.id for e in load_examples("sentiment", str(tmp_path), "val").examples] == ["image_10.jpg"]
    test = load_examples("sentiment", str(tmp_path), "test").examples
    expected = [("positive", "text 11", "test"), ("neutral", "text 12", "test")]
    assert [(e.label, e.text, e.meta["split"]) for e in test] == expected
    assert [e.label for e in load_examples("humor", str(tmp_path), "dev").examples] == ["humorous"]
    sheet.append([13, "image_13.jpg", "t", "x", "funny", "general", "kind of", "motivational", "positive"])
    workbook.save(mem / "labels.xlsx")  # 14 rows: 11 train, 1 dev, rows 12 and 13 (sheet rows 14, 15) test
    assert len(load_examples("offensive", str(tmp_path), "train").examples) == 11
    with pytest.raises(InputError) as err:
        load_examples("offensive", str(tmp_path), "test")
    assert (err.value.line, err.value.field) == (15, "offensive") and "labels.xlsx" in err.value.path
    with pytest.raises(InputError, match="no split 'valid'"):
        load_examples("offensive", str(tmp_path), "valid")


def test_memotion_7k_rows_split_5593_699_700(tmp_path):
    import pandas as pd

    n = 6992
    rows = [
        [i, f"image_{i}.jpg", "t", f"meme {i}", "funny", "general", "slight", "motivational", "positive"]
        for i in range(n)
    ]
    _csv(tmp_path / "memotion/labels.csv", MEMOTION_HEADER[:-1], rows)
    ids = {s: [e.id for e in load_examples("humor", str(tmp_path), s).examples] for s in ("train", "dev", "test")}
    assert [len(ids[s]) for s in ("train", "dev", "test")] == [5593, 699, 700]
    # the MM-Soc code's own rule (data_utils.load_data), re-written on the same table
    table = pd.read_csv(tmp_path / "memotion/labels.csv", index_col=0)
    train_size, val_size = int(len(table) * 0.8), int(len(table) * 0.1)
    official = {
        "train": table[:train_size],
        "dev": table[train_size : train_size + val_size],
        "test": table[train_size + val_size :],
    }
    assert ids == {s: list(frame["image_name"]) for s, frame in official.items()}


def test_fakenewsnet_flips_labels(data_dir):
    result = load_examples("misinfo_politifact", str(data_dir))
    assert [(e.id, e.label) for e in result.examples] == [("0", "fake"), ("1", "true")]
    # the official truncate_input ends a text without closing punctuation with "."
    assert result.examples[0].text == "Senator caught in secret deal, insiders say."
    whole = load_examples("misinfo_politifact", str(data_dir), options=LoadOptions(text_length=0))
    assert whole.examples[0].text == "Senator caught in secret deal, insiders say"
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


@pytest.mark.parametrize(
    "line, message, field",
    [
        ({"id": 1, "img": "img/x.png", "label": "maybe", "text": "t"}, "expected 0 or 1", "label"),
        ({"id": 1, "label": 1, "text": "t"}, "missing", "img"),
        ("{not json", "invalid JSON", None),
    ],
)
def test_malformed_jsonl_rows_name_file_line_field(tmp_path, line, message, field):
    good = {"id": 2, "img": "img/2.png", "label": 0, "text": "fine"}
    _jsonl(tmp_path / "hateful_memes/test.jsonl", [good, line])
    with pytest.raises(InputError, match=message) as err:
        load_examples("hate", str(tmp_path))
    assert (err.value.line, err.value.field) == (2, field)
    assert err.value.path.endswith("hateful_memes/test.jsonl")


def test_malformed_csv_and_topic_rows(tmp_path):
    _csv(
        tmp_path / "fakenewsnet/gossip_test.csv",
        ["id", "content", "image", "label"],
        [["1", "ok", "1.jpg", "1"], ["2", "too", "many", "1", "values"]],
    )
    with pytest.raises(InputError, match="5 values for 4 columns") as err:
        load_examples("misinfo_gossipcop", str(tmp_path))
    assert err.value.line == 3
    _jsonl(
        tmp_path / "youtube2000/test.jsonl", [{"id": "x", "title": "t", "thumbnail": "x.jpg", "topics": ["cooking"]}]
    )
    with pytest.raises(InputError, match="unknown topic") as err:
        load_examples("tagging", str(tmp_path))
    assert (err.value.line, err.value.field) == (1, "topics")
    with pytest.raises(InputError, match="data folder not found"):
        load_examples("hate", str(tmp_path / "nowhere"))


def _official_truncate_input(text, max_num_words=256):
    """MM-Soc's truncate_input (mmsoc/utils/data_utils.py), re-written small for comparison."""
    import re

    text = re.sub(r"\s+", " ", re.sub(r"\n+", " ", text))
    text = " ".join(text.split(" ")[:max_num_words])
    return text if any(text.endswith(p) for p in ".,:;?!|") else text + "."


@pytest.mark.parametrize(
    "text, words, expected",
    [
        ("Breaking:\n\nthe  senator\tsaid yes to the new bill", 4, "Breaking: the senator said."),
        ("Wow, really? yes", 1, "Wow,"),
        ("All good!", 128, "All good!"),
        ("no period here", 128, "no period here."),
        ("pipe |", 5, "pipe |"),
        (" lead word", 1, "."),  # a leading space is an empty first word in the official rule
        ("kept whole\n\n as given", 0, "kept whole\n\n as given"),
    ],
)
def test_truncation_follows_the_official_rule(text, words, expected):
    from mmsoc.tasks.data.text import truncate_words

    assert truncate_words(text, words) == expected
    if words:
        assert truncate_words(text, words) == _official_truncate_input(text, words)


def test_news_text_is_cut_to_text_length_words_on_the_way_to_the_model(tmp_path):
    from typer.testing import CliRunner

    from mmsoc.cli import app
    from mmsoc.models.base import GenerationSettings
    from mmsoc.runners.config import RunConfig
    from mmsoc.runners.eval import plan, resolve_prompts

    words = [f"w{i}" for i in range(200)]
    _image(tmp_path / "fakenewsnet/images/politi_test/a.jpg", fmt="JPEG")
    _csv(
        tmp_path / "fakenewsnet/politi_test.csv",
        ["id", "content", "image", "label"],
        [["a", " ".join(words), "a.jpg", "0"]],
    )
    default = load_examples("misinfo_politifact", str(tmp_path)).examples[0].text
    assert default == " ".join(words[:128]) + "."
    config = RunConfig.create(
        GenerationSettings(greedy=True),
        None,
        model="random",
        tasks=("misinfo_politifact",),
        data=str(tmp_path),
        text_length=16,
    )
    (item,), _ = plan(config, resolve_prompts(config.tasks))
    assert item.request.text == " ".join(words[:16]) + "."
    assert item.request.parts[-1].text.startswith(f'Text: "{" ".join(words[:16])}."\n')
    runner = CliRunner()
    for flags, expected in (([], 128), (["--text-length", "0"], 0)):
        out = tmp_path / f"run{expected}"
        result = runner.invoke(
            app,
            [
                "eval",
                "--task",
                "misinfo_politifact",
                "--model",
                "random",
                "--data",
                str(tmp_path),
                "--out",
                str(out),
                "--greedy",
                "--no-progress",
                *flags,
            ],
        )
        assert result.exit_code == 0, result.output
        assert json.loads((out / "config.json").read_text())["text_length"] == expected
