"""The embedded sample: small, deterministic data for every task, written in the local layout.

Memes carry their text rendered with PIL's default font (the OCR references are exact), news items
and video thumbnails are drawn scenes, and the meme descriptions are written from what was drawn.
Every split has ``train`` (``N_TRAIN`` items) and ``test`` (``N_TEST`` items); the same code and
Pillow version give the same bytes.
"""

from __future__ import annotations

import csv
import hashlib
import os
import random
import shutil
import tempfile
from pathlib import Path

import PIL

from mmsoc.data import descriptions, draw, fakenewsnet, hateful_memes, memotion, sample_text, youtube
from mmsoc.core.paths import cache_root
from mmsoc.data.draw import Scene
from mmsoc.core.io import atomic_open, write_jsonl

N_TRAIN, N_TEST = 40, 24
SPLITS = (("train", N_TRAIN), ("test", N_TEST))
SEED = 2024
MEME_SIZE, NEWS_SIZE, THUMB_SIZE = (160, 160), (128, 96), (160, 90)
MEMOTION_COLUMNS = ("", "image_name", "text_ocr", "text_corrected", "humour", "sarcasm", "offensive",
                    "motivational", "overall_sentiment", "split")


def ensure_sample() -> Path:
    """The sample folder in the cache, written once (atomically) for this code and Pillow version."""
    sources = b"".join(Path(module.__file__).read_bytes() for module in (draw, sample_text)) + Path(__file__).read_bytes()
    fingerprint = hashlib.sha256(sources + PIL.__version__.encode()).hexdigest()[:12]
    path = cache_root() / f"sample-{fingerprint}"
    if not path.is_dir():
        write_sample(path)
    return path


def write_sample(out: str | os.PathLike, overwrite: bool = False) -> Path:
    """Write the whole sample to ``out``: built beside it, then moved into place in one rename.

    ``out`` must not exist or be empty unless ``overwrite``; a crash leaves ``out`` as it was.
    """
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise FileExistsError(f"{out} is not empty (pass overwrite=True / --overwrite to replace it)")
    out.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        _write_all(build)
        _move_into_place(build, out)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return out


