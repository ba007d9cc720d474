"""Character accuracy and seconds per page of Hearth's OCR, next to raw rapidocr.

    .venv/bin/python bench/ocr.py [--repeats 3] [--image ../shared/data/images/phototest.png]
        [--json PATH]

Accuracy = 1 - (character edit distance / reference length), on whitespace-collapsed text against
the image's ``.gt.txt``. Hearth is timed through the image loader (open, OCR, sections) and through
the PDF loader on an image-only PDF made from the same picture (render + OCR); raw is rapidocr
called on the file path. Model loading is excluded (reported apart).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

# The repository first: run as a script, bench/ingest.py would shadow the ingest package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: F401 - offline before any model library loads
from bench._metrics import edit_distance, rss_bytes
from bench.figures import Figure, add_json_option, write_json
from core.resident import model_resident_bytes
from core.settings import load_settings
from ingest.loaders import LoaderContext, Loaders

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "images" / "phototest.png"


def collapse(text: str) -> str:
    """Whitespace collapsed to single spaces."""
    return " ".join(text.split())


def accuracy(text: str, ref: str) -> float:
    """1 - character error rate (floored at 0)."""
    return max(0.0, 1 - edit_distance(collapse(text), ref) / len(ref))


def parser() -> argparse.ArgumentParser:
    """The command line of this bench."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--image", type=Path, default=DEFAULT)
    parser.add_argument("--repeats", type=int, default=3)
    add_json_option(parser)
    return parser


def run(args: argparse.Namespace) -> list[Figure]:
    """Run the comparison, print a table, return the figures."""
    ref = collapse(args.image.with_suffix(".gt.txt").read_text())
    settings = load_settings()
    settings.ocr.resident = True
    ctx = LoaderContext.create(settings)
    loaders = Loaders(ctx)

    from PIL import Image

    pdf = Path(tempfile.mkdtemp()) / "scan.pdf"
    Image.open(args.image).convert("RGB").save(pdf, resolution=150)

    rss0 = rss_bytes()
    t = time.perf_counter()
    with ctx.ocr.holder.use():
        pass
    hearth_load = time.perf_counter() - t
    loaders.for_path(args.image).load(args.image)  # warm-up
    rss_hearth = rss_bytes() - rss0

    from rapidocr import RapidOCR

    t = time.perf_counter()
    raw = RapidOCR(params={"Global.log_level": "error"})
    raw_load = time.perf_counter() - t

    def hearth_image() -> str:
        return "\n".join(s.text for s in loaders.for_path(args.image).load(args.image))

    def hearth_pdf() -> str:
        return "\n".join(s.text for s in loaders.for_path(pdf).load(pdf))

    def raw_image() -> str:
        return "\n".join(cast(Any, raw(str(args.image))).txts or ())

    runs = {
        "hearth image": hearth_image,
        "hearth scanned pdf": hearth_pdf,
        "raw rapidocr": raw_image,
    }
    times = dict.fromkeys(runs, 0.0)
    texts = dict.fromkeys(runs, "")
    for _ in range(args.repeats):
        for name, fn in runs.items():
            t = time.perf_counter()
            texts[name] = fn()
            times[name] += time.perf_counter() - t
    print(f"{args.image.name}, {len(ref)} reference characters, {args.repeats} repeats")
    print(f"{'path':20} {'char accuracy':>13} {'s/page':>7}")
    for name in runs:
        print(f"{name:20} {accuracy(texts[name], ref):13.4f} {times[name] / args.repeats:7.3f}")
    print(
        f"model load        hearth {hearth_load:.2f} s (with importing rapidocr)   "
        f"raw {raw_load:.2f} s"
    )
    print(
        f"RSS growth after loading and one page (Hearth): {rss_hearth / 2**20:.0f} MiB; "
        f"estimate {model_resident_bytes(settings)['ocr'] / 2**20:.0f} MiB"
    )
    per_page = {name: times[name] / args.repeats for name in runs}
    acc = {name: accuracy(texts[name], ref) for name in runs}
    raw_name = "raw rapidocr"
    note = f"{args.image.name}, {args.repeats} repeats; raw = rapidocr on the file"
    return [
        Figure(
            "ocr",
            "image page",
            per_page["hearth image"],
            "s/page",
            per_page[raw_name],
            better="lower",
            note=note,
        ),
        Figure(
            "ocr",
            "scanned PDF page",
            per_page["hearth scanned pdf"],
            "s/page",
            per_page[raw_name],
            better="lower",
            note="render + OCR vs raw on the image",
        ),
        Figure(
            "ocr",
            "char accuracy (image)",
            acc["hearth image"],
            "share",
            acc[raw_name],
            better="higher",
        ),
        Figure("ocr", "model load", hearth_load, "s", raw_load, better="lower"),
        Figure(
            "ocr",
            "RSS growth (Hearth)",
            rss_hearth / 2**20,
            "MiB",
            note=f"estimate {model_resident_bytes(settings)['ocr'] / 2**20:.0f} MiB",
        ),
    ]


def main() -> None:
    """Run the comparison and print a table."""
    args = parser().parse_args()
    write_json(args.json, run(args))


if __name__ == "__main__":
    main()
