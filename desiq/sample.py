"""The embedded sample: a small, deterministic Social-IQ 2.0 style dataset generated on demand.

Each video has a hidden emotion of its main speaker. It is visible in every modality: the words of
the transcript, the colour of the frames and the pitch of the audio track. Questions ask about that
emotion, so the media carry the answer. The options also carry a realistic answer-only bias, like
the real release: correct answers are mostly long and nuanced, the "matched" distractors mostly
short and extreme. Rebuilding the split as DeSIQ_d removes that bias, because every distractor then
is the (nuanced) correct answer of another question.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from desiq.formats.siq2 import write_siq2
from desiq.records import MCQAItem, position_id

SEED = 20240229
SPLITS = {"train": 40, "val": 16}
"""Videos per split."""
CLIP_SECONDS = 2
FPS = 8
FRAME_SIZE = (96, 64)
SAMPLE_RATE = 22050


@dataclass(frozen=True)
class Emotion:
    name: str
    adjectives: tuple[str, ...]
    gesture: str
    reaction: str
    color: tuple[int, int, int]
    pitch_hz: float


EMOTIONS = (
    Emotion("happy", ("happy", "delighted", "cheerful"), "smile", "smiles back warmly", (235, 200, 40), 660.0),
    Emotion(
        "sad", ("sad", "downcast", "disappointed"), "look at the floor", "offers quiet comfort", (40, 70, 160), 220.0
    ),
    Emotion(
        "angry", ("angry", "irritated", "furious"), "raise the voice", "steps back defensively", (200, 30, 30), 440.0
    ),
    Emotion(
        "nervous", ("nervous", "anxious", "uneasy"), "fidget with the hands", "tries to reassure", (150, 60, 170), 880.0
    ),
    Emotion("calm", ("calm", "relaxed", "composed"), "speak slowly", "listens patiently", (40, 160, 90), 330.0),
)

PEOPLE = (
    "the woman in the red scarf",
    "the man with glasses",
    "the girl with the ponytail",
    "the man in the grey suit",
    "the older woman",
    "the boy in the blue shirt",
    "the host",
    "the man with the beard",
)
TOPICS = (
    "the job interview",
    "the surprise party",
    "the broken vase",
    "the exam results",
    "the new neighbour",
    "the wedding plans",
    "the lost dog",
    "the business deal",
    "the trip abroad",
    "the family dinner",
)
HEDGES = (
    "although {pr} tries not to show it",
    "which shows in the way {pr} speaks",
    "since the topic clearly matters to {ob}",
    "and {pr} keeps glancing at the others",
    "even though {pr} says little about it",
)
EXTREMES = (
    "{p} bursts out laughing and leaves the room.",
    "{p} throws a chair across the room.",
    "{p} falls asleep in the middle of the talk.",
    "{p} starts singing loudly.",
    "{p} says that it is all a big hoax.",
    "{p} runs away screaming.",
    "{p} does not care about anything at all.",
    "{p} is a famous movie star.",
)


@dataclass(frozen=True)
class SampleVideo:
    vid: str
    emotion: Emotion
    speaker: str
    listener: str
    topic: str
    n_questions: int


def _pronouns(person: str) -> tuple[str, str]:
    female = any(w in person for w in ("woman", "girl"))
    return ("she", "her") if female else ("he", "him")


def _nuanced(rng: np.random.Generator, person: str, emotion: Emotion, topic: str) -> str:
    pr, ob = _pronouns(person)
    adj = emotion.adjectives[rng.integers(len(emotion.adjectives))]
    hedge = HEDGES[rng.integers(len(HEDGES))].format(pr=pr, ob=ob)
    return f"{person.capitalize()} seems {adj} about {topic}, {hedge}."


def _plain(rng: np.random.Generator, person: str, emotion: Emotion) -> str:
    if rng.random() < 0.5:
        return EXTREMES[rng.integers(len(EXTREMES))].format(p=person.capitalize())
    return f"{person.capitalize()} is {emotion.adjectives[rng.integers(len(emotion.adjectives))]}."


def _questions(video: SampleVideo, rng: np.random.Generator, first: int) -> list[MCQAItem]:
    """The video's questions; ``first``: the position of its first question in the split."""
    e, s, li, t = video.emotion, video.speaker, video.listener, video.topic
    templates = (
        f"How does {s} feel about {t}?",
        f"Why does {s} {e.gesture}?",
        f"What is the mood of {s} while talking to {li}?",
        f"How would you describe {s} when {t} comes up?",
        f"What emotion does {s} show during the conversation?",
        f"How does {s} come across to {li}?",
    )
    items = []
    for n in range(video.n_questions):
        others = [x for x in EMOTIONS if x is not e]
        wrong = [others[i] for i in rng.permutation(len(others))[:3]]
        correct = _nuanced(rng, s, e, t) if rng.random() < 0.8 else _plain(rng, s, e)
        rewrite = _nuanced(rng, s, wrong[0], t) if rng.random() < 0.6 else _plain(rng, s, wrong[0])
        matched = [_nuanced(rng, s, w, t) if rng.random() < 0.15 else _plain(rng, s, w) for w in wrong[1:]]
        options = [correct, rewrite, *matched]
        markers = ["corr", "rewrite", "matched", "matched"]
        if len(set(options)) < len(options):
            options = [o if options.index(o) == i else o[:-1] + " at first." for i, o in enumerate(options)]
        order = rng.permutation(4)
        qid = f"{video.vid}_q{n}_0"
        items.append(
            MCQAItem(
                id=position_id(qid, first + n),
                qid=qid,
                video=video.vid,
                question=templates[n % len(templates)],
                options=tuple(options[i] for i in order),
                answer_idx=int(np.argmin(order)),
                option_markers=tuple(markers[i] for i in order),
                ts=f"0.00-{CLIP_SECONDS:.6f}",
            )
        )
    return items


