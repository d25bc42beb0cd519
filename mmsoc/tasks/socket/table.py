"""How a row of the SocKET task table becomes a :class:`TaskSpec`, and what every SocKET task shares.

Task ids are ``socket/<name>`` with the official names (``socket/jigsaw#toxic``). A task's kind follows
its type (``CLS`` -> ``socket_cls``, ...); classification tasks keep their options, in the prompt
file's order, as ``answers`` (option i -> label i); the headline is ``f1``, for regression ``corr_score``
((r + 1) / 2), the numbers the paper's Table 2 averages.

Each category module (``humor_sarcasm``, ``offensiveness``, ``sentiment_emotion``, ``social_factors``,
``trustworthiness``) holds its ``ROWS``. A row is (position in the official prompt file, task name, type,
source dataset, label names, options, question). Rows follow ``experiments/zeroshot/socket_prompts.csv``
(the paper's Table 8); question and options are written as there, the label names as the official loading
script names them; option i means label i (checked for every task).
"""

from __future__ import annotations

from mmsoc.tasks.spec import TaskSpec

SUITE = "socket"
FOLDER = "SOCKET_DATA"
"""The hub repository's data folder (``Blablablab/SOCKET``), the dataset every SocKET task reads."""
PROMPT_VERSION = "socket-table8"
KIND_OF_TYPE = {"CLS": "socket_cls", "PAIR": "socket_pair", "REG": "socket_reg", "SPAN": "socket_span"}
CATEGORIES = ("Humor & Sarcasm", "Offensiveness", "Sentiment & Emotion", "Social Factors", "Trustworthiness")
"""The paper's five categories, in its Table 2 order."""
TYPES = ("CLS", "PAIR", "REG", "SPAN")

Row = tuple[int, str, str, str, tuple[str, ...], tuple[str, ...], str]


def build_tasks(category: str, rows: tuple[Row, ...]) -> tuple[TaskSpec, ...]:
    """The specs of one category's rows (position, name, type, dataset, labels, options, question)."""
    return tuple(
        TaskSpec(
            f"{SUITE}/{name}",
            dataset,
            KIND_OF_TYPE[task_type],
            question,
            labels,
            headline="corr_score" if task_type == "REG" else "f1",
            answers=tuple(zip(options, labels)),
            sources=(FOLDER,),
            suite=SUITE,
            prompt_version=PROMPT_VERSION,
            order=position,
            category=category,
        )
        for position, name, task_type, dataset, labels, options, question in rows
    )


def type_of(spec: TaskSpec) -> str:
    """``CLS``, ``PAIR``, ``REG`` or ``SPAN``: the task type its kind stands for."""
    from mmsoc.tasks.registry import kind_of

    return kind_of(spec).task_type


def options(spec: TaskSpec) -> tuple[str, ...]:
    """The options a classification question lists, in order (option i means label i)."""
    return tuple(option for option, _ in spec.answers)
