"""The MM-Soc suite: one module per dataset, each declaring its ``DATASET`` (local loader, hub copies,
sample writer) and the ``TASKS`` it serves; ``ocr`` spans two datasets. The ten tasks' prompts are
the benchmark's own (``prompt_version`` ``mmsoc-v1``); the "why" questions that ask a teacher to explain
a gold label follow the MM-Soc release's question table, with the labels it left out (not hateful,
neutral sentiment, video tags) written in the same style."""