def sample_videos(seed: int = SEED) -> dict[str, list[SampleVideo]]:
    """The sample's videos per split; the first training video has a single question."""
    rng = np.random.default_rng(seed)
    out, k = {}, 0
    for split, n in SPLITS.items():
        videos = []
        for _ in range(n):
            people = rng.permutation(len(PEOPLE))[:2]
            videos.append(
                SampleVideo(
                    vid=f"sample{k:03d}",
                    emotion=EMOTIONS[k % len(EMOTIONS)],
                    speaker=PEOPLE[people[0]],
                    listener=PEOPLE[people[1]],
                    topic=TOPICS[rng.integers(len(TOPICS))],
                    n_questions=1 if k == 0 else int(rng.integers(4, 7)),
                )
            )
            k += 1
        out[split] = videos
    return out


def sample_items(split: str = "train", seed: int = SEED) -> list[MCQAItem]:
    """The sample's questions for one split ("train" or "val")."""
    videos = sample_videos(seed)
    if split not in videos:
        raise ValueError(f"the sample has splits {sorted(videos)}, not {split!r}")
    rng = np.random.default_rng([seed, list(SPLITS).index(split)])
    items: list[MCQAItem] = []
    for video in videos[split]:
        items += _questions(video, rng, len(items))
    return items


def transcript_vtt(video: SampleVideo, seed: int = SEED) -> str:
    """A WebVTT transcript whose words give away the speaker's emotion."""
    rng = np.random.default_rng([seed, int(video.vid[-3:])])
    adj = video.emotion.adjectives
    lines = (
        f"Honestly, I feel {adj[rng.integers(len(adj))]} about {video.topic}.",
        f"You can tell, right? I am just so {adj[rng.integers(len(adj))]}.",
        "Let us talk about it later.",
    )
    step = CLIP_SECONDS / len(lines)
    cues = [f"{_ts(i * step)} --> {_ts((i + 1) * step)}\n{line}" for i, line in enumerate(lines)]
    return "WEBVTT\n\n" + "\n\n".join(cues) + "\n"


def _ts(seconds: float) -> str:
    return f"00:00:{seconds:06.3f}"


