"""mmsoc: evaluate multimodal language models on social-media understanding."""

__version__ = "0.1.0"
