"""Folder watcher speed: seconds from a file's last write to being searchable, files/s for a burst.

A real watcher (watchfiles) on a temporary folder, the bundled embedder, SQLite, Chroma and FAISS.
"Searchable" means the file's document is ingested and every one of its chunk ids is in FAISS and
Chroma (so a question can retrieve it). The latency includes the debounce quiet period, which is
printed with it. The burst writes 200 small text files at once and times from the first write to
the last file being searchable.

    .venv/bin/python bench/watch.py [--quiet-seconds 1.0] [--trials 5] [--burst 200] [--json P]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import func, select

from bench.figures import Figure, add_json_option, write_json
from core.db.models import Chunk, Document
from core.embedder import create_embedder
from core.knowledge import KnowledgeBase
from core.settings import load_settings
from ingest.pipeline import IngestPipeline
from ingest.watcher import FolderWatcher, create_watcher

TEXT = (
    "Note {i}: the ferry to the northern islands left at {h}:15 carrying {n} passengers, "
    "three bicycles and a crate of apples for the school kitchen.\n"
)


def searchable(kb: KnowledgeBase, path: Path) -> bool:
    """The document at ``path`` is ingested and all its chunks are in every vector store."""
    with kb.db.session() as s:
        doc = s.scalar(select(Document).where(Document.path == str(path)))
        if doc is None or doc.status != "ingested":
            return False
        ids = set(s.scalars(select(Chunk.id).where(Chunk.document_id == doc.id)))
    return bool(ids) and all(ids <= store.ids() for store in kb.stores.values())


def ingested_count(kb: KnowledgeBase) -> int:
    """Documents ingested so far."""
    with kb.db.session() as s:
        query = select(func.count()).select_from(Document).where(Document.status == "ingested")
        n = s.scalar(query)
    return int(n or 0)


def wait(check: object, timeout: float = 600.0, step: float = 0.02) -> float:
    """Poll until ``check()`` holds; the monotonic time it was first seen to hold."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return time.monotonic()
        time.sleep(step)
    raise SystemExit("timed out")


def latency(kb: KnowledgeBase, watcher: FolderWatcher, folder: Path, trials: int) -> list[float]:
    """Seconds from the last write of a new file to it being searchable, per trial."""
    out = []
    for t in range(trials):
        path = folder / f"latency{t}.txt"
        with path.open("w") as fh:
            fh.write(TEXT.format(i=t, h=t % 24, n=t * 3))
        written = time.monotonic()
        out.append(wait(lambda p=path: searchable(kb, p)) - written)
        wait(lambda: watcher.idle)
    return out


def burst(kb: KnowledgeBase, folder: Path, files: int) -> tuple[float, float]:
    """Seconds from the first write to the last file searchable, and from the last write."""
    before = ingested_count(kb)
    sub = folder / "burst"
    sub.mkdir()
    first = time.monotonic()
    for i in range(files):
        (sub / f"n{i:04d}.txt").write_text(TEXT.format(i=i, h=i % 24, n=i) * 3)
    last = time.monotonic()
    done = wait(lambda: ingested_count(kb) >= before + files, step=0.1)
    return done - first, done - last


def parser() -> argparse.ArgumentParser:
    """The command line of this bench."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet-seconds", type=float, default=1.0)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--burst", type=int, default=200)
    add_json_option(parser)
    return parser


def run(args: argparse.Namespace) -> list[Figure]:
    """Time a watched folder, print the figures, return them."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        folder = root / "watched"
        folder.mkdir()
        settings = load_settings(data_dir=root / "data")
        settings.watch.quiet_seconds = args.quiet_seconds
        kb = KnowledgeBase(settings)
        embedder = create_embedder(settings.embedder)
        embedder.embed(["warm up"])
        watcher = create_watcher(IngestPipeline(kb, embedder), settings.watch, [folder])
        watcher.start()
        try:
            lat = latency(kb, watcher, folder, args.trials)
            total, after_last = burst(kb, folder, args.burst)
        finally:
            watcher.stop()
            kb.close()
    print(f"quiet period {args.quiet_seconds:.2f} s (2 shared cores; figures vary with load)")
    print(
        f"last write -> searchable: median {statistics.median(lat):.2f} s "
        f"(min {min(lat):.2f}, max {max(lat):.2f}, {len(lat)} files)"
    )
    print(
        f"burst of {args.burst} files: {total:.1f} s from first write to all searchable = "
        f"{args.burst / total:.1f} files/s ({after_last:.1f} s after the last write)"
    )
    return [
        Figure(
            "watch",
            "last write -> searchable",
            statistics.median(lat),
            "s",
            better="lower",
            note=f"median of {len(lat)}; includes the {args.quiet_seconds:.2f} s quiet period",
        ),
        Figure(
            "watch",
            f"burst of {args.burst} files",
            args.burst / total,
            "files/s",
            better="higher",
            note="first write to all searchable",
        ),
    ]


def main() -> None:
    args = parser().parse_args()
    write_json(args.json, run(args))


if __name__ == "__main__":
    main()
