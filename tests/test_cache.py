"""The feature cache: hits proved by counting encoder calls, keys by settings and content, atomic entries."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from media_fixtures import VTT, build_tiny_open_clip, write_clip, write_wav
from typer.testing import CliRunner

from mmsoc.media import AudioEncoder, CachedEncoder, FeatureCache, MediaError, VideoEncoder


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    torch.set_num_threads(1)
    d = tmp_path_factory.mktemp("cache_media")
    write_clip(d / "a.mp4", (200, 40, 40), 440.0)
    write_clip(d / "b.mp4", (40, 200, 40), 660.0)
    write_wav(d / "a.wav", 440.0)
    (d / "a.vtt").write_text(VTT)
    return d, build_tiny_open_clip(d / "oc")


def test_second_run_hits_the_cache_and_encodes_nothing(media, tmp_path):
    d, oc = media
    cache = FeatureCache(tmp_path / "cache")
    first = CachedEncoder(VideoEncoder(str(oc), num_frames=3), cache)
    paths = [d / "a.mp4", d / "b.mp4", d / "missing.mp4"]
    out1 = first.encode_files(paths)
    assert first.encoder.encoded == 2 and first.hits == 0
    second = CachedEncoder(VideoEncoder(str(oc), num_frames=3), cache)  # a fresh process would do the same
    out2 = second.encode_files(paths)
    assert second.encoder.encoded == 0 and second.hits == 2
    for a, b in zip(out1[:2], out2[:2]):
        np.testing.assert_array_equal(a, b)
    assert isinstance(out2[2], MediaError)
    assert "_model" not in vars(second.encoder.images)  # no model was even loaded


def test_keys_change_with_settings_and_content(media, tmp_path):
    d, oc = media
    cache = FeatureCache(tmp_path / "cache")
    CachedEncoder(VideoEncoder(str(oc), num_frames=3), cache).encode_files([d / "a.mp4"])
    other = CachedEncoder(VideoEncoder(str(oc), num_frames=2), cache)
    assert other.encode_files([d / "a.mp4"])[0].shape == (2, 16) and other.encoder.encoded == 1
    copy = tmp_path / "renamed.mp4"
    copy.write_bytes((d / "a.mp4").read_bytes())
    same_content = CachedEncoder(VideoEncoder(str(oc), num_frames=3), cache)
    same_content.encode_files([copy])
    assert same_content.hits == 1 and same_content.encoder.encoded == 0
    write_wav(tmp_path / "tone.wav", 440.0)
    audio = CachedEncoder(AudioEncoder(), cache)
    audio.encode_files([tmp_path / "tone.wav"])
    write_wav(tmp_path / "tone.wav", 880.0)  # same name, new content
    audio.encode_files([tmp_path / "tone.wav"])
    assert audio.encoder.encoded == 2 and audio.hits == 0


def test_a_write_killed_midway_leaves_no_entry_and_a_corrupt_entry_is_recomputed(media, tmp_path, monkeypatch):
    d, _ = media
    cache = FeatureCache(tmp_path / "cache")
    encoder = CachedEncoder(AudioEncoder(), cache)

    def dies(handle, array, allow_pickle=False):
        handle.write(b"\x93NUMPY partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "save", dies)
    with pytest.raises(KeyboardInterrupt):
        encoder.encode_files([d / "a.wav"])
    monkeypatch.undo()
    assert list((tmp_path / "cache").rglob("*")) == [p for p in (tmp_path / "cache").rglob("*") if p.is_dir()]
    good = encoder.encode_files([d / "a.wav"])[0]
    entry = next((tmp_path / "cache").rglob("*.npy"))
    entry.write_bytes(b"garbage")
    again = CachedEncoder(AudioEncoder(), cache)
    np.testing.assert_array_equal(again.encode_files([d / "a.wav"])[0], good)
    assert again.encoder.encoded == 1


def test_cache_info_and_clear_commands(media, tmp_path):
    from desiq.cli import app

    d, _ = media
    cache = FeatureCache(tmp_path / "cache")
    CachedEncoder(AudioEncoder(), cache).encode_files([d / "a.wav", d / "a.mp4"])
    runner = CliRunner()
    info = runner.invoke(app, ["cache", "info", "--cache-dir", str(tmp_path / "cache")])
    assert info.exit_code == 0 and "audio\t2 entries" in info.output
    cleared = runner.invoke(app, ["cache", "clear", "--cache-dir", str(tmp_path / "cache")])
    assert cleared.exit_code == 0 and "removed 2 entries" in cleared.output
    assert cache.stats() == []


def test_cache_dir_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("MMSOC_CACHE", str(tmp_path / "env"))
    assert FeatureCache().root == tmp_path / "env" / "features"
