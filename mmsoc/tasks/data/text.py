"""Input text rules of the benchmarks' official code."""

from __future__ import annotations

import re

END_PUNCTUATION = ".,:;?!|"


def truncate_words(text: str, max_words: int) -> str:
    """MM-Soc's ``truncate_input`` (claws-lab/MMSoc ``mmsoc/utils/data_utils.py``), rule for rule:
    newline runs and then any whitespace run become one space, the text is split on single spaces,
    the first ``max_words`` pieces are re-joined with spaces, and ``.`` is appended unless the result
    ends with one of ``. , : ; ? ! |`` (also when nothing was cut). ``max_words`` 0 returns the text
    unchanged (no truncation), which the official helper has no setting for."""
    if max_words <= 0:
        return text
    text = re.sub(r"\s+", " ", re.sub(r"\n+", " ", text))
    text = " ".join(text.split(" ")[:max_words])
    return text if text.endswith(tuple(END_PUNCTUATION)) else text + "."