def frames(video: SampleVideo) -> np.ndarray:
    """RGB frames (T, H, W, 3): the emotion's colour with a square moving across it."""
    w, h = FRAME_SIZE
    n = CLIP_SECONDS * FPS
    out = np.empty((n, h, w, 3), np.uint8)
    out[:] = np.array(video.emotion.color, np.uint8)
    for t in range(n):
        x = int(t * (w - 16) / max(n - 1, 1))
        out[t, h // 2 - 8 : h // 2 + 8, x : x + 16] = 255
    return out


def waveform(video: SampleVideo) -> np.ndarray:
    """Mono float32 audio: a tone at the emotion's pitch with a soft envelope."""
    t = np.arange(CLIP_SECONDS * SAMPLE_RATE) / SAMPLE_RATE
    envelope = 0.5 * (1 - np.cos(2 * np.pi * t / CLIP_SECONDS))
    return (0.3 * envelope * np.sin(2 * np.pi * video.emotion.pitch_hz * t)).astype(np.float32)


def write_mp4(path: Path, rgb: np.ndarray, audio: np.ndarray) -> None:
    """Write an MPEG-4 (part 2) mp4 with an AAC audio track.

    FFmpeg's own mpeg4 encoder, single-threaded, gives the same bytes on every run; libx264 here
    does not.
    """
    import av

    with av.open(str(path), "w", format="mp4") as container:
        vstream = container.add_stream("mpeg4", rate=FPS)
        vstream.width, vstream.height, vstream.pix_fmt = rgb.shape[2], rgb.shape[1], "yuv420p"
        vstream.codec_context.thread_count = 1
        astream = container.add_stream("aac", rate=SAMPLE_RATE, layout="mono")
        for image in rgb:
            frame = av.VideoFrame.from_ndarray(image, format="rgb24").reformat(format="yuv420p")
            container.mux(vstream.encode(frame))
        container.mux(vstream.encode())
        chunk = 1024
        for start in range(0, len(audio), chunk):
            piece = audio[start : start + chunk][None, :]
            sound = av.AudioFrame.from_ndarray(piece, format="flt", layout="mono")
            sound.sample_rate, sound.pts, sound.time_base = SAMPLE_RATE, start, Fraction(1, SAMPLE_RATE)
            container.mux(astream.encode(sound))
        container.mux(astream.encode())


def write_sample(out_dir: str | Path, media: bool = True, seed: int = SEED) -> Path:
    """Write the sample in the Social-IQ 2.0 layout: qa/qa_{train,val}.json (JSON Lines), and with
    ``media``: video/<vid>.mp4, audio/wav/<vid>.wav, transcript/<vid>.vtt."""
    import soundfile

    from mmsoc.core.io import atomic_open, write_text

    out = Path(out_dir)
    for split in SPLITS:
        write_siq2(out / "qa" / f"qa_{split}.json", sample_items(split, seed))
    if not media:
        return out
    for folder in ("video", "audio/wav", "transcript"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    for video in (v for videos in sample_videos(seed).values() for v in videos):
        write_text(out / "transcript" / f"{video.vid}.vtt", transcript_vtt(video, seed))
        audio = waveform(video)
        with atomic_open(out / "audio" / "wav" / f"{video.vid}.wav", "wb") as handle:
            soundfile.write(handle, audio, SAMPLE_RATE, format="WAV", subtype="PCM_16")
        tmp = out / "video" / f".{video.vid}.mp4.tmp"
        write_mp4(tmp, frames(video), audio)
        tmp.replace(out / "video" / f"{video.vid}.mp4")
    return out


def ensure_sample() -> Path:
    """The sample with its media in the cache (``desiq-sample-<fingerprint>`` under ``cache_root()``),
    written once for this code and these encoders: built beside it and put in place in one rename, so
    concurrent runs never see half a folder (one that lost the race leaves the other's, identical, in place)."""
    import av
    import soundfile

    from mmsoc.core.io import building_folder, swap_in_folder
    from mmsoc.core.paths import cache_root

    modules = (__name__, write_siq2.__module__, MCQAItem.__module__)
    sources = b"".join(Path(str(sys.modules[name].__file__)).read_bytes() for name in modules)
    versions = f"{av.__version__} {soundfile.__version__} {np.__version__}".encode()
    path = cache_root() / f"desiq-sample-{hashlib.sha256(sources + versions).hexdigest()[:12]}"
    if not path.is_dir():
        with building_folder(path) as build:
            write_sample(build)
            if not path.is_dir():
                swap_in_folder(build, path)
    return path
