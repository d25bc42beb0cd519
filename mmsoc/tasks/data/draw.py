"""Pillow drawings for the sample data and the helpers every sample writer shares: backgrounds with a
texture, shapes and symbols (stick figures, a cross, a heart, a face, a tear, confetti, a frame, a starburst,
a stamped word), rendered text, balanced and confounded labels, saving.

Everything is drawn from explicit arguments (positions from the caller's seeded generator), so the
same code and Pillow version give the same bytes."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image, ImageDraw, ImageFont

COLORS: dict[str, tuple[int, int, int]] = {
    "red": (200, 40, 40),
    "orange": (235, 140, 30),
    "yellow": (240, 210, 50),
    "green": (50, 150, 70),
    "teal": (30, 140, 140),
    "blue": (40, 80, 190),
    "purple": (120, 60, 160),
    "pink": (230, 120, 170),
    "brown": (120, 80, 40),
    "gray": (128, 128, 128),
}
WHITE, BLACK = (255, 255, 255), (0, 0, 0)
SHAPES = ("circle", "square", "triangle", "diamond")
TEXTURES = ("plain", "striped", "dotted", "checkered")
FONT_SIZE = 12
"""Pixel size of PIL's default font for all rendered text (the OCR references are these strings)."""


@dataclass(frozen=True)
class Scene:
    """What a sample image shows: a coloured background with a texture and one shape."""

    background: str
    shape: str
    shape_color: str
    texture: str


def background_words(color: str, texture: str) -> str:
    """``a plain red background``, ``an orange striped background``."""
    words = f"plain {color}" if texture == "plain" else f"{color} {texture}"
    return f"{'an' if words[0] in 'aeiou' else 'a'} {words} background"


def font(size: int = FONT_SIZE) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def random_scene(rng: random.Random) -> Scene:
    """A scene drawn from ``rng``: two different colours, a shape and a texture."""
    background, shape_color = rng.sample(sorted(COLORS), 2)
    return Scene(background, rng.choice(SHAPES), shape_color, rng.choice(TEXTURES))


def balanced(rng: random.Random, n: int, labels: tuple) -> list:
    """``n`` labels in (near) equal shares, shuffled."""
    values = [labels[i % len(labels)] for i in range(n)]
    rng.shuffle(values)
    return values


