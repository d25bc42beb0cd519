"""How each transformers model family takes video and audio (checked on tiny models of transformers 5.24).

A :class:`MediaRecipe` says, for one family (``model_type``), how a video reaches the model:

- ``video``: the processor's own video input (``videos=[(T, H, W, 3) uint8, ...]``, one per prompt);
- ``frames``: the sampled frames as several images of one prompt (``images=[[f1..fT], ...]``);
- ``grid``: the frames tiled into one image, for processors that take one image per prompt (BLIP-2 and
  InstructBLIP give a second image no effect at all, silently);

and whether it hears audio (mono float32 at 16 kHz; processors never resample). Families that need
time (Qwen2.5-VL, Qwen3-VL, SmolVLM, Qwen2.5-Omni) get ``video_metadata`` (T frames spread over the
clip); Qwen3-VL and SmolVLM would resample pre-sampled frames unless told not to; InstructBLIP-Video
reads exactly 4 frames (more are cut silently); Qwen video processors cap pixels per frame as
qwen-vl-utils does. A family missing from the table is read from its
processor: a video processor means ``video``, an image processor ``frames``, a feature extractor audio.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from mmsoc.core.names import cannot_load

VIDEO_INPUTS = ("video", "frames", "grid")
QWEN_CAP = {"cap_pixels_per_frame": True}
"""Qwen video processors: cap each frame's pixels as the reference preprocessing (qwen-vl-utils) does,
so a clip's token cost follows its frame count (transformers keeps the uncapped default for now)."""


@dataclass(frozen=True)
class MediaRecipe:
    """How one family is given media; ``video`` is None when it cannot see video."""

    video: str | None = "frames"
    audio: bool = False
    video_kwarg: str = "videos"
    """The processor argument that takes videos (InstructBLIP-Video's is ``images``)."""
    num_frames: int | None = None
    """Frames the family reads whatever the run asks (None: the run's ``--num-frames``)."""
    metadata: bool = False
    """Pass ``video_metadata`` (frame times), for families whose positions or text use time."""
    resample: bool = True
    """False: ``do_sample_frames=False``, so the processor keeps the frames it is given."""
    fps_kwarg: bool = False
    """Qwen2.5-Omni reads the frame rate from ``videos_kwargs["fps"]`` instead of the metadata."""
    model_class: str | None = None
    """A transformers class to load instead of the Auto classes (a full Omni checkpoint: its thinker)."""
    images: bool = True
    """Whether the processor takes images at all."""
    video_kwargs: dict[str, Any] = field(default_factory=dict)
    """Processor arguments for calls with videos."""

    @property
    def modalities(self) -> frozenset[str]:
        flags = {"text": True, "image": self.images, "video": bool(self.video), "audio": self.audio}
        return frozenset(name for name, on in flags.items() if on)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


RECIPES: dict[str, MediaRecipe] = {
    "llava": MediaRecipe("frames"),
    "blip-2": MediaRecipe("grid"),
    "instructblip": MediaRecipe("grid"),
    "llava_onevision": MediaRecipe("video"),
    "llava_next_video": MediaRecipe("video"),
    "video_llava": MediaRecipe("video"),
    "qwen2_vl": MediaRecipe("video", video_kwargs=QWEN_CAP),
    "qwen2_5_vl": MediaRecipe("video", metadata=True, video_kwargs=QWEN_CAP),
    "qwen3_vl": MediaRecipe("video", metadata=True, resample=False, video_kwargs=QWEN_CAP),
    "qwen3_vl_moe": MediaRecipe("video", metadata=True, resample=False, video_kwargs=QWEN_CAP),
    "smolvlm": MediaRecipe("video", metadata=True, resample=False),
    "instructblipvideo": MediaRecipe("video", video_kwarg="images", num_frames=4, images=False),
    "qwen2_audio": MediaRecipe(None, audio=True, images=False),
    "qwen2_5_omni_thinker": MediaRecipe("video", audio=True, fps_kwarg=True, video_kwargs=QWEN_CAP),
    "qwen2_5_omni": MediaRecipe(
        "video",
        audio=True,
        fps_kwarg=True,
        video_kwargs=QWEN_CAP,
        model_class="Qwen2_5OmniThinkerForConditionalGeneration",
    ),
}
"""Families checked one by one (see the module docstring); SmolVLM's processor needs the ``num2words`` package."""


def recipe_for(config: Any, processor: Any = None, video_as: str | None = None) -> MediaRecipe:
    """The recipe of a model config's family (``video_as``: frames, grid or video, to override how video is given)."""
    model_type = getattr(config, "model_type", "")
    recipe = RECIPES.get(model_type) or _from_processor(processor)
    if video_as is None:
        return recipe
    if video_as not in VIDEO_INPUTS:
        raise ValueError(f"--video-as {video_as!r}: choose one of {', '.join(VIDEO_INPUTS)}")
    if video_as == "video" and getattr(processor, "video_processor", None) is None and recipe.video != "video":
        raise ValueError(f"{model_type or 'this model'} has no video processor: give video as frames or grid")
    if video_as != "video" and not recipe.images:
        raise ValueError(f"{model_type or 'this model'} takes no images: video can only be given as video")
    return replace(recipe, video=video_as)


def _from_processor(processor: Any) -> MediaRecipe:
    video = (
        "video"
        if getattr(processor, "video_processor", None) is not None
        else "frames"
        if getattr(processor, "image_processor", None) is not None
        else None
    )
    return MediaRecipe(
        video,
        audio=getattr(processor, "feature_extractor", None) is not None,
        images=getattr(processor, "image_processor", None) is not None,
    )


def model_class(config: Any, recipe: MediaRecipe) -> Any:
    """The class that loads this family: the recipe's own, image-text-to-text, else any multimodal LM
    (audio families such as Qwen2-Audio are only in the latter)."""
    import transformers
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

    if recipe.model_class:
        return getattr(transformers, recipe.model_class)
    if getattr(config, "model_type", "") in MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES:
        return transformers.AutoModelForImageTextToText
    return transformers.AutoModelForMultimodalLM


def describe(model_id_or_dir: str, video_as: str | None = None) -> MediaRecipe:
    """A model's recipe from its config and processor files alone (no weights loaded)."""
    from transformers import AutoConfig, AutoProcessor

    try:
        config = AutoConfig.from_pretrained(model_id_or_dir)
        processor = (
            None
            if config.model_type in RECIPES and video_as is None
            else AutoProcessor.from_pretrained(model_id_or_dir)
        )
    except (OSError, ValueError) as err:
        raise cannot_load(model_id_or_dir, err) from err
    return recipe_for(config, processor, video_as)
