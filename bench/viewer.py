"""The citation viewer on real PDFs: how often a chunk's marks cover its words, and how long a
page takes to render, cold and from the cache, next to raw pypdfium2.

    .venv/bin/python bench/viewer.py [--pdf FILE ...] [--repeats 3] [--scale 1.5] [--json PATH]

Every PDF under ``../shared/data`` (or the ``--pdf`` files) is read and chunked as ingest does
(the PDF loader, the chunker with the bundled embedder's tokenizer); each text-layer chunk is
then marked on its page as ``GET /api/chunks/{id}/view`` marks it. A chunk's *coverage* is the
share of its distinct words that its page holds (pdfium's text) which lie under a mark; a
chunk counts as covered at >= 0.9 (and fully at 1.0). Render times per page: *cold* = open the
file, render at the scale, encode PNG (what a first request costs, no cache); *cached* = read
from the page cache on disk; *raw* = pypdfium2 opening and rendering alone (no PNG).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

# The repository first: run as a script, bench/ingest.py would shadow the ingest package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: F401 - offline before any model library loads
from bench.figures import Figure, add_json_option, write_json
from core.embedder import create_embedder
from core.settings import load_settings
from ingest.chunker import Chunker
from ingest.loaders import LoaderContext, Loaders
from service.viewer import pages
from service.viewer.marks import text_marks, words_of

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
COVERED = 0.9


def parser() -> argparse.ArgumentParser:
    """The command line of this bench."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--pdf", type=Path, nargs="*", default=None, help="PDFs (default: shared)")
    p.add_argument("--repeats", type=int, default=3, help="renders of each page per path")
    p.add_argument("--scale", type=float, default=None, help="pixels per point (viewer.scale)")
    add_json_option(p)
    return p


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0-1) of the values, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def timing(name: str, values: list[float], raw: list[float], q: float, note: str) -> Figure:
    """A render-time figure (seconds, the q-quantile) beside raw pypdfium2's."""
    return Figure("viewer", name, pct(values, q), "s", pct(raw, q), better="lower", note=note)


def run(args: argparse.Namespace) -> list[Figure]:
    """Measure, print the tables, return the figures."""
    import pypdfium2 as pdfium

    pdfs = args.pdf or sorted(SHARED.rglob("*.pdf"))
    if not pdfs:
        print(f"no PDFs under {SHARED}: nothing to measure")
        return []
    settings = load_settings(data_dir=Path(tempfile.mkdtemp()) / "data")
    scale = args.scale or settings.viewer.scale
    embedder = create_embedder(settings.embedder)
    chunker = Chunker(
        embedder.count_tokens,
        embedder.token_offsets,
        chunk_tokens=min(settings.chunking.chunk_tokens, embedder.max_tokens),
        overlap_tokens=settings.chunking.overlap_tokens,
    )
    loaders = Loaders(LoaderContext.create(settings))

    print(f"{'file':28} {'chunks':>6} {'ocr':>4} {'covered':>8} {'full':>5} {'mean cov':>8}")
    coverages: list[float] = []
    mark_s: list[float] = []
    reach: list[float] = []
    for path in pdfs:
        drafts = chunker.chunk(loaders.for_path(path).load(path))
        text_chunks = [d for d in drafts if "page" in d.provenance and "box" not in d.provenance]
        mine: list[float] = []
        pdf = pdfium.PdfDocument(str(path))
        try:
            for d in text_chunks:
                t = time.perf_counter()
                marks, _, _ = text_marks(pdf[int(d.provenance["page"]) - 1], d.text)
                mark_s.append(time.perf_counter() - t)
                mine.append(marks.coverage)
                reach.append(marks.page_marked / max(1, len(words_of(d.text))))
        finally:
            pdf.close()
        coverages += mine
        print(
            f"{path.name[:28]:28} {len(drafts):6d} {len(drafts) - len(text_chunks):4d} "
            f"{sum(c >= COVERED for c in mine):8d} {sum(c >= 1.0 for c in mine):5d} "
            f"{statistics.mean(mine) if mine else 1.0:8.3f}"
        )
    n = len(coverages)
    share = sum(c >= COVERED for c in coverages) / n if n else 1.0
    full = sum(c >= 1.0 for c in coverages) / n if n else 1.0
    print(
        f"\n{n} text-layer chunks: {share:.1%} covered (>= {COVERED:.0%} of their words "
        f"marked), {full:.1%} fully; marking p50 {pct(mark_s, 0.5) * 1000:.1f} ms per chunk"
    )
    print(
        f"page words marked per passage word: mean {statistics.mean(reach):.3f}, "
        f"max {max(reach):.3f} (above 1: marks reach past the passage)"
    )

    cache = pages.PageCache(settings.data_dir / "viewer", settings.viewer.cache_mib * 2**20)
    cold: list[float] = []
    cached: list[float] = []
    raw: list[float] = []
    page_count = 0
    for path in pdfs:
        count = pages.pdf_page_count(path)
        page_count += count
        for number in range(1, count + 1):
            for _ in range(args.repeats):
                t = time.perf_counter()
                doc = pdfium.PdfDocument(str(path))
                doc[number - 1].render(scale=scale).to_pil()
                doc.close()
                raw.append(time.perf_counter() - t)
                t = time.perf_counter()
                data = pages.render_pdf_page(path, number, scale)
                cold.append(time.perf_counter() - t)
                cache.put(path.name, number, scale, data)
                t = time.perf_counter()
                assert cache.get(path.name, number, scale) == data
                cached.append(time.perf_counter() - t)
    print(f"\nrender per page at scale {scale} ({page_count} pages x {args.repeats}), ms:")
    print(f"{'path':28} {'p50':>8} {'p95':>8}")
    for name, values in (
        ("cold (open+render+PNG)", cold),
        ("cached (disk)", cached),
        ("raw pypdfium2 render", raw),
    ):
        print(f"{name:28} {pct(values, 0.5) * 1000:8.1f} {pct(values, 0.95) * 1000:8.1f}")
    note = f"{len(pdfs)} PDFs, {n} chunks, scale {scale}"
    return [
        Figure(
            "viewer",
            "PDF chunks covered (>= 90% of words)",
            share,
            "share",
            better="higher",
            note=note,
        ),
        Figure("viewer", "PDF chunks fully covered", full, "share", better="higher", note=note),
        Figure(
            "viewer",
            "page words marked per passage word",
            statistics.mean(reach),
            "ratio",
            note="mean; 1.0 = nothing beyond the passage",
        ),
        timing("page render cold p50", cold, raw, 0.5, "open + render + PNG vs raw render"),
        timing("page render cold p95", cold, raw, 0.95, note),
        timing("page from cache p50", cached, raw, 0.5, "cache read vs raw render"),
    ]


def main() -> None:
    """Entry point."""
    args = parser().parse_args()
    figures = run(args)
    write_json(args.json, figures)


if __name__ == "__main__":
    main()
