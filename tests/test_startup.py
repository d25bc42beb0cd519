"""Loading with cyclic collection paused: collection comes back, what was loaded sits in the oldest
generation, and garbage made while loading is still freed."""

import gc
import subprocess
import sys
import textwrap
import weakref

import pytest

from mmsoc.core.startup import loading


class Node:
    def __init__(self) -> None:
        self.self_ref = self


@pytest.fixture
def collection_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_collection_is_paused_while_loading_and_back_after(collection_on):
    with loading():
        assert not gc.isenabled()
        with loading():  # nested: the outer one decides
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_collection_comes_back_after_an_error(collection_on):
    with pytest.raises(RuntimeError), loading():
        raise RuntimeError("load failed")
    assert gc.isenabled()


def test_loaded_objects_go_to_the_oldest_generation_and_garbage_is_still_freed(collection_on):
    with loading():
        kept = Node()
        dropped = Node()
        alive = weakref.ref(dropped)
        del dropped
    assert any(obj is kept for obj in gc.get_objects(generation=2))
    assert alive() is not None  # a cycle: only the collector frees it
    gc.collect()
    assert alive() is None


def test_collection_left_off_stays_off_and_frozen_objects_stay_frozen(collection_on):
    gc.disable()
    with loading():
        pass
    assert not gc.isenabled()
    gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with loading():
            Node()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_command_line_process_ends_with_what_it_made_frozen(tmp_path):
    """An exit handler registered before the command line runs after its own (last in, first out):
    by then everything alive is in the permanent generation, so shutdown's collections skip it; the
    command's output is complete."""
    out = tmp_path / "out.txt"
    script = textwrap.dedent(
        """
        import atexit, gc
        atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))
        import typer
        from mmsoc.core.cli import run_cli
        app = typer.Typer()
        @app.command()
        def write(path: str) -> None:
            with open(path, "w") as f:
                f.write("x" * 100000)
        run_cli(app)
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "frozen at exit: True"
    assert out.read_text() == "x" * 100000
