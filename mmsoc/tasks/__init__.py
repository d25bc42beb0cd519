"""The task contract (``kinds``), the task registry of every suite, prompts, parsing and scoring."""

from mmsoc.tasks.kinds.base import Parsed, TaskKind, TaskScores
from mmsoc.tasks.registry import get_task, kind_of, parse_task_list, task_ids
from mmsoc.tasks.scoring import parse_response, score_task, score_task_averaged, score_task_detailed
from mmsoc.tasks.spec import TaskSpec

__all__ = [
    "Parsed",
    "TaskKind",
    "TaskScores",
    "TaskSpec",
    "get_task",
    "kind_of",
    "parse_response",
    "parse_task_list",
    "score_task",
    "score_task_averaged",
    "score_task_detailed",
    "task_ids",
]
