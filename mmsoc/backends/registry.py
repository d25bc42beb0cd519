"""Build a backend from a ``--model`` value: ``random``, ``text-baseline[:CLASSIFIER]`` or an HF model."""

from __future__ import annotations

from mmsoc.backends.base import Backend

TEXT_BASELINE = "text-baseline"
RANDOM = "random"


def _is_text_baseline(model: str) -> bool:
    return model == TEXT_BASELINE or model.startswith(TEXT_BASELINE + ":")


def needs_images(model: str) -> bool:
    """Whether the backend for ``model`` reads images (the baselines read text only)."""
    return not (model == RANDOM or _is_text_baseline(model))


def make_backend(model: str, data: str, dtype: str = "float32", device: str = "auto",
                 adapter: str | None = None) -> Backend:
    """``random`` | ``text-baseline`` (frozen MiniLM + logistic regression) |
    ``text-baseline:ID_OR_DIR`` (full fine-tuning of that sequence classifier) | any
    image-text-to-text hub id or folder. Baselines train on the ``train`` split of ``data``."""
    if adapter and not needs_images(model):
        raise ValueError(f"--adapter applies to image-text models, not to {model!r}")
    if model == RANDOM:
        from mmsoc.backends.random_baseline import RandomBackend

        return RandomBackend()
    if _is_text_baseline(model):
        from mmsoc.backends.text_baseline import TextBaselineBackend

        classifier = model.partition(":")[2] or None
        return TextBaselineBackend(data, classifier=classifier, device=device)
    from mmsoc.backends.hf import HFBackend

    return HFBackend(model, dtype=dtype, device=device, adapter=adapter)
