"""``t5``: a T5 encoder fine-tuned with an option-scoring head on text inputs.

It is the T5-fusion scorer (``desiq.fusion``) with no media. With ``--architecture ours`` (default) the T5
reads the option (and question) tokens, as the paper's text-only probe behind its NCAQ numbers does
(``socialiq2/text_only_model.py``); ``--architecture paper`` is the Concat model over frozen BERT features.
"""

from __future__ import annotations

from desiq.probes import ProbeBackend, ProbeEntry, ProbeOptions


def _build(options: ProbeOptions) -> ProbeBackend:
    from desiq.fusion.fusion_probe import FusionProbe

    return FusionProbe(
        options.backbone,
        None,
        epochs=options.epochs,
        lr=options.lr,
        progress=options.progress,
        name="t5",
        media=False,
        architecture=options.architecture,
        text_encoder=options.text_encoder,
    )


PROBE = ProbeEntry("t5", "fine-tuned T5 encoder (the T5-fusion scorer without media)", _build)
