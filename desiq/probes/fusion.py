"""``fusion``: the T5-fusion model as a probe, on any input setting (media from the Social-IQ folder)."""

from __future__ import annotations

from desiq.probes import ProbeBackend, ProbeEntry, ProbeOptions


def _build(options: ProbeOptions) -> ProbeBackend:
    from desiq.fusion.fusion_probe import FusionProbe

    return FusionProbe(
        options.backbone,
        options.media_root,
        epochs=options.epochs,
        lr=options.lr,
        progress=options.progress,
        architecture=options.architecture,
        text_encoder=options.text_encoder,
        audio_encoder=options.audio_encoder,
    )


PROBE = ProbeEntry("fusion", "T5-fusion over question, options and media", _build, media=True)
