"""Metric groups, one module each; every module declares ``GROUP`` (see ``mmsoc.metrics.registry``)."""
