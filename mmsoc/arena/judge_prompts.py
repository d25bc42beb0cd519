"""Judge prompts by version (data). A run folder records the version it asked with; a changed text gets a
new version, never an edit of an old one.

The verdict format follows FastChat's MT-bench pairwise judge (a critique, then ``[[A]]`` / ``[[B]]``
on the last line), with SocialArena's four labels (A, B, tie, both bad) in place of MT-bench's three.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JudgePrompt:
    version: str
    template: str
    """Text with ``{question}``, ``{text}``, ``{response_a}`` and ``{response_b}``; the item's images
    (for a model that reads them) come before it."""

    def render(self, question: str, text: str, response_a: str, response_b: str) -> str:
        return self.template.format(
            question=question or "(not given)", text=text or "(none)", response_a=response_a, response_b=response_b
        )


_V1 = """\
Please act as an impartial judge of two AI assistants' answers to the same social-media item (its image, \
if any, is shown above). Decide which answer responds better to the question: correct about what the item \
shows and says, aware of its social and cultural context, helpful, and free of harmful content. Do not let \
the order of the answers or their length sway you.

[Question]
{question}

[Text of the item]
{text}

[The start of Assistant A's answer]
{response_a}
[The end of Assistant A's answer]

[The start of Assistant B's answer]
{response_b}
[The end of Assistant B's answer]

First write a short critique comparing the two answers. Then give your verdict on the last line, exactly \
one of: "[[A]]" if assistant A is better, "[[B]]" if assistant B is better, "[[tie]]" if they are equally \
good, "[[both_bad]]" if both are bad."""

PROMPTS: dict[str, JudgePrompt] = {p.version: p for p in (JudgePrompt("arena-judge-v1", _V1),)}
LATEST = "arena-judge-v1"


def judge_prompt(version: str | None = None) -> JudgePrompt:
    version = version or LATEST
    if version not in PROMPTS:
        raise KeyError(f"unknown judge prompt version {version!r}; known: {', '.join(PROMPTS)}")
    return PROMPTS[version]
