"""Helpers for tests that start real processes: a free local port, and ``accelerate launch`` on CPU."""

from __future__ import annotations

import socket
import sys


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def accelerate_launch(processes: int = 2) -> list[str]:
    """The start of an ``accelerate launch`` command line: ``processes`` CPU processes on this machine, no mixed
    precision, no dynamo, a free rendezvous port; append ``-m MODULE ...`` or a script and its arguments."""
    return [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--multi_gpu",
        "--num_processes",
        str(processes),
        "--num_machines",
        "1",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "--main_process_port",
        str(free_port()),
    ]
