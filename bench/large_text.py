"""Peak memory of `hearth ingest` against the size of one text file (issue 28, item 5).

Each size is one real `hearth ingest -q FILE` process (the bundled embedder, SQLite, Chroma and
FAISS in a scratch data directory); its peak RSS is the kernel's ``ru_maxrss`` of that process
(``bench.common.run_measured``). "after" is this tree; "before" is the pipeline of commit
``BEFORE`` (extracted with ``git archive`` and run the same way), stopped after
``--before-seconds`` (it did not finish 40 MB in 100 s), so its figure is the peak it
reached by then.

The text is lines of 80 characters (``--shape line``: one line without newlines; ``nospace``:
no spaces at all) cut from a few thousand distinct sentences that repeat, with three marker
sentences at the start, the middle and the end; repeated chunks are embedded once
(``ingest/spool.py``), so the run times measure the pipeline, not the embedder (unique text
embeds at the embedder's speed: see NOTES.md). Also printed: the indexes' share of the memory
plan for the chunks written (FAISS and Chroma hold every vector in memory, so they grow with
the library, as planned), and RSS less that share, which is what the streaming bounds.

    .venv/bin/python bench/large_text.py                  # 1, 10, 40, 200 MB; before up to 10
    .venv/bin/python bench/large_text.py --sizes 1 10 --before-sizes 1 10
    .venv/bin/python bench/large_text.py --stores 268000  # each index alone, against its plan
    .venv/bin/python bench/large_text.py --stores 268000 --roles faiss

``--stores N``: each vector store alone in a process of its own (FAISS, then the embedded
Chroma), written the way an ingest writes a streamed file (batches of 2,048 unit vectors of 384,
then the save), then opened by a fresh process: its peak and its RSS after the writing and after
loading, beside ``store_resident_bytes``, the memory plan's share for it.

Writes ``bench/out/large_text.json`` and ``bench/out/large_text.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from the repository root
    sys.path.insert(0, str(REPO))

from bench.common import REPO as _REPO  # noqa: E402
from bench.common import run_measured  # noqa: E402

OUT = _REPO / "bench" / "out"
#: The last commit before streamed ingest.
BEFORE = "92be46c"
MIB = 1024 * 1024
#: The first line (a document's title, carried by every chunk, when it is short).
TITLE = "Harbour office log"
MARKERS = {
    "start": "The opening ledger says the violet kayak is stored in boathouse seven. The violet "
    "kayak belongs to the harbour club and is kept in boathouse seven, beside the oars. Ask the "
    "harbour club: their violet kayak is stored in boathouse number seven.",
    "middle": "Halfway through, the archivist notes that the brass telescope faces Ursa Minor. "
    "The brass telescope on the archive roof faces north, toward Ursa Minor, the Little Bear. "
    "The archivist turned the brass telescope to face Ursa Minor.",
    "end": "The closing entry records the copper kettle was sold in Tromso for nine crowns. The "
    "copper kettle went to a buyer in Tromso; the copper kettle's price was nine crowns. So the "
    "copper kettle was sold in Tromso.",
}
#: What the passage answering each question must hold.
FACTS = {"start": "boathouse seven", "middle": "Ursa Minor", "end": "Tromso"}
QUESTIONS = {
    "start": "Where is the violet kayak stored?",
    "middle": "Which way does the brass telescope face?",
    "end": "Where was the copper kettle sold?",
}
_WORDS = (
    "harbour crane timber ledger foreman morning gate tonnes winter pier ferry cargo ropes "
    "tide lantern warehouse barrels salt herring nets keel mast anchor chart compass gull "
    "storm shed tar oars cabin stove kettle bread coffee letters clerk stamp invoice"
)


def sentences(count: int = 3000, seed: int = 28) -> list[str]:
    """``count`` distinct filler sentences (numbered, so none repeats within the pool)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        pick = _WORDS.split()
        words = " ".join(rng.choice(pick) for _ in range(rng.randint(8, 16)))
        out.append(f"Entry {i}: the {words}.")
    return out


