"""Reading a chosen option from a model: log-likelihood choices and parsed written answers.

``--answer loglik`` chooses as lm-evaluation-harness does for multiple choice: ``acc`` takes the
option whose answer continuation has the highest summed log-likelihood, ``acc_norm`` the highest
log-likelihood per character of the continuation.

``--answer generate`` parses the written reply by one of three rules (``PARSE_RULES``):

- ``strict``: the reply is exactly one option's label (``B``, ``(B)``, ``B.``) or exactly its answer
  as the prompt asks it (``B. <text>``), case and surrounding space aside; its success rate is the
  share of replies in the requested format;
- ``lenient``: strict, else a label that opens the reply (``B) ...``, ``Answer: B``), else the one
  option whose text the reply contains, else the first label standing alone in the reply;
- ``challenge``: the Social-IQ 2.0 challenge baseline's rule, for prompts labelled by index: a reply
  is correct when the gold index is among the digits anywhere in it (so "0 or 2" counts for both).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

PARSE_RULES = ("lenient", "strict", "challenge")


def best(values: Sequence[float]) -> int:
    """Index of the largest value (the first on ties)."""
    return max(range(len(values)), key=lambda k: (values[k], -k))


def loglik_choices(logliks: Sequence[float], chars: Sequence[int]) -> tuple[int, int]:
    """(acc choice, acc_norm choice): by summed log-likelihood, and per character of the continuation."""
    return best(logliks), best([ll / max(n, 1) for ll, n in zip(logliks, chars)])


def _norm(text: str) -> str:
    return " ".join(text.strip().lower().split())


def strict_choice(reply: str, labels: Sequence[str], answers: Sequence[str]) -> int | None:
    """The option the reply names in exactly the requested form, else None."""
    text = reply.strip()
    for k, label in enumerate(labels):
        if re.fullmatch(rf"\(?{re.escape(label)}\)?\.?", text, flags=re.IGNORECASE):
            return k
    normalized = _norm(text)
    matches = [k for k, answer in enumerate(answers) if _norm(answer) == normalized]
    return matches[0] if len(matches) == 1 else None


def lenient_choice(reply: str, labels: Sequence[str], answers: Sequence[str], options: Sequence[str]) -> int | None:
    """The option the reply most plausibly names (see the module docstring), else None."""
    found = strict_choice(reply, labels, answers)
    if found is not None:
        return found
    alternatives = "|".join(re.escape(label) for label in labels)
    opening = re.match(
        rf"^\W*(?:answer\s*(?:is)?\s*:?\s*)?\(?({alternatives})\)?(?:[.):,\"]|\s*$)", reply.strip(), flags=re.IGNORECASE
    )
    if opening:
        return _label_index(opening.group(1), labels)
    text = _norm(reply)
    contained = [k for k, option in enumerate(options) if _norm(option) and _norm(option).rstrip(".") in text]
    if len(contained) == 1:
        return contained[0]
    alone = re.search(rf"(?<![\w]){'|'.join(f'(?:{re.escape(label)})' for label in labels)}(?![\w])", reply)
    return _label_index(alone.group(0), labels) if alone else None


def _label_index(found: str, labels: Sequence[str]) -> int | None:
    lowered = [label.lower() for label in labels]
    return lowered.index(found.lower()) if found.lower() in lowered else None


def reply_digits(reply: str) -> list[int]:
    """Every digit character of the reply, as the challenge baseline reads it (distinct, sorted)."""
    return sorted({int(c) for c in reply if c.isdigit()})


def parsed_row(reply: str, labels: Sequence[str], answers: Sequence[str], options: Sequence[str]) -> dict:
    """What a prediction row records of a written reply: both parses and the digits."""
    return {
        "raw": reply,
        "chosen": lenient_choice(reply, labels, answers, options),
        "strict": strict_choice(reply, labels, answers),
        "digits": reply_digits(reply),
    }


def row_correct(row: dict, answer: str, rule: str) -> bool:
    """Whether a prediction row is correct (``rule``: a parse rule for generated answers)."""
    gold = row["gold"]
    if answer == "loglik":
        return row["chosen"] == gold
    if rule == "challenge":
        return gold in row["digits"]
    return row["strict" if rule == "strict" else "chosen"] == gold
