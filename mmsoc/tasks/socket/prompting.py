"""The official zero-shot prompt of a SocKET item (``experiments/zeroshot/predict.py``).

The Table 8 question with the item's text filled in (``{text}``, or ``{text_a}`` and ``{text_b}`` for pairs,
each side as split at ``[SEP]``), wrapped as the script wraps it for every model but Alpaca/LLaMA ones:

* classification and pairs: ``Question: {question}\\nOptions:\\n{one option per line}\\nPlease only answer
  with the options. Answer:``
* regression and spans: ``Question: {question}\\nAnswer:``

The script also cuts long texts to fit 2048 tokens by encoding and decoding them with the model's tokenizer
(which puts a BOS token inside the quotes for some tokenizers); here texts are given whole.
"""

from __future__ import annotations

from mmsoc.core.records import Example
from mmsoc.models.base import Request, Text
from mmsoc.tasks.socket.table import options, type_of
from mmsoc.tasks.spec import TaskSpec
from mmsoc.tasks.templates import fill


def socket_prompt(spec: TaskSpec, example: Example, question: str) -> str:
    fields = {
        "text": example.text,
        "text_a": str(example.meta.get("text_a", "")),
        "text_b": str(example.meta.get("text_b", "")),
    }
    asked = fill(question, fields)
    if type_of(spec) in ("CLS", "PAIR"):
        listed = "\n".join(options(spec))
        return f"Question: {asked}\nOptions:\n{listed}\nPlease only answer with the options. Answer:"
    return f"Question: {asked}\nAnswer:"


def socket_request(spec: TaskSpec, example: Example, question: str, seed: int | None) -> Request:
    return Request(example.task, example.id, (Text(socket_prompt(spec, example, question)),), seed, example.text)