def write_text(path: Path, size: int, shape: str = "lines", distinct: int = 3000) -> dict[str, str]:
    """Write about ``size`` bytes of text to ``path``: ``lines`` (80-character lines, no blank
    line), ``line`` (one line) or ``nospace`` (letters only), of ``distinct`` filler sentences
    that repeat. Returns the marker sentences put at the start, the middle and the end."""
    pool = sentences(distinct)
    if shape == "nospace":
        pool = ["".join(c for c in s if c.isalpha()) for s in pool]
    sep = "" if shape == "nospace" else " "
    filler = sep.join(pool)
    markers = dict(MARKERS)
    if shape == "nospace":
        markers = {k: v.replace(" ", "") for k, v in markers.items()}
    body_size = max(0, size - sum(len(m) + 2 for m in markers.values()))
    with path.open("w", encoding="utf-8") as fh:
        written = 0

        def emit(text: str, words: bool = False) -> None:
            nonlocal written
            if shape == "lines" and words:  # a marker: wrapped between words
                fh.write(textwrap.fill(text, 80) + "\n")
            elif shape == "lines":  # filler: cut every 80 characters, as `fold` does
                for start in range(0, len(text), 80):
                    fh.write(text[start : start + 80].strip() + "\n")
            else:
                fh.write(text + sep)
            written += len(text) + 1

        if shape != "nospace":
            fh.write(TITLE + "\n")
        emit(markers["start"], True)
        half = False
        while written < body_size:
            if not half and written >= body_size // 2:
                emit(markers["middle"], True)
                half = True
            emit(filler[: max(80, min(len(filler), body_size - written))])
        if not half:
            emit(markers["middle"], True)
        emit(markers["end"], True)
    return markers


def _extract(rev: str, into: Path) -> Path:
    """The tree of commit ``rev`` under ``into`` (git archive), to run the old pipeline."""
    archive = subprocess.run(
        ["git", "-C", str(_REPO), "archive", rev], check=True, capture_output=True
    ).stdout
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run_ingest(root: Path, file: Path, data: Path, timeout: float) -> dict[str, Any]:
    """One `hearth ingest -q FILE` with the code under ``root``: peak RSS (bytes), seconds,
    whether it finished (exit status) within ``timeout``."""
    env = {
        **os.environ,
        "HEARTH_DATA_DIR": str(data),
        "HEARTH_INGEST__MAX_FILE_BYTES": str(max(file.stat().st_size + 1, 200 * MIB)),
        "PYTHONPATH": str(root),
    }
    env.pop("HEARTH_CONFIG", None)
    run = run_measured(
        [sys.executable, "-m", "service.cli", "ingest", "-q", str(file)],
        env=env,
        cwd=root,
        timeout=timeout,
        poll_s=0.2,
    )
    out, err = run.stdout, run.stderr
    finished = run.returncode == 0
    return {
        "peak_rss": run.peak_rss,
        "seconds": run.seconds,
        "finished": finished,
        "summary": out.strip().splitlines()[-1] if out.strip() else err.strip()[-300:],
    }


def index_plan(data: Path) -> tuple[int, int]:
    """(chunks in the catalogue, bytes the memory plan holds for the indexes of that many)."""
    from core.settings import load_settings
    from core.vectorstores.base import store_resident_bytes

    settings = load_settings(data_dir=data)
    import sqlite3

    with sqlite3.connect(data / "catalogue.db") as db:
        chunks = int(db.execute("select count(*) from chunks").fetchone()[0])
    return chunks, sum(store_resident_bytes(settings).values())


