"""The MM-Soc task table: prompts, labels, output kinds and metrics, as data."""

from mmsoc.tasks.table import TASK_IDS, TASKS, YOUTUBE_TOPICS, TaskSpec, get_task, parse_task_list

__all__ = ["TASKS", "TASK_IDS", "TaskSpec", "YOUTUBE_TOPICS", "get_task", "parse_task_list"]
