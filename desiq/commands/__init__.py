"""Command modules of the ``desiq`` CLI; each registers its commands on ``desiq.cli.app``."""
