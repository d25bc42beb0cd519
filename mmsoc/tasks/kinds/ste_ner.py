"""SuperTweetEval named entities (TweetNER7): ``entity: type`` pairs turned into IOB tags over the tweet's
tokens, scored with seqeval's entity F1, macro over types (the paper) and micro (the official script).

The parsed label is the list of ``[entity, type]`` pairs, with whether the reader found each entity by its
first token (the official reading) or by all its tokens (the lenient one). References are
``{"tokens": [...], "tags": [...]}``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mmsoc.tasks.kinds._ste import SteKind, class_id
from mmsoc.tasks.kinds.base import Parsed
from mmsoc.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from mmsoc.metrics.suite_inputs import TagSequenceInput
    from mmsoc.tasks.supertweeteval.sample import SampleDraw

OFFICIAL, WHOLE = "official", "whole"


class NamedEntities(SteKind[dict[str, list[str]]]):
    name = "ste_ner"
    gold_field = "gold_label_sequence"

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_entities, official_entities

        if strict:
            pairs, clean = official_entities(raw)
            return Parsed({"match": OFFICIAL, "entities": [list(p) for p in pairs]}, clean and bool(pairs))
        pairs = lenient_entities(raw)
        return Parsed({"match": WHOLE, "entities": [list(p) for p in pairs]}, bool(pairs) or not raw.strip())

    def target(self, spec: TaskSpec, label: object) -> str:
        from seqeval.metrics.sequence_labeling import get_entities

        reference = self.check_reference(spec, label)
        return ",".join(
            f"{' '.join(reference['tokens'][start : end + 1])}: {kind}"
            for kind, start, end in get_entities(reference["tags"])
        )

    def check_reference(self, spec: TaskSpec, value: object) -> dict[str, list[str]]:
        if (
            not isinstance(value, dict)
            or not isinstance(value.get("tokens"), list)
            or not isinstance(value.get("tags"), list)
            or len(value["tokens"]) != len(value["tags"])
        ):
            raise ValueError('an NER reference is {"tokens": [...], "tags": [...]} with one tag per token')
        unknown = [tag for tag in value["tags"] if tag not in spec.labels]
        if unknown:
            raise ValueError(f"unknown tags {unknown[:3]}")
        return {"tokens": [str(t) for t in value["tokens"]], "tags": list(value["tags"])}

    def checked_input(
        self, spec: TaskSpec, predictions: Sequence[Any], references: list[dict[str, list[str]]]
    ) -> TagSequenceInput:
        from mmsoc.metrics.suite_inputs import TagSequenceInput
        from mmsoc.tasks.supertweeteval.answers import entity_tags

        predicted = []
        for prediction, reference in zip(predictions, references):
            label: Any = self.parse(spec, prediction, True).label if isinstance(prediction, str) else prediction
            label = label or {"match": OFFICIAL, "entities": []}
            pairs = [(str(e), str(t)) for e, t in label.get("entities", [])]
            predicted.append(entity_tags(reference["tokens"], pairs, whole=label.get("match") == WHOLE))
        return TagSequenceInput([r["tags"] for r in references], predicted)

    def read_gold(self, row: dict[str, Any], names: tuple[str, ...]) -> dict[str, list[str]]:
        """Tag ids over the row's ``text_tokenized``."""
        from mmsoc.tasks.supertweeteval.tasks import NER_TAGS

        value = row[self.gold_field]
        tokens = [str(token) for token in row["text_tokenized"]]
        tags = [NER_TAGS[class_id(tag)] for tag in value]
        if len(tags) != len(tokens):
            raise ValueError(f"{len(tags)} tags for {len(tokens)} tokens")
        return {"tokens": tokens, "tags": tags}

    def sample_row(self, draw: SampleDraw) -> dict[str, object]:
        from mmsoc.tasks.supertweeteval.sample import entities_row

        return entities_row(draw)


KIND = NamedEntities()
