"""Command modules of the ``mmsoc`` CLI; each registers its commands on ``mmsoc.cli.app``."""
