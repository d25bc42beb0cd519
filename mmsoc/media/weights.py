"""Pretrained weights loaded by name: when they are neither on this machine nor downloadable (no
network, or ``HF_HUB_OFFLINE``), the failure becomes one line that names the model and says how to
get it or what to use instead (:class:`ModelUnavailable`), not a traceback from the hub client.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from mmsoc.core.io import UsageError

NOT_HERE = "its weights are not on this machine and cannot be downloaded (no network, or HF_HUB_OFFLINE is set)"


class ModelUnavailable(UsageError):
    """Weights of ``name`` (a ``role``: frame encoder, T5 backbone, ...) cannot be loaded: ``fetch`` says how to
    get them, ``instead`` what to use in their place."""

    def __init__(self, role: str, name: str, fetch: str, instead: str, reason: str = NOT_HERE):
        self.role, self.name, self.fetch, self.instead, self.reason = role, name, fetch, instead, reason
        super().__init__(f"cannot load the {role} {name!r}: {reason}; {fetch}, or {instead}")

    def using(self, instead: str) -> ModelUnavailable:
        """The same failure with a command's own alternative (its flags) in place of the generic one."""
        return ModelUnavailable(self.role, self.name, self.fetch, instead, self.reason)


def fetch_failure(err: BaseException) -> BaseException | None:
    """The hub or network error behind ``err`` (following ``__cause__``/``__context__``), if any."""
    from huggingface_hub import errors

    kinds = (
        errors.LocalEntryNotFoundError,
        errors.OfflineModeIsEnabled,
        errors.HfHubHTTPError,
        ConnectionError,
        TimeoutError,
    )
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        if isinstance(current, kinds):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def hub_fetch(repo: str, flag: str | None = None) -> str:
    """How to fetch weights kept in a Hugging Face hub repository: into the local hub cache (found there
    offline), or into a folder given to ``flag``."""
    if flag:
        return f"fetch them once on a machine with network (`hf download {repo} --local-dir DIR`) and pass {flag} DIR"
    return f"fetch them once on a machine with network (`hf download {repo}`: the hub cache is read offline)"


@contextmanager
def loading(role: str, name: str, fetch: str, instead: str) -> Iterator[None]:
    """Load weights inside this block: a failure to fetch them raises :class:`ModelUnavailable`; any other
    error passes unchanged. Meanwhile the hub client's retry warnings and the download errors some
    libraries log to the root logger are kept quiet: the one line that explains is ours."""
    root, hub = logging.getLogger(), logging.getLogger("huggingface_hub")
    quiet, level = logging.NullHandler(), hub.level
    root.addHandler(quiet)
    hub.setLevel(logging.ERROR)
    try:
        yield
    except UsageError:  # already says what failed and what to do (ModelUnavailable among them)
        raise
    except Exception as err:
        if fetch_failure(err) is None:
            raise
        raise ModelUnavailable(role, name, fetch, instead) from err
    finally:
        root.removeHandler(quiet)
        hub.setLevel(level)
