"""Encoders on media the tests generate: video (decord, frame folders), images, audio, transcripts."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from media_fixtures import SR, VTT, build_tiny_hf_clip, build_tiny_open_clip, build_tiny_wav2vec2, write_clip, write_wav
from PIL import Image

from mmsoc.media import (
    AudioEncoder,
    MediaError,
    TranscriptEncoder,
    VideoEncoder,
    build_encoder,
    parse_subtitles,
    read_subtitles,
)
from mmsoc.media.decode import frame_indices, read_audio, read_frames, read_frames_pyav


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    d = tmp_path_factory.mktemp("media")
    torch.set_num_threads(1)
    write_clip(d / "red.mp4", (250, 10, 10), 440.0, seconds=2.0)
    write_clip(d / "blue.mp4", (10, 10, 250), 880.0, seconds=2.0)
    write_clip(d / "narrow.mp4", (10, 200, 10), 440.0, size=(48, 32))  # decord cannot copy 48-px-wide frames
    write_wav(d / "low.wav", 440.0, sr=22050)
    (d / "talk.vtt").write_text(VTT)
    return {
        "dir": d,
        "open_clip": build_tiny_open_clip(d / "oc"),
        "hf_clip": build_tiny_hf_clip(d / "hfclip"),
        "wav2vec2": build_tiny_wav2vec2(d / "w2v"),
    }


def test_parse_webvtt_and_srt_keep_cue_times_and_drop_markup():
    cues = parse_subtitles(VTT)
    assert [(c.start, c.end, c.text) for c in cues] == [
        (0.0, 1.5, "I feel so happy today."),
        (1.5, 3.25, "What a wonderful day, really."),
    ]
    srt = "1\n00:00:02,500 --> 00:01:03,000\nHello there\n\n2\n01:00:00,000 --> 01:00:01,000\n<i>Bye</i>\n"
    assert [(c.start, c.end, c.text) for c in parse_subtitles(srt)] == [
        (2.5, 63.0, "Hello there"),
        (3600.0, 3601.0, "Bye"),
    ]


def test_empty_malformed_or_missing_transcripts_raise_media_errors(tmp_path):
    (tmp_path / "empty.vtt").write_text("WEBVTT\n\n")
    (tmp_path / "bad.vtt").write_text("WEBVTT\n\n00:00:aa --> 00:01.000\nhi\n")
    with pytest.raises(MediaError, match="no cues"):
        read_subtitles(tmp_path / "empty.vtt")
    with pytest.raises(MediaError, match="line 3"):
        read_subtitles(tmp_path / "bad.vtt")
    with pytest.raises(MediaError, match="missing"):
        read_subtitles(tmp_path / "gone.vtt")


def test_frame_sampling_uniform_and_by_rate():
    assert frame_indices(16, 8.0, 4, None).tolist() == [0, 5, 10, 15]
    assert frame_indices(16, 8.0, None, 2.0).tolist() == [0, 4, 8, 12]


def test_video_frames_decode_with_their_colour(media):
    frames = read_frames(media["dir"] / "red.mp4", num_frames=4)
    assert frames.shape == (4, 32, 64, 3)
    assert np.abs(frames.reshape(-1, 3).mean(0) - [250, 10, 10]).max() < 12


def test_frames_decord_cannot_copy_are_decoded_by_pyav(media):
    import decord

    path = media["dir"] / "narrow.mp4"
    with pytest.raises(decord.DECORDError):
        decord.VideoReader(str(path), ctx=decord.cpu(0)).get_batch([0]).asnumpy()
    frames = read_frames(path, num_frames=4)
    assert frames.shape == (4, 32, 48, 3)
    assert np.abs(frames.reshape(-1, 3).mean(0) - [10, 200, 10]).max() < 12


def test_pyav_frames_equal_decord_frames_at_the_same_indices(media):
    path = media["dir"] / "red.mp4"
    np.testing.assert_array_equal(read_frames_pyav(path, num_frames=5), read_frames(path, num_frames=5))
    np.testing.assert_array_equal(read_frames_pyav(path, None, fps=2.0), read_frames(path, None, fps=2.0))


def test_frame_folder_is_read_in_sorted_name_order(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for k in (2, 0, 1):  # written out of order
        Image.fromarray(np.full((8, 8, 3), 80 * k, np.uint8)).save(folder / f"v_{k:03d}.png")
    frames = read_frames(folder, num_frames=3)
    assert frames[:, 0, 0, 0].tolist() == [0, 80, 160]


def test_open_clip_video_encoder_equals_open_clip_on_the_sampled_frames(media):
    import open_clip

    video = VideoEncoder(str(media["open_clip"]), num_frames=4)
    features = video.encode_files([media["dir"] / "red.mp4"])[0]
    assert features.shape == (4, 16)
    model, _, transform = open_clip.create_model_and_transforms(f"local-dir:{media['open_clip']}")
    frames = read_frames(media["dir"] / "red.mp4", num_frames=4)
    with torch.no_grad():
        expected = model.eval().encode_image(torch.stack([transform(Image.fromarray(f)) for f in frames]))
    np.testing.assert_allclose(features, torch.nn.functional.normalize(expected, dim=-1).numpy(), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(features, axis=1), 1.0, atol=1e-5)


def test_hf_clip_video_encoder_samples_by_frame_rate(media):
    video = VideoEncoder(str(media["hf_clip"]), fps=2.0)
    features = video.encode_files([media["dir"] / "blue.mp4"])[0]
    assert features.shape == (4, 12)  # 2 s at 2 fps
    rebuilt = build_encoder(video.spec)
    assert rebuilt.key == video.key and isinstance(rebuilt, VideoEncoder)


def test_wav_is_resampled_and_logmel_matches_torchaudio(media):
    import soundfile
    import torchaudio

    wave = read_audio(media["dir"] / "low.wav", 16000)
    assert len(wave) == 16000
    raw, rate = soundfile.read(str(media["dir"] / "low.wav"), dtype="float32")
    expected_wave = torchaudio.functional.resample(torch.from_numpy(raw), rate, 16000)
    np.testing.assert_allclose(wave, expected_wave.numpy(), atol=1e-6)
    features = AudioEncoder(n_mels=40, hop_ms=10.0).encode_files([media["dir"] / "low.wav"])[0]
    mel = torchaudio.transforms.MelSpectrogram(16000, n_fft=640, hop_length=160, n_mels=40)(expected_wave)
    np.testing.assert_allclose(features, torch.log(mel + 1e-6).T.numpy(), atol=1e-4)


def test_audio_from_mp4_has_its_tone_in_different_mel_bands(media):
    encoder = AudioEncoder()
    low, high = encoder.encode_files([media["dir"] / "red.mp4", media["dir"] / "blue.mp4"])
    assert low.shape[1] == high.shape[1] == 64
    assert abs(len(low) - 2 * 50) <= 3  # 2 s at 20 ms hops
    assert low.mean(0).argmax() < high.mean(0).argmax()  # 440 Hz below 880 Hz


def test_wav2vec2_encoder_equals_a_direct_model_call(media):
    from transformers import Wav2Vec2Model

    encoder = AudioEncoder(str(media["wav2vec2"]))
    features = encoder.encode_files([media["dir"] / "low.wav"])[0]
    wave = read_audio(media["dir"] / "low.wav", SR)
    model = Wav2Vec2Model.from_pretrained(media["wav2vec2"]).eval()
    with torch.no_grad():
        expected = model(torch.from_numpy((wave - wave.mean()) / np.sqrt(wave.var() + 1e-7))[None]).last_hidden_state[0]
    assert features.shape[1] == 32 and len(features) > 100
    np.testing.assert_allclose(features, expected.numpy(), atol=1e-4)


def test_transcript_encoder_embeds_each_cue_with_minilm(media):
    from mmsoc.media.sentences import embed_texts

    features = TranscriptEncoder().encode_files([media["dir"] / "talk.vtt"])[0]
    np.testing.assert_allclose(
        features, embed_texts(["I feel so happy today.", "What a wonderful day, really."]), atol=1e-5
    )


def test_bad_media_yield_errors_in_place_and_the_batch_goes_on(media, tmp_path):
    good = media["dir"] / "red.mp4"
    data = good.read_bytes()
    (tmp_path / "cut.mp4").write_bytes(data[: len(data) // 2])
    (tmp_path / "zero.mp4").write_bytes(b"")
    video = VideoEncoder(str(media["open_clip"]), num_frames=2)
    ok, cut, zero, gone = video.encode_files([good, tmp_path / "cut.mp4", tmp_path / "zero.mp4", tmp_path / "x.mp4"])
    assert ok.shape == (2, 16)
    assert "cannot decode video" in cut.reason and zero.reason == "empty file" and gone.reason == "missing"
    assert video.encoded == 1  # only the decodable file reached the model
    assert isinstance(AudioEncoder().encode_files([tmp_path / "cut.mp4"])[0], MediaError)
