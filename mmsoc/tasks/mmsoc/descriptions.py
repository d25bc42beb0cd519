"""Reference descriptions of memes: ``DIR/descriptions/{image_description,social_context}_{split}.jsonl``.

Rows ``{id, image, reference}`` and optionally ``text`` (the meme text); ``image`` is relative to
``DIR`` itself, so the references can point at memes of any dataset folder
(e.g. ``hateful_memes/img/01235.png``). No hub copy exists (the MM-Soc references were written by
GPT-4V and not released).
"""

from __future__ import annotations

from pathlib import Path

from mmsoc.core.io import write_jsonl
from mmsoc.tasks.data.dataset import Dataset, SampleContext
from mmsoc.tasks.data.table import Table, TableReader, split_file_loader
from mmsoc.tasks.mmsoc.hateful_memes import SAMPLE_MEMES, SampleMeme
from mmsoc.tasks.spec import TaskSpec

FOLDER = "descriptions"
TITLE = "memes"

TASKS = (
    TaskSpec(
        "image_description",
        TITLE,
        "generation",
        "Describe the scene, such as its major subjects, colors, and texture.",
        headline="rougeL",
        sources=(FOLDER,),
        order=9,
    ),
    TaskSpec(
        "social_context",
        TITLE,
        "generation",
        "Describe the cultural and social context of the image.",
        headline="rougeL",
        sources=(FOLDER,),
        order=10,
    ),
)


READ = TableReader(
    {task.id: Table(TITLE, "image", "reference", strip_label=True, text=("text",), label_first=True) for task in TASKS}
)
"""Generation examples: the label is the reference description."""


def write_sample(root: Path, context: SampleContext) -> None:
    """Both reference files for the sample memes (written before, by ``hateful_memes``): the picture as
    drawn, and a social context read from the caption and the picture together."""
    memes: dict[str, list[SampleMeme]] = context.shared[SAMPLE_MEMES]
    for split, items in memes.items():
        scenes, contexts = [], []
        for meme in items:
            common = {"id": meme.id, "image": meme.image, "text": meme.text}
            scenes.append({**common, "reference": meme.description})
            contexts.append({**common, "reference": social_context(meme.hateful, meme.group)})
        write_jsonl(root / f"image_description_{split}.jsonl", scenes)
        write_jsonl(root / f"social_context_{split}.jsonl", contexts)


def social_context(hateful: bool, group: str) -> str:
    """Reference social-context description of a sample hateful or benign meme (the caption alone is
    neutral: the picture decides)."""
    if hateful:
        return (
            f"The caption names {group} neutrally, but the picture crosses them out on a dark background: "
            "together they call for the group to be removed. Posts like this spread hostility toward a group "
            "of people and are typical of online hate speech."
        )
    return (
        f"The caption names {group} and the picture shows them beside a heart on a bright background: "
        "a friendly welcome. It is the kind of warm community post people share on social media."
    )


DATASET = Dataset(
    FOLDER,
    split_file_loader(READ, "{task}_{split}.jsonl", image_root=lambda root: root.parent),
    write_sample=write_sample,
    sample_order=1,
)
"""``DIR/descriptions/{task}_{split}.jsonl``, images under ``DIR``."""