def _move_into_place(build: Path, out: Path) -> None:
    if out.exists() and any(out.iterdir()):
        old = out.with_name(f".{out.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(out, old)
        os.replace(build, out)
        shutil.rmtree(old)
        return
    try:
        os.replace(build, out)
    except OSError:
        if not (out.is_dir() and any(out.iterdir())):  # lost a race to another writer: theirs is identical
            raise
        shutil.rmtree(build)


def _write_all(root: Path) -> None:
    rng = random.Random(SEED)
    memes = _write_hateful_memes(root / hateful_memes.FOLDER, rng)
    _write_descriptions(root / descriptions.FOLDER, memes)
    _write_memotion(root / memotion.FOLDER, rng)
    _write_fakenewsnet(root / fakenewsnet.FOLDER, rng)
    _write_youtube(root / youtube.FOLDER, rng)


def _scene(rng: random.Random) -> Scene:
    background, shape_color = rng.sample(sorted(draw.COLORS), 2)
    return Scene(background, rng.choice(draw.SHAPES), shape_color, rng.choice(draw.TEXTURES))


def _balanced(rng: random.Random, n: int, labels: tuple) -> list:
    """``n`` labels in (near) equal shares, shuffled."""
    values = [labels[i % len(labels)] for i in range(n)]
    rng.shuffle(values)
    return values


def _save(image, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".png":
        image.save(path, format="PNG")
    else:
        image.save(path, format="JPEG", quality=90)


def _write_hateful_memes(root: Path, rng: random.Random) -> dict[str, list[tuple[dict, Scene, str]]]:
    memes: dict[str, list[tuple[dict, Scene, str]]] = {}
    number = 10000
    for split, n in SPLITS:
        memes[split] = []
        for hateful in _balanced(rng, n, (True, False)):
            number += 1
            text, group = sample_text.hateful_meme(rng, hateful)
            scene = _scene(rng)
            row = {"id": f"{number:05d}", "img": f"img/{number:05d}.png", "label": int(hateful), "text": text}
            _save(draw.render_text(draw.draw_scene(scene, MEME_SIZE), text), root / row["img"])
            memes[split].append((row, scene, group))
        write_jsonl(root / f"{split}.jsonl", [row for row, _, _ in memes[split]])
    return memes


def _write_descriptions(root: Path, memes: dict[str, list[tuple[dict, Scene, str]]]) -> None:
    for split, items in memes.items():
        scenes, contexts = [], []
        for row, scene, group in items:
            image = f"{hateful_memes.FOLDER}/{row['img']}"
            common = {"id": row["id"], "image": image, "text": row["text"]}
            scenes.append({**common, "reference": f"A meme showing {scene.describe()}, with white text outlined "
                                                  f"in black across the top that reads \"{row['text']}\"."})
            contexts.append({**common, "reference": sample_text.social_context(bool(row["label"]), group)})
        write_jsonl(root / f"image_description_{split}.jsonl", scenes)
        write_jsonl(root / f"social_context_{split}.jsonl", contexts)


def _write_memotion(root: Path, rng: random.Random) -> None:
    rows, number = [], 0
    for split, n in SPLITS:
        columns = {task: _balanced(rng, n, tuple(sorted(set(mapping.values()))))
                   for task, mapping in memotion.LABEL_MAPS.items()}
        for i in range(n):
            labels = {task: values[i] for task, values in columns.items()}
            text = sample_text.memotion_text(rng, labels)
            number += 1
            name = f"image_{number}.jpg"
            _save(draw.render_text(draw.draw_scene(_scene(rng), MEME_SIZE), text), root / memotion.IMAGES / name)
            raw = {task: rng.choice(sample_text.RAW[label]) for task, label in labels.items()}
            rows.append((str(number - 1), name, text, text, raw["humor"], raw["sarcasm"], raw["offensive"],
                         rng.choice(("motivational", "not_motivational")), raw["sentiment"], split))
    with atomic_open(root / "labels.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(MEMOTION_COLUMNS)
        writer.writerows(rows)


def _write_fakenewsnet(root: Path, rng: random.Random) -> None:
    for task, prefix in fakenewsnet.PREFIXES.items():
        politics = prefix == "politi"
        number = 0
        for split, n in SPLITS:
            rows = []
            for fake in _balanced(rng, n, (True, False)):
                number += 1
                item_id = f"{'politifact' if politics else 'gossipcop'}{number}"
                _save(draw.draw_scene(_scene(rng), NEWS_SIZE), root / fakenewsnet.IMAGES / f"{prefix}_{split}" / f"{item_id}.jpg")
                label = fakenewsnet.CSV_FAKE_VALUE if fake else 1 - fakenewsnet.CSV_FAKE_VALUE
                rows.append((item_id, sample_text.news_text(rng, politics, fake), f"{item_id}.jpg", label))
            with atomic_open(root / f"{prefix}_{split}.csv", "w", encoding="utf-8", newline="") as handle:
                writer = csv.writer(handle, lineterminator="\n")
                writer.writerow(("id", "content", "image", "label"))
                writer.writerows(rows)


def _write_youtube(root: Path, rng: random.Random) -> None:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for split, n in SPLITS:
        rows = []
        for _ in range(n):
            item_id = "".join(rng.choice(alphabet) for _ in range(11))
            title, description, topics = sample_text.video(rng)
            thumbnail = f"thumbnails/{item_id}.jpg"
            _save(draw.render_text(draw.draw_scene(_scene(rng), THUMB_SIZE), title, at_bottom=True), root / thumbnail)
            rows.append({"id": item_id, "title": title, "description": description, "thumbnail": thumbnail,
                         "topics": list(topics)})
        write_jsonl(root / f"{split}.jsonl", rows)
