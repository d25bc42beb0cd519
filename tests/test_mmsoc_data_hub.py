"""The hub copies: fixtures with the columns and split names of the real ``Ahren09`` copies (as the
MM-Soc code writes and reads them), loaded through the same path as ``--data hub``; offline errors."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from mmsoc.core.io import UsageError
from mmsoc.tasks import get_task
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.data.hub import HubUnavailable, from_hub_rows
from mmsoc.tasks.data.registry import DATASETS

datasets = pytest.importorskip("datasets")
Value, Sequence = datasets.Value, datasets.Sequence

YOUTUBE_FEATURES = {
    "image": datasets.Image(),
    "caption": Value("bool"),
    "categoryId": Value("int64"),
    "channelId": Value("string"),
    "channelTitle": Value("string"),
    "commentCount": Value("double"),
    "defaultAudioLanguage": Value("string"),
    "defaultLanguage": Value("string"),
    "description": Value("string"),
    "dislikeCount": Value("int64"),
    "duration": Value("string"),
    "embeddable": Value("bool"),
    "etag": Value("string"),
    "failureReason": Value("string"),
    "favoriteCount": Value("int64"),
    "hasCustomThumbnail": Value("bool"),
    "id": Value("string"),
    "kind": Value("string"),
    "license": Value("string"),
    "licensedContent": Value("bool"),
    "likeCount": Value("double"),
    "madeForKids": Value("bool"),
    "privacyStatus": Value("string"),
    "projection": Value("string"),
    "publicStatsViewable": Value("bool"),
    "publishAt": Value("timestamp[s]"),
    "publishedAt": Value("timestamp[s]"),
    "regionRestriction_allowed": Value("string"),
    "regionRestriction_blocked": Value("string"),
    "rejectionReason": Value("string"),
    "relevantTopicIds": Value("string"),
    "selfDeclaredMadeForKids": Value("bool"),
    "tags": Value("string"),
    "title": Value("string"),
    "topicIds": Value("null"),
    "uploadStatus": Value("string"),
    "viewCount": Value("int64"),
    "topics": Sequence(Value("string")),
    "split": Value("string"),
}
"""The YouTube2000 features exactly as the MM-Soc code declares them (data_utils.load_data)."""
MEMOTION_FEATURES = {
    "image": datasets.Image(),
    **{
        name: Value("string")
        for name in (
            "text_ocr",
            "text_corrected",
            "humor",
            "sarcasm",
            "offensive",
            "motivational",
            "sentiment",
            "split",
        )
    },
}
HATEFUL_FEATURES = {
    "id": Value("int64"),
    "image": datasets.Image(),
    "text": Value("string"),
    "label": Value("int64"),
    "split": Value("string"),
}
NEWS_FEATURES = {"image": datasets.Image(), "text": Value("string"), "label": Value("int64"), "split": Value("string")}


def _png(color: str, size=(8, 6)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def _youtube(split: str) -> "datasets.Dataset":
    rows = [
        {
            "id": "abcDEF12345",
            "title": "Final Set Highlights",
            "description": "tennis final",
            "tags": "tennis,final,highlights",
            "topics": ["Sport", "https://en.wikipedia.org/wiki/Tennis"],
        },
        {
            "id": "xyz_9876543",
            "title": "Easy Noodles",
            "description": None,
            "tags": "cooking",
            "topics": ["Lifestyle_(sociology)", "Food"],
        },
    ]
    columns = {name: [None] * len(rows) for name in YOUTUBE_FEATURES}
    for name in ("id", "title", "description", "tags", "topics"):
        columns[name] = [row[name] for row in rows]
    columns["image"] = [{"bytes": _png("blue"), "path": None}, {"bytes": _png("green"), "path": None}]
    columns["split"] = [split] * len(rows)
    return datasets.Dataset.from_dict(columns, features=datasets.Features(YOUTUBE_FEATURES))


def _memotion(split: str) -> "datasets.Dataset":
    columns = {
        "image": [{"bytes": _png("red"), "path": "image_9.jpg"}, {"bytes": _png("gray"), "path": None}],
        "text_ocr": ["LOOK AT ME", "ME WHEN"],
        "text_corrected": ["look at me", ""],
        "humor": ["very_funny", "not_funny"],
        "sarcasm": ["general", "not_sarcastic"],
        "offensive": ["not_offensive", "slight"],
        "motivational": ["motivational", "not_motivational"],
        "sentiment": ["very_negative", "neutral"],
        "split": [split, split],
    }
    return datasets.Dataset.from_dict(columns, features=datasets.Features(MEMOTION_FEATURES))


def _hateful(split: str) -> "datasets.Dataset":
    columns = {
        "id": [42953, 23058],
        "image": [{"bytes": _png("white"), "path": None}, None],
        "text": ["its their character not their color that matters", "don't be afraid to love"],
        "label": [1, 0],
        "split": [split, split],
    }
    return datasets.Dataset.from_dict(columns, features=datasets.Features(HATEFUL_FEATURES))


def _news(split: str) -> "datasets.Dataset":
    columns = {
        "image": [{"bytes": _png("black"), "path": None}, {"bytes": _png("yellow"), "path": None}],
        "text": ["Senator caught in secret deal", "Senate passes budget."],
        "label": [1, 0],
        "split": [split, split],
    }
    return datasets.Dataset.from_dict(columns, features=datasets.Features(NEWS_FEATURES))


COPIES = {
    "Ahren09/MMSoc_HatefulMemes": ("hateful_memes", _hateful, ("train", "validation", "test")),
    "Ahren09/MMSoc_Memotion": ("memotion", _memotion, ("train", "validation", "test")),
    "Ahren09/Memotion": ("memotion", _memotion, ("train", "validation", "test")),
    "Ahren09/MMSoc_PolitiFact": ("fakenewsnet", _news, ("train", "test")),
    "Ahren09/MMSoc_GossipCop": ("fakenewsnet", _news, ("train", "test")),
    "Ahren09/MMSoc_YouTube2000": ("youtube2000", _youtube, ("train", "val", "test")),
    "Ahren09/MMSoc_YouTube2M": ("youtube2000", _youtube, ("train", "val", "test")),
}
"""Repository -> (dataset, fixture, split names on the hub). ``Ahren09/Memotion`` (the copy the
MM-Soc code reads, split ``validation``) and ``MMSoc_YouTube2M`` are taken to share their siblings' layout."""

