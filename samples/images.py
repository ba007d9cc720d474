"""An image made in code, shared by the OCR tests and the hard set (bench/hardfiles.py)."""

from __future__ import annotations

import random
from pathlib import Path

RECEIPT = [
    "HOLLYBROOK GROCERS",
    "14 Mill Lane, Ashford",
    "Date: 12/10/2026  Till 3",
    "Oat milk 1L          1.85",
    "Sourdough loaf       3.20",
    "Free range eggs x6   2.95",
    "Cheddar 400g         4.10",
    "TOTAL               12.10",
    "Paid by card",
]


def write_receipt(path: Path) -> None:
    """A photographed-looking receipt: JPEG, tilted 2.5 degrees, paper grain, slightly blurred;
    each price far to the right of its item."""
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    font = ImageFont.load_default(size=30)
    img = Image.new("L", (760, 60 + 52 * len(RECEIPT)), 236)
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(RECEIPT):
        draw.text((40, 30 + 52 * i), line, fill=30, font=font)
    rng = random.Random(7)
    for _ in range(img.width * img.height // 25):  # paper grain
        x, y = rng.randrange(img.width), rng.randrange(img.height)
        grey = int(img.getpixel((x, y)) or 0)  # type: ignore[arg-type]
        img.putpixel((x, y), max(0, min(255, grey + rng.randint(-60, 60))))
    img = img.rotate(2.5, expand=True, fillcolor=120).filter(ImageFilter.GaussianBlur(0.8))
    img.convert("RGB").save(path, quality=70)
