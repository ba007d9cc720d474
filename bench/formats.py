"""Files per second for each new format, on a small generated sample; prints a table.

    .venv/bin/python bench/formats.py [--files 10] [--json PATH]

For each kind, ``--files`` real files are written with the format's own library (the samples of
``samples/formats.py``), then timed twice: the loader alone (type detection + load +
chunking) and the whole pipeline (+ embedding with the bundled all-MiniLM-L6-v2, SQLite, Chroma,
FAISS). Figures depend on machine load; they are never asserted by a test.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: F401 - offline switches before any model library loads
from bench.figures import Figure, add_json_option, write_json
from core.embedder import create_embedder
from core.knowledge import KnowledgeBase
from core.settings import load_settings
from ingest.loaders.base import load_file, loader_for
from ingest.pipeline import IngestPipeline
from samples.formats import MAKERS

NOT_SUPPORTED = {
    "pptx": "text in pictures, charts, SmartArt; legacy .ppt (refused)",
    "xlsx": "formulas give cached values only; charts; legacy .xls and .ods (refused)",
    "csv": "a file without a header row (the first row is taken as the header)",
    "epub": "DRM-protected books; text in images",
    "eml": "S/MIME or PGP-encrypted bodies; winmail.dat (TNEF); .msg (OLE, refused)",
    "mbox": "Maildir, MH, PST (only mbox files)",
    "odt": "embedded objects; .ods/.odp (detected, no loader)",
    "rtf": "embedded pictures and objects; tables become plain lines",
    "json": "no schema awareness; whole file read into memory (max_file_bytes)",
    "yaml": "custom tags (safe loader refuses them)",
    "code": "no syntax-aware splitting; .ipynb notebooks",
}


def parser() -> argparse.ArgumentParser:
    """The command line of this bench."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=10, help="files per format")
    add_json_option(parser)
    return parser


def run(args: argparse.Namespace) -> list[Figure]:
    """Generate the sample, time loader and pipeline per format, print the table."""
    root = Path(tempfile.mkdtemp(prefix="hearth-bench-formats-"))
    try:
        settings = load_settings(data_dir=root / "data")
        embedder = create_embedder(settings.embedder)
        embedder.embed(["warm up"])
        kb = KnowledgeBase(settings)
        pipeline = IngestPipeline(kb, embedder)
        rows = []
        for kind, (name, make) in MAKERS.items():
            folder = root / kind
            folder.mkdir()
            first = folder / f"0-{name}"
            make(first)
            files = [first] + [folder / f"{i}-{name}" for i in range(1, args.files)]
            for copy in files[1:]:
                shutil.copyfile(first, copy)
            loader = loader_for(first)
            started = time.perf_counter()
            chunks = 0
            for path in files:
                chunks += len(pipeline.chunker.chunk(load_file(loader_for(path), path).sections))
            load_rate = len(files) / (time.perf_counter() - started)
            report = pipeline.ingest(files)
            assert not report.failures, report.failures
            rows.append(
                (
                    kind,
                    str(getattr(loader, "library", "-")),
                    load_rate,
                    len(files) / report.seconds,
                    chunks // len(files),
                    NOT_SUPPORTED[kind],
                )
            )
        kb.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"{args.files} files per format; loader = detect + load + chunk; "
        "pipeline = + embed + stores"
    )
    print(
        "| format | loader library | loader files/s | pipeline files/s | chunks/file "
        "| not supported |"
    )
    print("|---|---|---|---|---|---|")
    for kind, lib, load_rate, rate, chunks, missing in rows:
        print(f"| {kind} | {lib} | {load_rate:.0f} | {rate:.1f} | {chunks} | {missing} |")
    return [
        Figure(
            "formats",
            f"{kind} pipeline",
            rate,
            "files/s",
            better="higher",
            note=f"{lib}; loader alone {load_rate:.0f} files/s; {chunks} chunks/file",
        )
        for kind, lib, load_rate, rate, chunks, _missing in rows
    ]


def main() -> None:
    args = parser().parse_args()
    write_json(args.json, run(args))


if __name__ == "__main__":
    main()
