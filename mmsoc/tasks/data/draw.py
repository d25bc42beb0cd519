"""Pillow drawings for the sample data: simple scenes, memes with rendered text, thumbnails, and the
drawing helpers every sample writer shares (random scenes, balanced labels, saving)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image, ImageFont

COLORS: dict[str, tuple[int, int, int]] = {
    "red": (200, 40, 40), "orange": (235, 140, 30), "yellow": (240, 210, 50), "green": (50, 150, 70),
    "teal": (30, 140, 140), "blue": (40, 80, 190), "purple": (120, 60, 160), "pink": (230, 120, 170),
    "brown": (120, 80, 40), "gray": (128, 128, 128),
}
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

    def describe(self) -> str:
        background = f"plain {self.background}" if self.texture == "plain" else f"{self.background} {self.texture}"
        article = "an" if background[0] in "aeiou" else "a"
        return f"a {self.shape_color} {self.shape} in the centre of {article} {background} background"


def font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    return ImageFont.load_default(size=FONT_SIZE)


def random_scene(rng: random.Random) -> Scene:
    """A scene drawn from ``rng``: two different colours, a shape and a texture."""
    background, shape_color = rng.sample(sorted(COLORS), 2)
    return Scene(background, rng.choice(SHAPES), shape_color, rng.choice(TEXTURES))


def balanced(rng: random.Random, n: int, labels: tuple) -> list:
    """``n`` labels in (near) equal shares, shuffled."""
    values = [labels[i % len(labels)] for i in range(n)]
    rng.shuffle(values)
    return values


def save(image: Image.Image, path: Path) -> None:
    """Save ``image`` as PNG (``.png``) or JPEG quality 90 (anything else), creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".png":
        image.save(path, format="PNG")
    else:
        image.save(path, format="JPEG", quality=90)


def draw_scene(scene: Scene, size: tuple[int, int]) -> Image.Image:
    """Render ``scene`` at ``size`` (width, height)."""
    from PIL import Image, ImageDraw

    width, height = size
    base = COLORS[scene.background]
    image = Image.new("RGB", size, base)
    draw = ImageDraw.Draw(image)
    shade = tuple(max(0, c - 45) for c in base)
    if scene.texture == "striped":
        for x in range(-height, width, 12):
            draw.line([(x, height), (x + height, 0)], fill=shade, width=4)
    elif scene.texture == "dotted":
        for y in range(4, height, 10):
            for x in range(4 + (y // 10 % 2) * 5, width, 10):
                draw.ellipse([x - 2, y - 2, x + 2, y + 2], fill=shade)
    elif scene.texture == "checkered":
        for y in range(0, height, 16):
            for x in range((y // 16 % 2) * 16, width, 32):
                draw.rectangle([x, y, x + 15, y + 15], fill=shade)
    cx, cy, r = width // 2, height // 2, min(width, height) // 4
    color = COLORS[scene.shape_color]
    if scene.shape == "circle":
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=color, outline=(0, 0, 0))
    elif scene.shape == "square":
        draw.rectangle([cx - r, cy - r, cx + r, cy + r], fill=color, outline=(0, 0, 0))
    elif scene.shape == "triangle":
        draw.polygon([(cx, cy - r), (cx - r, cy + r), (cx + r, cy + r)], fill=color, outline=(0, 0, 0))
    else:
        draw.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], fill=color, outline=(0, 0, 0))
    return image


def wrap(text: str, width: int) -> list[str]:
    """Greedy word wrap of ``text`` to lines no wider than ``width`` pixels in the default font."""
    face, lines, line = font(), [], ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if line and face.getlength(candidate) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    return lines + [line] if line else lines


def render_text(image: Image.Image, text: str, at_bottom: bool = False) -> Image.Image:
    """Draw ``text`` wrapped, white with a black outline, at the top (a meme caption) or the bottom."""
    from PIL import ImageDraw

    draw, face, step = ImageDraw.Draw(image), font(), FONT_SIZE + 3
    lines = wrap(text, image.width - 8)
    top = image.height - len(lines) * step - 2 if at_bottom else 4
    for i, line in enumerate(lines):
        draw.text((4, top + i * step), line, font=face, fill=(255, 255, 255), stroke_width=1, stroke_fill=(0, 0, 0))
    return image
