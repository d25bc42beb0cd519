"""A real OpenAI-compatible server for tests: ``transformers serve`` on a tiny LLaVA, and a forwarding proxy
(a second real HTTP server in front of the first) that records when each call arrived and was answered, can
answer 500 for chosen requests and can answer vLLM's ``/tokenize``; and a misbehaving server (:class:`BadServer`)
that lists a model and then hangs on chat calls, trickles its answers or answers with a huge reply; and a server
that answers each chat call with the body a test scripts (:class:`ScriptedServer`)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Set
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypeVar

SERVING_MODULES = ("fastapi", "uvicorn", "openai")
SERVING_MISSING = [name for name in SERVING_MODULES if importlib.util.find_spec(name) is None]
SKIP_REASON = (
    f"transformers[serving] is not installed (missing {', '.join(SERVING_MISSING)}): "
    "pip install 'transformers[serving]==5.24.0'"
)

# The processor chat template of llava-hf/llava-1.5-7b-hf: "USER: <image>\n{text} ASSISTANT:", the
# prompt our LLaVA family format builds, so the server and the in-process backend see the same tokens.
LLAVA15_CHAT_TEMPLATE = (
    "{% for message in messages %}{% if message['role'] != 'system' %}{{ message['role'].upper() + ': '}}"
    "{% endif %}{# Render all images first #}{% for content in message['content'] | selectattr('type', "
    "'equalto', 'image') %}{{ '<image>\n' }}{% endfor %}{# Render all text next #}{% if message['role'] "
    "!= 'assistant' %}{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
    "{{ content['text'] + ' '}}{% endfor %}{% else %}{% for content in message['content'] | "
    "selectattr('type', 'equalto', 'text') %}{% generation %}{{ content['text'] + ' '}}{% endgeneration %}"
    "{% endfor %}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ 'ASSISTANT:' }}{% endif %}"
)
CHILD_ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
POLL_SECONDS = 0.02
"""How often a local server looks for the end of its ``with`` block (the default 0.5 s is most of a short test)."""


def servable_copy(model_dir: str | Path, folder: Path) -> Path:
    """A copy of a tiny LLaVA folder with the processor chat template that ``transformers serve`` needs."""
    shutil.copytree(model_dir, folder)
    (folder / "chat_template.jinja").write_text(LLAVA15_CHAT_TEMPLATE)
    return folder


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServeProcess:
    """``transformers serve MODEL_DIR`` on 127.0.0.1:PORT, CPU only; start, kill (SIGKILL), start again."""

    def __init__(self, model_dir: Path, port: int | None = None, log: Path | None = None):
        self.model_dir, self.port = model_dir, port or free_port()
        self.log = log or model_dir.parent / f"serve-{self.port}.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 180.0) -> ServeProcess:
        command = [
            sys.executable,
            "-c",
            "import sys; from transformers.cli.transformers import main; sys.exit(main())",
            "serve",
            str(self.model_dir),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--device",
            "cpu",
        ]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=CHILD_ENV, start_new_session=True
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"transformers serve exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2):
                    return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.3)
        self.kill()
        raise RuntimeError(f"transformers serve did not come up in {timeout:.0f} s: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(30)
        self.process = None


_Server = TypeVar("_Server", bound="LocalServer")


class LocalServer:
    """An HTTP server on a free local port, served from a thread while the ``with`` block runs."""

    server: ThreadingHTTPServer
    thread: threading.Thread

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self: _Server) -> _Server:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


class FailingProxy(LocalServer):
    """Forwards every call to ``upstream``; a chat call whose ``seed`` is in ``fail_once`` gets one 500 answer
    first, one in ``fail_always`` only 500s. Records each chat call's seed and Authorization header, and in
    ``events`` when it arrived and when its answer was ready, in order: ``(kind, seed, time)``, kind ``arrive`` or
    ``finish`` (recorded before the answer is written, so a call sent after an answer arrives after its finish).
    ``tokenize(text, add_special_tokens) -> count``: answer vLLM's ``POST /tokenize`` with it (else forwarded)."""

    def __init__(
        self,
        upstream: str,
        fail_once: Set[int] = frozenset(),
        fail_always: Set[int] = frozenset(),
        tokenize: Callable[[str, bool], int] | None = None,
    ):
        self.upstream, self.fail_once, self.fail_always = upstream.rstrip("/"), set(fail_once), set(fail_always)
        self.tokenize = tokenize
        self.seeds: list[int | None] = []
        self.events: list[tuple[str, int | None, float]] = []
        self.auth: set[str] = set()
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                self._answer(*self._forward(None))

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                payload = json.loads(body)
                if self.path == "/tokenize" and proxy.tokenize is not None:
                    count = proxy.tokenize(payload["prompt"], payload.get("add_special_tokens", True))
                    self._answer(200, json.dumps({"count": count, "max_model_len": 0, "tokens": []}).encode())
                    return
                if not self.path.endswith("/chat/completions"):
                    self._answer(*self._forward(body))
                    return
                seed = payload.get("seed")
                with proxy.lock:
                    proxy.seeds.append(seed)
                    proxy.auth.add(self.headers.get("Authorization", ""))
                    proxy.events.append(("arrive", seed, time.monotonic()))
                    fail = seed in proxy.fail_always or seed in proxy.fail_once
                    proxy.fail_once.discard(seed)
                status, answer = (500, b'{"error": {"message": "injected failure"}}') if fail else self._forward(body)
                with proxy.lock:
                    proxy.events.append(("finish", seed, time.monotonic()))
                self._answer(status, answer)

            def _forward(self, body: bytes | None) -> tuple[int, bytes]:
                request = urllib.request.Request(
                    proxy.upstream + self.path.removeprefix("/v1"),
                    data=body,
                    method="POST" if body is not None else "GET",
                    headers={"Content-Type": "application/json"},
                )
                try:
                    with urllib.request.urlopen(request, timeout=300) as response:
                        return response.status, response.read()
                except urllib.error.HTTPError as err:
                    return err.code, err.read()
                except (urllib.error.URLError, OSError):
                    return 502, b'{"error": {"message": "upstream unreachable"}}'

            def _answer(self, status: int, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(POLL_SECONDS,), daemon=True)