def confounded(rng: random.Random, n: int, label_sets: dict[str, tuple], group: int) -> list[tuple[int, dict]]:
    """``n`` items in groups of ``group`` that will share one text: (group number, labels), shuffled.

    Within a full group every task's labels are balanced (each label ``group / len(labels)`` times,
    assigned independently per task), so any prediction from the shared text alone is right on exactly
    ``1 / len(labels)`` of the group: a text-only model is at chance by construction, as the benign
    confounders of Hateful Memes make it. A last, smaller group is balanced as far as it goes."""
    items = []
    for start in range(0, n, group):
        size = min(group, n - start)
        columns = {task: balanced(rng, size, labels) for task, labels in label_sets.items()}
        items += [(start // group, {task: values[i] for task, values in columns.items()}) for i in range(size)]
    rng.shuffle(items)
    return items


def save(image: Image.Image, path: Path) -> None:
    """Save ``image`` as PNG (``.png``) or JPEG quality 90 (anything else), creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".png":
        image.save(path, format="PNG")
    else:
        image.save(path, format="JPEG", quality=90)


def backdrop(color: str, texture: str, size: tuple[int, int]) -> Image.Image:
    """A ``size`` (width, height) image of ``color`` with ``texture`` drawn in a darker shade."""
    from PIL import Image, ImageDraw

    width, height = size
    base = COLORS[color]
    image = Image.new("RGB", size, base)
    draw = ImageDraw.Draw(image)
    shade = tuple(max(0, c - 45) for c in base)
    if texture == "striped":
        for x in range(-height, width, 12):
            draw.line([(x, height), (x + height, 0)], fill=shade, width=4)
    elif texture == "dotted":
        for y in range(4, height, 10):
            for x in range(4 + (y // 10 % 2) * 5, width, 10):
                draw.ellipse([x - 2, y - 2, x + 2, y + 2], fill=shade)
    elif texture == "checkered":
        for y in range(0, height, 16):
            for x in range((y // 16 % 2) * 16, width, 32):
                draw.rectangle([x, y, x + 15, y + 15], fill=shade)
    return image


def draw_scene(scene: Scene, size: tuple[int, int]) -> Image.Image:
    """Render ``scene`` at ``size`` (width, height)."""
    from PIL import ImageDraw

    image = backdrop(scene.background, scene.texture, size)
    draw = ImageDraw.Draw(image)
    cx, cy, r = size[0] // 2, size[1] // 2, min(size) // 4
    color = COLORS[scene.shape_color]
    if scene.shape == "circle":
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=color, outline=BLACK)
    elif scene.shape == "square":
        draw.rectangle([cx - r, cy - r, cx + r, cy + r], fill=color, outline=BLACK)
    elif scene.shape == "triangle":
        draw.polygon([(cx, cy - r), (cx - r, cy + r), (cx + r, cy + r)], fill=color, outline=BLACK)
    else:
        draw.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], fill=color, outline=BLACK)
    return image


def stick_figures(
    draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], count: int, color: tuple[int, int, int] = WHITE
) -> None:
    """``count`` stick figures side by side, filling ``box`` (left, top, right, bottom)."""
    left, top, right, bottom = box
    step = (right - left) / count
    head = max(3, int(min(step, bottom - top) * 0.18))
    for k in range(count):
        x = int(left + step * (k + 0.5))
        neck, hip = top + 2 * head, top + int((bottom - top) * 0.62)
        draw.ellipse([x - head, top, x + head, top + 2 * head], outline=color, width=2)
        draw.line([(x, neck), (x, hip)], fill=color, width=2)
        draw.line([(x - head - 2, neck + head), (x + head + 2, neck + head)], fill=color, width=2)
        draw.line([(x, hip), (x - head, bottom)], fill=color, width=2)
        draw.line([(x, hip), (x + head, bottom)], fill=color, width=2)


def cross(
    draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], color: tuple[int, int, int] = BLACK, width: int = 7
) -> None:
    """A large X over ``box``."""
    left, top, right, bottom = box
    draw.line([(left, top), (right, bottom)], fill=color, width=width)
    draw.line([(left, bottom), (right, top)], fill=color, width=width)


def heart(draw: ImageDraw.ImageDraw, centre: tuple[int, int], r: int, color: tuple[int, int, int]) -> None:
    """A heart of half-width ``r`` centred at ``centre``."""
    x, y = centre
    draw.ellipse([x - r, y - r, x, y], fill=color)
    draw.ellipse([x, y - r, x + r, y], fill=color)
    draw.polygon([(x - r, y - r // 2), (x + r, y - r // 2), (x, y + r)], fill=color)


MOUTHS = ("smile", "flat", "frown")


def face(
    draw: ImageDraw.ImageDraw,
    centre: tuple[int, int],
    r: int,
    mouth: str,
    wink: bool,
    color: tuple[int, int, int] = (250, 220, 90),
) -> None:
    """A round face: ``mouth`` one of :data:`MOUTHS`; ``wink`` closes the left eye to a line."""
    x, y = centre
    draw.ellipse([x - r, y - r, x + r, y + r], fill=color, outline=BLACK, width=2)
    eye, ey, dx = max(2, r // 7), y - r // 3, r // 3
    if wink:
        draw.line([(x - dx - eye - 1, ey), (x - dx + eye + 1, ey)], fill=BLACK, width=2)
    else:
        draw.ellipse([x - dx - eye, ey - eye, x - dx + eye, ey + eye], fill=BLACK)
    draw.ellipse([x + dx - eye, ey - eye, x + dx + eye, ey + eye], fill=BLACK)
    w, my = r // 2, y + r // 3
    if mouth == "smile":
        draw.arc([x - w, my - w, x + w, my + w // 2], 20, 160, fill=BLACK, width=3)
    elif mouth == "frown":
        draw.arc([x - w, my, x + w, my + w + w // 2], 200, 340, fill=BLACK, width=3)
    else:
        draw.line([(x - w, my + 2), (x + w, my + 2)], fill=BLACK, width=3)


def tear(
    draw: ImageDraw.ImageDraw, centre: tuple[int, int], r: int, color: tuple[int, int, int] = (110, 190, 250)
) -> None:
    """A drop of radius ``r`` with its point up, centred at ``centre``."""
    x, y = centre
    draw.ellipse([x - r, y - r, x + r, y + r], fill=color, outline=BLACK)
    draw.polygon([(x - r + 1, y - 2), (x + r - 1, y - 2), (x, y - 2 * r - 2)], fill=color)


def confetti(draw: ImageDraw.ImageDraw, rng: random.Random, size: tuple[int, int], count: int) -> None:
    """``count`` small squares of every palette colour at positions drawn from ``rng``."""
    palette = [COLORS[name] for name in sorted(COLORS)]
    for k in range(count):
        x, y = rng.randrange(0, size[0] - 4), rng.randrange(0, size[1] - 4)
        draw.rectangle([x, y, x + 3, y + 3], fill=palette[k % len(palette)])


def frame(draw: ImageDraw.ImageDraw, size: tuple[int, int], width: int, color: tuple[int, int, int]) -> None:
    """A border of ``width`` pixels around the whole image."""
    draw.rectangle([0, 0, size[0] - 1, size[1] - 1], outline=color, width=width)


def starburst(
    draw: ImageDraw.ImageDraw, centre: tuple[int, int], r: int, color: tuple[int, int, int], points: int = 12
) -> None:
    """A jagged star of ``points`` spikes (outer radius ``r``, inner ``r / 2``)."""
    import math

    x, y = centre
    corners = [
        (
            x + (r if k % 2 == 0 else r / 2) * math.cos(math.pi * k / points),
            y + (r if k % 2 == 0 else r / 2) * math.sin(math.pi * k / points),
        )
        for k in range(2 * points)
    ]
    draw.polygon(corners, fill=color, outline=BLACK)


def stamp(image: Image.Image, word: str, centre: tuple[int, int], color: tuple[int, int, int]) -> Image.Image:
    """``word`` in ``color`` inside a box of the same colour on white, centred at ``centre``."""
    from PIL import ImageDraw

    draw, face_ = ImageDraw.Draw(image), font(FONT_SIZE + 2)
    left, top, right, bottom = draw.textbbox(centre, word, font=face_, anchor="mm")
    draw.rectangle([left - 4, top - 3, right + 4, bottom + 3], fill=WHITE, outline=color, width=2)
    draw.text(centre, word, font=face_, fill=color, anchor="mm")
    return image


def wrap(text: str, width: int) -> list[str]:
    """Greedy word wrap of ``text`` to lines no wider than ``width`` pixels in the default font."""
    face_, lines, line = font(), [], ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if line and face_.getlength(candidate) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    return [*lines, line] if line else lines


def render_text(image: Image.Image, text: str, at_bottom: bool = False) -> Image.Image:
    """Draw ``text`` wrapped, white with a black outline, at the top (a meme caption) or the bottom."""
    from PIL import ImageDraw

    draw, face_, step = ImageDraw.Draw(image), font(), FONT_SIZE + 3
    lines = wrap(text, image.width - 8)
    top = image.height - len(lines) * step - 2 if at_bottom else 4
    for i, line in enumerate(lines):
        draw.text((4, top + i * step), line, font=face_, fill=WHITE, stroke_width=1, stroke_fill=BLACK)
    return image
