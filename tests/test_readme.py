"""The README's Quickstart is what CI runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quickstart_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"^## Quickstart.*?^```\w*\n(.*?)^```", text, re.S | re.M).group(1)
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_quickstart_has_two_commands_and_ci_runs_the_second():
    install_and_run, install_and_test = quickstart_commands()
    assert "desiq probe" in install_and_run and "pytest" in install_and_test
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert install_and_test in ci


def test_both_commands_install_the_locked_versions():
    install_and_run, install_and_test = quickstart_commands()
    # the probe's default encoder runs in process: the hf extra; the tests need every extra (test pulls all)
    assert 'pip install -c requirements.lock ".[hf]"' in install_and_run
    assert 'pip install -r requirements.lock -e ".[test]"' in install_and_test


def test_dockerfile_mirrors_the_first_command():
    docker = (ROOT / "Dockerfile").read_text()
    install_and_run = quickstart_commands()[0]
    assert 'pip install -c requirements.lock ".[all]"' in docker
    assert 'desiq", "probe", "--out", "runs/probe-sample"' in docker
    assert "desiq probe --out runs/probe-sample" in install_and_run
