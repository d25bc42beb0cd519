"""What a task is, as data: the question asked, the answers allowed, how it is scored."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TaskSpec:
    """One task of a suite. ``kind`` names the handler (``mmsoc.tasks.kinds``) that builds its
    requests, parses answers, writes training targets, draws random answers and scores it."""

    id: str
    dataset: str
    kind: str
    prompt: str
    labels: tuple[str, ...] = ()
    """Allowed answers for classification (the canonical label strings), topics for tagging."""
    headline: str = "macro_f1"
    group: str = ""
    """Tasks sharing a group are averaged into one paper score (misinformation, OCR)."""
    answers: tuple[tuple[str, str], ...] = ()
    """Answer words the prompt asks for, when they differ from the labels (Yes/No), -> label."""
    synonyms: tuple[tuple[str, str], ...] = ()
    """Further words that lenient parsing accepts for a label."""
    why: tuple[tuple[str, str], ...] = ()
    """Label -> the question a teacher answers to explain that gold label (``{tags}`` for tag lists)."""
    sources: tuple[str, ...] = ()
    """The datasets (loader names) the task's items come from, in order."""
    suite: str = "mmsoc"
    prompt_version: str = "mmsoc-v1"
    """Version of ``prompt``; runs record it with every prediction."""
    order: int = 1000
    """Position in the suite's listings (the paper's order)."""
    category: str = ""
    """The suite's grouping of tasks for its averages (SocKET's five categories, SuperTweetEval's clusters)."""

    @property
    def yes_no(self) -> bool:
        """Whether the prompt asks for Yes/No rather than the label words."""
        return bool(self.answers) and all(word in ("yes", "no") for word, _ in self.answers)
