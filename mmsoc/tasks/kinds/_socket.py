"""What the SocKET kinds share: the request (the task table's question, text only) and their task type."""

from __future__ import annotations

from mmsoc.core.records import Example
from mmsoc.models.base import Request
from mmsoc.tasks.kinds.base import TaskKind
from mmsoc.tasks.spec import TaskSpec


class SocketKind(TaskKind):
    text_only = True

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request:
        from mmsoc.tasks.socket.prompting import socket_request

        return socket_request(spec, example, instruction, seed)
