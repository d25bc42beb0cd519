"""mmsoc: evaluate multimodal language models on social-media understanding.

``mmsoc.evaluate(model, tasks, out, **options)`` runs ``mmsoc eval`` from Python (docs/python-api.md)."""

from mmsoc.api import Evaluation, evaluate

__version__ = "0.1.0"
__all__ = ["Evaluation", "evaluate"]
