"""Reading SocKET answers as the official ``experiments/zeroshot/eval.py`` does, and a named lenient reader.

Both readers see the answer as ``predict.py`` kept it: the stripped generation up to its first line
break (:func:`answer_text`; a no-op on the official prediction files, which hold that already).

* **official** (:func:`official_choice`, :func:`official_number`, :func:`span_candidates`): the script's
  rules, defects included. Classification: the options lower-cased, the first option in the prompt
  file's order that the lower-cased answer *starts with* wins (``true``/``false`` count as yes/no), so
  ``Not intimate at all`` reads as ``Not intimate`` (questionintimacy's last option is unreachable) and
  ``Not sure`` reads as ``No``. ``tweet_emoji``: the answer's distinct emoji *code points*; exactly one,
  and it must be an option (the flag 🇺🇸 is two code points and never found). The script looks code
  points up in ``emoji.UNICODE_EMOJI['en']``, which emoji 2.0 removed; this uses ``emoji.EMOJI_DATA``,
  the same table in today's package. Regression: exactly one match of ``[0-9](?:\\.[0-9])?``.
  Spans: the text after the question's last clause, its double-quoted parts (else the whole answer);
  scoring snaps them to the input (:mod:`mmsoc.metrics.spans`).
* **lenient** (:func:`lenient_choice`): the official reader with its two defects fixed: options are
  tried longest first (``Not intimate at all`` is found), and emoji are found with
  ``emoji.emoji_list``, whole (multi-code-point emoji such as 🇺🇸 and ``❤️`` included; a trailing
  variation selector is ignored when matching an option). Regression and span answers have no
  lenient reader.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mmsoc.tasks.spec import TaskSpec

NUMBER = re.compile(r"[0-9](?:\.[0-9])?")
QUOTED = re.compile(r'"(.*?)"')
EMOJI_TASK = "socket/tweet_emoji"
VARIATION_SELECTOR = "\ufe0f"


def answer_text(raw: str) -> str:
    """The generation as ``predict.py`` keeps it for causal models: stripped, cut at the first line break."""
    return raw.strip().split("\n")[0].strip()


def _options(spec: TaskSpec) -> list[str]:
    return [option.lower() for option, _ in spec.answers]


def _first_prefix(answer: str, options: Sequence[str], order: Iterable[int]) -> int | None:
    line = answer.lower().strip()
    for index in order:
        option = options[index]
        if (
            line.startswith(option)
            or (option == "yes" and line.startswith("true"))
            or (option == "no" and line.startswith("false"))
        ):
            return index
    return None


def official_choice(spec: TaskSpec, answer: str) -> int | None:
    """The option index eval.py reads from ``answer``, or None (a missing answer)."""
    options = _options(spec)
    if spec.id == EMOJI_TASK:
        import emoji

        found = {char for char in answer if char in emoji.EMOJI_DATA}
        return options.index(found.pop()) if len(found) == 1 and next(iter(found)) in options else None
    return _first_prefix(answer, options, range(len(options)))


def lenient_choice(spec: TaskSpec, answer: str) -> int | None:
    """The option index with the official reader's defects fixed (longest option first, whole emoji)."""
    options = _options(spec)
    if spec.id == EMOJI_TASK:
        import emoji

        found = {match["emoji"].replace(VARIATION_SELECTOR, "") for match in emoji.emoji_list(answer)}
        plain = [option.replace(VARIATION_SELECTOR, "") for option in options]
        return plain.index(found.pop()) if len(found) == 1 and next(iter(found)) in plain else None
    longest_first = sorted(range(len(options)), key=lambda index: (-len(options[index]), index))
    return _first_prefix(answer, options, longest_first)


def official_number(answer: str) -> float | None:
    """The single number eval.py reads (one digit, optionally a point and one digit), else None."""
    found = NUMBER.findall(answer)
    return float(found[0]) if len(found) == 1 else None


def question_suffix(spec: TaskSpec) -> str:
    """The question's last comma-separated clause, which eval.py cuts an echoed question at."""
    return spec.prompt.split(",")[-1]


def span_candidates(spec: TaskSpec, answer: str) -> list[str]:
    """The quoted parts of the answer after an echoed question (else the whole answer), as eval.py takes them."""
    rest = answer.split(question_suffix(spec))[-1]
    return QUOTED.findall(rest) or [rest]