EXPECTED = {
    ("hateful_memes", "hate"): [
        ("42953", "hateful", "its their character not their color that matters"),
        ("23058", "not_hateful", "don't be afraid to love"),
    ],
    ("hateful_memes", "ocr"): [
        ("hateful_memes/42953", "its their character not their color that matters", ""),
        ("hateful_memes/23058", "don't be afraid to love", ""),
    ],
    ("memotion", "humor"): [("image_9.jpg", "humorous", "look at me"), ("2.png", "not_humorous", "ME WHEN")],
    ("memotion", "sentiment"): [("image_9.jpg", "negative", "look at me"), ("2.png", "neutral", "ME WHEN")],
    ("memotion", "sarcasm"): [("image_9.jpg", "sarcastic", "look at me"), ("2.png", "not_sarcastic", "ME WHEN")],
    ("memotion", "offensive"): [("image_9.jpg", "not_offensive", "look at me"), ("2.png", "offensive", "ME WHEN")],
    ("memotion", "ocr"): [("memotion/image_9.jpg", "look at me", ""), ("memotion/2.png", "ME WHEN", "")],
    ("fakenewsnet", "misinfo_politifact"): [
        ("1", "fake", "Senator caught in secret deal."),
        ("2", "true", "Senate passes budget."),
    ],
    ("fakenewsnet", "misinfo_gossipcop"): [
        ("1", "fake", "Senator caught in secret deal."),
        ("2", "true", "Senate passes budget."),
    ],
    ("youtube2000", "tagging"): [
        ("abcDEF12345", ["sport", "tennis"], "Final Set Highlights\ntennis final"),
        ("xyz_9876543", ["food", "lifestyle"], "Easy Noodles"),
    ],
}


@pytest.fixture(autouse=True)
def _caches(tmp_path, monkeypatch):
    monkeypatch.setenv("MMSOC_CACHE", str(tmp_path / "mmsoc"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "hf"))


@pytest.mark.parametrize("repo", COPIES)
def test_each_hub_copy_loads_from_its_official_columns(repo):
    name, fixture, splits = COPIES[repo]
    hub = DATASETS.get(name).hub
    assert hub.serves(repo) and set(hub.splits.values()) == set(splits)
    for (dataset, task), expected in EXPECTED.items():
        if dataset != name:
            continue
        result = from_hub_rows(get_task(task), hub, repo, fixture("train"), "train")
        assert [(e.id, e.label, e.text) for e in result.examples] == expected, task
        images = [e.images for e in result.examples]
        assert Image.open(images[0][0]).size == (8, 6)
        if name == "hateful_memes":  # its second row has no image
            assert images[1] == () and [(p.line, p.field) for p in result.problems] == [(2, "img")]
        else:
            assert all(images) and not result.problems


