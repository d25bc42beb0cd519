"""desiq: Social-IQ / DeSIQ video MCQA, perturbations, debiased splits and bias probes.

``desiq.probe(out, **options)`` runs ``desiq probe`` from Python (docs/python-api.md)."""

from desiq.api import ProbeResult, probe

__all__ = ["ProbeResult", "probe"]
