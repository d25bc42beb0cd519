"""``t5``: the paper's probe, a T5 encoder fine-tuned with an option-scoring head on text inputs.

It is the T5-fusion scorer (``desiq.fusion``) with no media: one T5 option-scoring model in desiq.
"""

from __future__ import annotations

from typing import Any

from desiq.probes import ProbeEntry, ProbeOptions


def _build(options: ProbeOptions) -> Any:
    from desiq.fusion.probe import FusionProbe

    return FusionProbe(options.backbone, None, epochs=options.epochs, lr=options.lr, progress=options.progress,
                       name="t5", media=False)


PROBE = ProbeEntry("t5", "fine-tuned T5 encoder (the T5-fusion scorer without media)", _build)