def _publish(root: Path, repo: str) -> None:
    """Write ``repo`` as the hub stores it (parquet per split, split names in the card's configs)."""
    _, fixture, splits = COPIES[repo]
    folder = root / repo
    (folder / "data").mkdir(parents=True)
    configs = "".join(f"  - split: {split}\n    path: data/{split}-*\n" for split in splits)
    (folder / "README.md").write_text(f"---\nconfigs:\n- config_name: default\n  data_files:\n{configs}---\n")
    for split in splits:
        fixture(split).to_parquet(str(folder / "data" / f"{split}-00000-of-00001.parquet"))


def test_hub_reads_each_copys_own_split_names(tmp_path, monkeypatch):
    for repo in (
        "Ahren09/MMSoc_YouTube2000",
        "Ahren09/MMSoc_YouTube2M",
        "Ahren09/MMSoc_Memotion",
        "Ahren09/MMSoc_HatefulMemes",
        "Ahren09/MMSoc_GossipCop",
    ):
        _publish(tmp_path / "hub", repo)
    monkeypatch.chdir(tmp_path / "hub")  # datasets reads a folder named like the repo id before the hub
    tagging = load_examples("tagging", "hub", "dev")
    assert [e.label for e in tagging.examples] == [["sport", "tennis"], ["food", "lifestyle"]]
    assert {e.meta["split"] for e in tagging.examples} == {"dev"}
    assert len(load_examples("tagging", "hf://Ahren09/MMSoc_YouTube2M", "val").examples) == 2
    assert [e.label for e in load_examples("humor", "hub", "dev").examples] == ["humorous", "not_humorous"]
    assert [e.label for e in load_examples("hate", "hub", "validation").examples] == ["hateful", "not_hateful"]
    ocr = load_examples("ocr", "hub", "test", limit=2)
    assert [e.meta["dataset"] for e in ocr.examples] == ["HatefulMemes", "Memotion"]
    assert [e.label for e in load_examples("misinfo_gossipcop", "hub", "test").examples] == ["fake", "true"]
    with pytest.raises(HubUnavailable, match=r"MMSoc_GossipCop has no 'dev' split \(it has: train, test\)"):
        load_examples("misinfo_gossipcop", "hub", "dev")
    with pytest.raises(HubUnavailable, match="task 'hate' cannot read 'Ahren09/MMSoc_Memotion'"):
        load_examples("hate", "hf://Ahren09/MMSoc_Memotion")
    assert issubclass(HubUnavailable, UsageError)


def _offline_env(tmp_path: Path) -> dict:
    return {
        **os.environ,
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf"),
        "MMSOC_CACHE": str(tmp_path / "mmsoc"),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }


def test_hub_offline_error_says_how_to_use_local_files(tmp_path):
    code = (
        "from mmsoc.tasks.data import load_examples\nfrom mmsoc.tasks.data.hub import HubUnavailable\n"
        "try:\n    load_examples('sarcasm', 'hub')\nexcept HubUnavailable as err:\n    print(err)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=_offline_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    ).stdout
    assert "cannot reach the Hugging Face hub for Ahren09/MMSoc_Memotion" in out
    assert "--data DIR" in out and "--data sample" in out and "memotion/" in out


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "--task", "sarcasm", "--model", "random", "--greedy"],
        ["finetune", "--task", "sarcasm", "--model", "no-such-model"],
        ["explain", "--task", "sarcasm", "--model", "random"],
        ["self-improve", "--task", "sarcasm", "--model", "random"],
    ],
)
def test_hub_unavailable_is_one_line_in_every_command(tmp_path, command):
    run = subprocess.run(
        [sys.executable, "-m", "mmsoc", *command, "--data", "hub", "--out", str(tmp_path / "out")],
        env=_offline_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        check=False,
    )
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    assert lines[0].startswith("error: cannot reach the Hugging Face hub for Ahren09/MMSoc_Memotion")
    assert "Traceback" not in run.stderr and not (tmp_path / "out").exists()


def test_data_check_lists_an_unreachable_hub_per_task(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "mmsoc", "data", "check", "--data", "hub", "--task", "humor"],
        env={**_offline_env(tmp_path), "COLUMNS": "400"},
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "cannot reach the Hugging Face hub for Ahren09/MMSoc_Memotion" in run.stdout
