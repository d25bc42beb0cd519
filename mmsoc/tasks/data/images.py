"""Image paths read from data: confined to their root, checked that they open, never trusted."""

from __future__ import annotations

import os
from pathlib import Path

from mmsoc.core.paths import OutsideRoot, inside
from mmsoc.tasks.data.result import ItemProblem, SkipItem


def image_problem(path: Path) -> str | None:
    """Why the image at ``path`` cannot be used, or None when it opens and verifies."""
    from PIL import Image, UnidentifiedImageError

    if not path.is_file():
        return f"image not found: {path}"
    try:
        with Image.open(path) as image:
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
        return f"unreadable image {path}: {err}"
    return None


def resolve_image(
    root: Path,
    name: str,
    item_id: str,
    source: str | os.PathLike,
    line: int | None,
    field: str,
    problems: list[ItemProblem],
) -> tuple[str, ...]:
    """``(absolute path,)`` of a usable image under ``root``, or ``()`` with the reason appended to
    ``problems`` (missing or unreadable image: the item stays). A name that leads outside ``root``
    (absolute, ``..``, a symlink out) is never opened: :class:`SkipItem` leaves the item out."""
    try:
        path = inside(root, name)
    except OutsideRoot as err:
        raise SkipItem(ItemProblem(item_id, str(source), field, f"skipped: {err}", line)) from None
    problem = image_problem(path)
    if problem is None:
        return (str(path),)
    problems.append(ItemProblem(item_id, str(source), field, problem, line))
    return ()
