"""Model backends behind one batch-first contract (see ``base.Backend``).

``mmsoc.backends.hf.load_hf_model`` loads (model, processor, family) for any image-text-to-text
model; ``mmsoc.backends.registry.make_backend`` builds a backend from a ``--model`` value.
"""

from mmsoc.backends.base import PAPER_SEEDS, Backend, GenerationSettings, Request
from mmsoc.backends.chat import compose_prompt, detect_family, format_prompt

__all__ = ["PAPER_SEEDS", "Backend", "GenerationSettings", "Request", "compose_prompt", "detect_family",
           "format_prompt"]
