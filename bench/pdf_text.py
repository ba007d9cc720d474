"""Seconds per page of Hearth's PDF text layer, next to raw pypdf and the previous pipeline.

    .venv/bin/python bench/pdf_text.py [--repeats 3] [--json PATH]

For each PDF with a text layer in bench/heldout/files (public files by others): raw is pypdf's
plain ``extract_text`` for every page; "layout" is the previous pipeline (pypdf's plain text,
and its layout-mode text for tables); Hearth is the PDF loader as it reads pages now (pypdf's
text, PDFium's drawn words for tables). Each is the best of ``--repeats`` runs in one process;
scanned pages (OCR) are left out. Also printed: the pages whose text has a table, each way.
Figures depend on machine load; they are never asserted by a test.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path

# The repository first: run as a script, bench/ingest.py would shadow the ingest package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: F401 - offline before any model library loads
from bench.figures import Figure, add_json_option, markdown_table, write_json
from ingest.loaders.pdf import drawn_words, page_text

FILES = Path(__file__).resolve().parent / "heldout" / "files"


def _best(repeats: int, run: Callable[[], list[str]]) -> tuple[float, list[str]]:
    best, texts = float("inf"), []
    for _ in range(repeats):
        start = time.perf_counter()
        texts = run()
        best = min(best, time.perf_counter() - start)
    return best, texts


def _tables(texts: list[str]) -> int:
    return sum(1 for t in texts if any(": " in ln and " | " in ln for ln in t.splitlines()))


def measure(path: Path, repeats: int) -> list[Figure]:
    """Raw, previous and Hearth seconds per page for one file, and its pages with tables."""
    from pypdf import PdfReader

    def pages() -> list[object]:
        return list(PdfReader(str(path), strict=False).pages)

    def raw() -> list[str]:
        return [(p.extract_text() or "").strip() for p in pages()]  # type: ignore[attr-defined]

    def layout() -> list[str]:
        return [page_text(p, None)[0] for p in pages()]

    def hearth() -> list[str]:
        read = pages()
        drawn = drawn_words(path, len(read))
        return [page_text(p, d)[0] for p, d in zip(read, drawn, strict=False)]

    raw_s, plain = _best(repeats, raw)
    if not any(plain):
        return []  # scanned: OCR's business (bench/ocr.py)
    layout_s, before = _best(repeats, layout)
    hearth_s, after = _best(repeats, hearth)
    n = len(plain)
    note = f"{n} pages; pages with a table: {_tables(before)} before, {_tables(after)} now"
    previous = "pypdf plain + layout mode"
    return [
        Figure(
            "pdf text",
            f"{path.name} (previous)",
            layout_s / n,
            "s/page",
            raw_s / n,
            better="lower",
            note=previous,
        ),
        Figure("pdf text", path.name, hearth_s / n, "s/page", raw_s / n, better="lower", note=note),
    ]


def run(repeats: int) -> list[Figure]:
    """Figures for every held-out PDF with a text layer."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    figures: list[Figure] = []
    for path in sorted(FILES.glob("*.pdf")):
        figures += measure(path, repeats)
    pairs = list(zip(figures[::2], figures[1::2], strict=True))
    if pairs:  # the geometric mean of now / previous over the files
        product = 1.0
        for before, now in pairs:
            product *= (now.value or 0) / (before.value or 1)
        mean = product ** (1 / len(pairs))
        figures.append(
            Figure(
                "pdf text",
                "now / previous, geometric mean",
                mean,
                "x",
                better="lower",
                note=f"{len(pairs)} files",
            )
        )
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    add_json_option(ap)
    args = ap.parse_args()
    figures = run(args.repeats)
    print(markdown_table(figures, with_section=False))
    write_json(args.json, figures)


if __name__ == "__main__":
    main()