class OneModelHandler(BaseHTTPRequestHandler):
    """A quiet handler that lists one model (``served``) and sends JSON bodies with status 200."""

    served = "m"

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self.send_json(json.dumps({"object": "list", "data": [{"id": self.served, "object": "model"}]}).encode())

    def send_json(self, payload: bytes) -> None:
        self.send_headers(payload)
        self.wfile.write(payload)

    def send_headers(self, payload: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()


class BadServer(LocalServer):
    """A real HTTP server that lists one model (``/v1/models``) and answers its first ``answered`` chat calls with
    the reply ``yes``; then, per chat call, ``mode``: ``answer`` (``yes`` again), ``hang`` (reads the call and
    sends nothing until closed), ``trickle`` (the headers of a ``yes`` answer, then one byte of it every 0.1 s)
    or ``huge`` (a well-formed completion whose reply is ``size`` bytes of ``a``). Counts the chat calls that
    arrived (``calls``)."""

    def __init__(self, mode: str, answered: int = 0, size: int = 10 * 2**20, model: str = "m"):
        self.mode, self.answered, self.size, self.model = mode, answered, size, model
        self.calls = 0
        self.lock = threading.Lock()
        self.closing = threading.Event()
        bad = self

        class Handler(OneModelHandler):
            served = model

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                with bad.lock:
                    bad.calls += 1
                    mode = "answer" if bad.calls <= bad.answered else bad.mode
                if mode == "hang":
                    bad.closing.wait()
                    return
                self._send(bad.completion("a" * bad.size if mode == "huge" else "yes"), mode == "trickle")

            def _send(self, payload: bytes, trickle: bool = False) -> None:
                self.send_headers(payload)
                step = 1 if trickle else len(payload)
                with contextlib.suppress(OSError):  # the client stopped reading (a cut answer, a timeout)
                    for start in range(0, len(payload), step):
                        self.wfile.write(payload[start : start + step])
                        self.wfile.flush()
                        if trickle and bad.closing.wait(0.1):
                            return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(POLL_SECONDS,), daemon=True)

    def completion(self, reply: str) -> bytes:
        """A chat completion whose one choice is ``reply``, as the OpenAI API writes it."""
        return completion([choice(reply)], model=self.model)

    def __exit__(self, *exc) -> None:
        self.closing.set()
        super().__exit__(*exc)


class ScriptedServer(LocalServer):
    """A real HTTP server that lists one model and answers each chat call 200 with the body ``reply(call)`` gives
    for the call's JSON (any bytes: a malformed completion, a JSON value that is none, not JSON at all). Records
    the calls (``calls``)."""

    def __init__(self, reply: Callable[[dict], bytes], model: str = "m"):
        self.reply, self.model = reply, model
        self.calls: list[dict] = []
        self.lock = threading.Lock()
        scripted = self

        class Handler(OneModelHandler):
            served = model

            def do_POST(self) -> None:
                call = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with scripted.lock:
                    scripted.calls.append(call)
                self.send_json(scripted.reply(call))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(POLL_SECONDS,), daemon=True)


def completion(choices: list, **fields) -> bytes:
    """A chat completion body with these ``choices`` (and vLLM's fields, e.g. ``prompt_logprobs``)."""
    return json.dumps(
        {"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": choices, **fields}
    ).encode()


def choice(content) -> dict:
    """One choice whose message content is ``content`` (a string, content parts, None, anything)."""
    return {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
