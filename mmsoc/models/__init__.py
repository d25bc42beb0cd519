"""The model contract (``base``) and its backends, built by name through ``registry.make_model``."""

from mmsoc.models.base import PAPER_SEEDS, GenerationSettings, Model, OptionScores, Request
from mmsoc.models.registry import ModelOptions, make_model

__all__ = ["PAPER_SEEDS", "GenerationSettings", "Model", "ModelOptions", "OptionScores", "Request", "make_model"]