#: One store alone (argv: role, count, data dir, "write" or "load"): prints its RSS before and
#: after as JSON; "write" adds ``count`` vectors as an ingest does, "load" opens and queries.
_STORE_CHILD = r"""
import json, sys
import numpy as np
from core.memsize import current_rss
from core.settings import load_settings
from core.vectorstores.base import STORES, open_store
import chromadb, faiss
role, count, data, step = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
settings = load_settings(data_dir=data)
STORES.names()
rng = np.random.default_rng(0)
query = rng.standard_normal(384).astype(np.float32)
before = current_rss()
store = open_store(role, settings, 384)
meta = {"document_id": 1, "collection": "default", "file_type": "text"}
if step == "write":
    for start in range(0, count, 2048):
        n = min(2048, count - start)
        vectors = rng.standard_normal((n, 384), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.add(list(range(start + 1, start + n + 1)), vectors, [meta] * n)
    store.persist()
store.query(query, 10)
print(json.dumps({"before": before, "after": current_rss(), "count": store.count()}))
"""


def store_alone(role: str, count: int, data: Path, step: str) -> dict[str, Any]:
    """One ``_STORE_CHILD`` run: RSS before and after, its peak, the plan's share after."""
    from core.settings import load_settings
    from core.vectorstores.base import store_resident_bytes

    env = {**os.environ, "PYTHONPATH": str(_REPO)}
    run = run_measured(
        [sys.executable, "-c", _STORE_CHILD, role, str(count), str(data), step],
        env=env,
        cwd=_REPO,
        timeout=3600,
    )
    if run.returncode != 0:
        raise SystemExit(f"{role} {step} failed: {run.stderr[-2000:]}")
    got = json.loads(run.stdout.strip().splitlines()[-1])
    plan = store_resident_bytes(load_settings(data_dir=data)).get(role, 0)
    return {**got, "peak": run.peak_rss, "plan": plan, "seconds": run.seconds}


