"""``--config FILE``: a YAML or JSON mapping of a command's options to values, read before the command line.

The file's values become the defaults of the command's parameters (click's ``default_map``), so a flag on
the command line wins and the command receives the resolved values as ordinary parameters. Keys are the
options' names as flags without the dashes (``batch-size`` or ``batch_size``) or an argument's name; a
repeatable option or a variadic argument takes a list (a single value is a list of one).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperOption

from mmsoc.core import jsonvalues
from mmsoc.core.io import InputError, UsageError, read_text
from mmsoc.core.registry import unknown_message

Parameter = TyperOption | TyperArgument
ONE_VALUE_HINT = " (several values of one option are comma-separated)"
SUFFIXES = (".yaml", ".yml", ".json")


def read_config(path: Path) -> dict[str, Any]:
    """The mapping in ``path`` (YAML or standard JSON, by its suffix); an empty file is an empty mapping."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(path, f"a --config file is YAML (.yaml, .yml) or JSON (.json), not '{suffix or path.name}'")
    text = _read(path)
    data = _parse_yaml(path, text) if suffix != ".json" else _parse_json(path, text)
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(key, str) for key in data):
        raise InputError(path, "expected a mapping of option names to values")
    return data


def _read(path: Path) -> str:
    try:
        return read_text(path)
    except FileNotFoundError:
        raise UsageError(f"--config {path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"--config {path}: a folder, not a file") from None
    except OSError as err:
        raise UsageError(f"--config {path}: cannot read it ({err.strerror})") from None


def _parse_yaml(path: Path, text: str) -> object:
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark else None
        raise InputError(path, f"invalid YAML ({getattr(err, 'problem', None) or err})", line=line) from None


def _parse_json(path: Path, text: str) -> object:
    try:
        return jsonvalues.loads(text) if text.strip() else None
    except json.JSONDecodeError as err:
        raise InputError(path, f"invalid JSON ({err.msg})", line=err.lineno) from None
    except jsonvalues.NonFinite as err:
        raise InputError(path, str(err), field=err.field) from None


def defaults_from(path: Path, command: TyperCommand, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (read from ``path``) as ``command``'s default map: parameter name -> value."""
    names = _names(command)
    defaults: dict[str, Any] = {}
    for key, value in values.items():
        param = names.get(key.replace("-", "_"))
        if param is None:
            raise InputError(path, unknown_message("option", key, _keys(names), where="of this command"))
        defaults[param.name or key] = _shaped(path, key, param, value)
    return defaults


def _names(command: TyperCommand) -> dict[str, Parameter]:
    """Every name a key may use for a parameter of ``command``: its long flags and its own name."""
    names: dict[str, Parameter] = {}
    for param in command.params:
        if not isinstance(param, (TyperOption, TyperArgument)) or not param.expose_value or param.name is None:
            continue
        flags = [opt.lstrip("-") for opt in param.opts if opt.startswith("--")]
        for name in (*flags, param.name):
            names.setdefault(name.replace("-", "_"), param)
    return names


def _keys(names: dict[str, Parameter]) -> list[str]:
    """The keys a file may use, one per parameter, as its flag is spelt."""
    return list(dict.fromkeys(_shown(param) for param in names.values()))


def _shown(param: Parameter) -> str:
    flags = [opt[2:] for opt in param.opts if opt.startswith("--")]
    return flags[0] if flags else str(param.name)


def _shaped(path: Path, key: str, param: Parameter, value: Any) -> Any:
    """A list for a parameter that takes several values; a single value for one that takes one."""
    if param.multiple or param.nargs != 1:
        return value if isinstance(value, list) else [value]
    if isinstance(value, (list, dict)):
        raise InputError(path, f"takes one value, not a list or mapping{ONE_VALUE_HINT}", field=key)
    return value
