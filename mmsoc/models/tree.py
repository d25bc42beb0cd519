"""The token trie of a group's requests after their shared prefix, and the memory a pass over it needs.

:class:`Trie` holds each distinct (prefix, token) once, so a token whose prefix was already computed is
not computed again; :class:`Row` is an option row's place in it; :class:`Footprint` estimates the bytes a
forward needs from the language model's config (``mmsoc.models.prefix`` chunks its passes by it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Trie:
    """Token sequences after a prefix, each distinct (prefix, token) once: node i holds ``tokens[i]``, its
    parent (-1: the prefix itself) and its depth; a parent always comes before its children."""

    tokens: list[int] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)
    depths: list[int] = field(default_factory=list)
    index: dict[tuple[int, int], int] = field(default_factory=dict)

    def path(self, tokens: Sequence[int]) -> list[int]:
        """The nodes spelling ``tokens`` from the prefix, added where new."""
        node, out = -1, list[int]()
        for token in tokens:
            key = (node, int(token))
            if key not in self.index:
                self.index[key] = len(self.tokens)
                self.tokens.append(int(token))
                self.parents.append(node)
                self.depths.append(len(out))
            node = self.index[key]
            out.append(node)
        return out

    def lineage(self, node: int) -> list[int]:
        """The node and its ancestors."""
        out = []
        while node >= 0:
            out.append(node)
            node = self.parents[node]
        return out


@dataclass(frozen=True)
class Row:
    """One option row in the trie: the nodes whose next-token log-probabilities score its target tokens."""

    request: int
    option: int
    queries: list[int]
    targets: list[int]

    @property
    def last(self) -> int:
        """The deepest node the row needs run."""
        return max(self.queries, default=-1)


@dataclass(frozen=True)
class Footprint:
    """Bytes a forward of the language model needs, estimated from its config."""

    cached: int
    """Per token kept in the KV cache."""
    working: int
    """Per token in a forward (hidden states, MLP activations)."""
    scored: int
    """Per (token, context token) pair: the attention scores of every head and the mask."""
    logits: int
    """Per position whose logits are kept."""

    @classmethod
    def of(cls, model: Any) -> Footprint:
        config = model.config.get_text_config()
        heads = config.num_attention_heads
        kv_heads = getattr(config, "num_key_value_heads", None) or heads
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
        size = model.dtype.itemsize
        return cls(
            cached=2 * config.num_hidden_layers * kv_heads * head_dim * size,
            working=(4 * config.hidden_size + 3 * getattr(config, "intermediate_size", 4 * config.hidden_size)) * size,
            scored=heads * 4 + size,
            logits=config.vocab_size * 4 * 3,
        )

    def prefix(self, tokens: int) -> int:
        return tokens * (self.cached + self.working)

    def chunk(self, nodes: int, context: int, kept: int) -> int:
        return nodes * (self.cached + self.working) + nodes * context * self.scored + kept * self.logits