def stores_alone(count: int, roles: tuple[str, ...] = ("faiss", "chroma")) -> None:
    """Print each store's (of ``roles``) memory alone at ``count`` vectors against its planned
    share."""
    print(f"each store alone, {count:,} vectors of 384 written in batches of 2,048, then saved")
    print("| store | step | s | RSS before | peak less before | after less before | plan |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    with tempfile.TemporaryDirectory(prefix="hearth-stores-") as tmp:
        for role in roles:
            data = Path(tmp) / role
            for step in ("write", "load"):
                r = store_alone(role, count, data, step)
                rows.append({"store": role, "step": step, **r})
                print(
                    f"| {role} | {step} | {r['seconds']:.0f} | {human(r['before'])} | "
                    f"{human(r['peak'] - r['before'])} | {human(r['after'] - r['before'])} | "
                    f"{human(r['plan'])} |",
                    flush=True,
                )
    (OUT / f"large_text_stores_{'_'.join(roles)}.json").write_text(json.dumps(rows, indent=2))


def answerable(data: Path, nospace: bool = False) -> dict[str, bool]:
    """Whether retrieval's best passage for each marker's question holds its fact."""
    from core.embedder import create_embedder
    from core.knowledge import KnowledgeBase
    from core.settings import load_settings
    from service.answering.retrieval import Retriever

    settings = load_settings(data_dir=data)
    kb = KnowledgeBase(settings)
    try:
        retriever = Retriever(kb, create_embedder(settings.embedder))
        found = {}
        for where, question in QUESTIONS.items():
            top = retriever.retrieve(question)
            fact = FACTS[where].replace(" ", "") if nospace else FACTS[where]
            found[where] = bool(top) and fact in " ".join(top[0].text.split())
        return found
    finally:
        kb.close()


def human(n: float) -> str:
    return f"{n / MIB:,.0f} MiB"


def plot(rows: list[dict[str, Any]], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, key, style in (
        ("after: peak RSS", "after_rss", "o-"),
        ("after: RSS less the indexes' plan", "after_working", "s--"),
        ("before: peak RSS (stopped at the time limit)", "before_rss", "x:"),
    ):
        points = [(r["mb"], r[key] / MIB) for r in rows if r.get(key)]
        if points:
            ax.plot(*zip(*points, strict=True), style, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("text file size (MB)")
    ax.set_ylabel("MiB")
    ax.set_title("hearth ingest of one text file: peak RSS against size")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 10, 40, 200], help="MB")
    parser.add_argument("--before-sizes", type=float, nargs="*", default=[1, 10], help="MB")
    parser.add_argument("--before-seconds", type=float, default=120.0)
    parser.add_argument("--seconds", type=float, default=3600.0, help="limit of each run")
    parser.add_argument("--shape", choices=("lines", "line", "nospace"), default="lines")
    parser.add_argument("--before", default=BEFORE, help="commit of the old pipeline")
    parser.add_argument("--distinct", type=int, default=3000, help="filler sentences")
    parser.add_argument(
        "--stores", type=int, metavar="N", help="only each store alone at N vectors"
    )
    parser.add_argument(
        "--roles",
        nargs="+",
        choices=("faiss", "chroma"),
        default=["faiss", "chroma"],
        help="the stores --stores measures",
    )
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.stores:
        stores_alone(args.stores, tuple(args.roles))
        return
    rows = []
    with tempfile.TemporaryDirectory(prefix="hearth-large-text-") as tmp:
        scratch = Path(tmp)
        old_root = _extract(args.before, scratch / "before") if args.before_sizes else None
        for mb in args.sizes:
            file = scratch / f"text-{mb:g}MB.txt"
            write_text(file, int(mb * 1_000_000), args.shape, args.distinct)
            row: dict[str, Any] = {"mb": mb, "bytes": file.stat().st_size}
            if old_root is not None and mb in args.before_sizes:
                old = run_ingest(old_root, file, scratch / f"old-{mb:g}", args.before_seconds)
                row.update(before_rss=old["peak_rss"], before_s=old["seconds"])
                row["before_finished"] = old["finished"]
            new = run_ingest(_REPO, file, scratch / f"new-{mb:g}", args.seconds)
            chunks, planned = index_plan(scratch / f"new-{mb:g}")
            row.update(
                after_rss=new["peak_rss"],
                after_s=new["seconds"],
                after_finished=new["finished"],
                summary=new["summary"],
                chunks=chunks,
                index_plan=planned,
                after_working=new["peak_rss"] - planned,
            )
            if new["finished"]:
                row["answerable"] = answerable(scratch / f"new-{mb:g}", args.shape == "nospace")
            rows.append(row)
            print(json.dumps(row), flush=True)
            file.unlink()
    print()
    print(
        f"shape {args.shape}; before = commit {args.before}, stopped after "
        f"{args.before_seconds:g} s"
    )
    head = (
        "| MB | before peak RSS | before s | after peak RSS | after s | chunks | "
        "indexes' plan | after less indexes | start/middle/end answerable |"
    )
    print(head)
    print("|" + "---|" * 9)
    for r in rows:
        before = (
            f"{human(r['before_rss'])}{'' if r['before_finished'] else ' (stopped)'}"
            if "before_rss" in r
            else "-"
        )
        found = r.get("answerable", {})
        print(
            f"| {r['mb']:g} | {before} | {r.get('before_s', 0):.0f} | {human(r['after_rss'])}"
            f"{'' if r['after_finished'] else ' (unfinished)'} | {r['after_s']:.0f} | "
            f"{r['chunks']:,} | {human(r['index_plan'])} | {human(r['after_working'])} | "
            f"{'/'.join('yes' if found.get(k) else 'no' for k in QUESTIONS) if found else '-'} |"
        )
    (OUT / "large_text.json").write_text(json.dumps(rows, indent=2))
    plot(rows, OUT / "large_text.png")
    print(f"\nwrote {OUT / 'large_text.json'} and {OUT / 'large_text.png'}")


if __name__ == "__main__":
    main()
