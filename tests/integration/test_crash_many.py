"""Issue 9, point 2: `hearth ingest` SIGKILLed 20 times at random moments, then restarted.

After every kill the data directory is checked as the next start would see it once its own
repair has run (on a copy, so the product's start-up repair still meets the damaged original):
the SQL catalogue, Chroma and FAISS hold exactly the same chunk ids, no store holds an id twice,
and there are no orphans. A last, uninterrupted ingest must then finish every file.

The kill moments come from a seeded generator (``HEARTH_CRASH_SEED`` replays a failure); half are
timed from the process's start (start-up, repair, loading, embedding), half are keyed to the
catalogue growing, with a short jitter so they land among the SQL, Chroma and FAISS writes.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import text

from core.knowledge import KnowledgeBase
from core.settings import load_settings
from samples.pdf import write_pdf
from tests.integration.conftest import run_hearth, spawn_hearth

KILLS = 20
SPARE_RUNS = 6  # runs allowed beyond KILLS for kills that arrived after a run finished
PARAGRAPH = (
    "Entry {i}: the lighthouse keeper on rock {r} logged {w} ships passing in {m} weather, "
    "and noted the lamp oil used, {o} litres, in the brass-bound book kept by the stair.\n\n"
)
MOODS = ("calm", "foggy", "stormy", "clear", "squally")


def write_log(folder: Path, i: int, version: int = 0) -> None:
    """Log file ``i`` (Markdown for every fourth), about two chunks; ``version`` changes it."""
    body = "".join(
        PARAGRAPH.format(i=i * 10 + j, r=i % 17, w=i + j + version, m=MOODS[(i + j) % 5], o=j + 3)
        for j in range(6)
    )
    if i % 4 == 0:
        (folder / f"log{i:03d}.md").write_text(f"# Log {i} (v{version})\n\n{body}")
    else:
        (folder / f"log{i:03d}.txt").write_text(body)


def make_corpus(folder: Path, texts: int) -> None:
    """Plain text, Markdown and a few PDFs."""
    folder.mkdir()
    for i in range(texts):
        write_log(folder, i)
    for i in range(4):
        write_pdf(
            folder / f"report{i}.pdf",
            [
                f"Report {i} page {p}: the tide at berth {i * 7 + p} rose {p + 2} metres."
                for p in range(3)
            ],
        )


@dataclass
class Cycle:
    """One start-and-kill of `hearth ingest`."""

    n: int
    mode: str
    target: float
    chunks_before: int
    chunks_after: int
    out_of_step: bool
    alive: float
    killed: bool

    def __str__(self) -> str:
        return (
            f"kill {self.n} ({self.mode} {self.target:.2f}) after {self.alive:.1f} s: catalogue"
            f" top chunk id {self.chunks_before} -> {self.chunks_after},"
            f" {'killed' if self.killed else 'had finished'},"
            f" stores out of step before repair: {self.out_of_step}"
        )


def catalogue_chunks(db: Path) -> int:
    """Highest chunk id, read straight from the SQLite file (ids are never reused, so it grows
    with every commit that writes chunks, updates included); 0 before it exists."""
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.5)
        try:
            return int(con.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:  # not migrated yet, or locked for a moment
        return -1


def listed_ids(kb: KnowledgeBase) -> dict[str, list[int]]:
    """Every store's ids as stored (a list, so a duplicate would show)."""
    out: dict[str, list[int]] = {}
    with kb.db.session() as s:
        out["sql"] = [int(r[0]) for r in s.execute(text("SELECT id FROM chunks"))]
    import faiss

    index: Any = kb.stores["faiss"]._index  # type: ignore[attr-defined]
    out["faiss"] = [int(i) for i in faiss.vector_to_array(index.id_map)]
    chroma = kb.stores["chroma"]._collection  # type: ignore[attr-defined]
    out["chroma"] = [int(i) for i in chroma.get(include=[])["ids"]]
    return out


def check_consistent(data: Path, where: str) -> tuple[int, dict[str, list[int]]]:
    """Open the knowledge base on ``data`` as a start would, repair, and check every invariant.

    Returns the chunk count and the ids each store held *before* the repair.
    """
    kb = KnowledgeBase(load_settings(data_dir=data))
    try:
        before = listed_ids(kb)
        kb.repair()
        ids = listed_ids(kb)
        for name, got in ids.items():
            assert len(got) == len(set(got)), f"{where}: {name} holds duplicate ids"
        truth = set(ids["sql"])
        for name in ("chroma", "faiss"):
            store = set(ids[name])
            assert store == truth, (
                f"{where}: {name} differs from the catalogue: "
                f"{len(store - truth)} orphans, {len(truth - store)} missing"
            )
        with kb.db.session() as s:
            orphans = s.execute(
                text(
                    "SELECT count(*) FROM chunks c LEFT JOIN documents d ON d.id = c.document_id"
                    " WHERE d.id IS NULL"
                )
            ).scalar_one()
            assert orphans == 0, f"{where}: {orphans} chunks without a document"
            wrong = s.execute(
                text(
                    "SELECT d.path, d.status, d.chunk_count, count(c.id) FROM documents d"
                    " LEFT JOIN chunks c ON c.document_id = d.id GROUP BY d.id"
                    " HAVING (d.status = 'ingested' AND count(c.id) = 0)"
                    " OR d.chunk_count != count(c.id) OR d.status NOT IN ('ingested', 'empty')"
                )
            ).all()
            assert not wrong, f"{where}: documents whose chunks do not match: {wrong[:5]}"
            paths = s.execute(text("SELECT path FROM documents")).scalars().all()
            assert len(paths) == len(set(paths)), f"{where}: a file catalogued twice"
        return len(truth), before
    finally:
        kb.close()


def kb_embedding(kb: KnowledgeBase) -> bytes:
    """One stored embedding, to query every store with."""
    with kb.db.session() as s:
        return bytes(s.execute(text("SELECT embedding FROM chunks LIMIT 1")).scalar_one())


def snapshot(data: Path, scratch: Path) -> Path:
    """A copy of the (dead) process's data directory, so checking it repairs only the copy.

    Each copy gets a new path: Chroma keeps one client per path open in this process, and one
    left on a replaced file would find its database "moved" and read-only.
    """
    for old in scratch.parent.glob("check-*"):
        shutil.rmtree(old, ignore_errors=True)
    if data.exists():
        shutil.copytree(data, scratch, ignore=shutil.ignore_patterns("*.lock"))
    # else: killed before it made the data directory; the check starts from nothing
    return scratch


@pytest.mark.embedded_only("reads the SQLite catalogue, the Chroma directory and the FAISS file")
def test_twenty_kills_at_random_moments_then_every_file_ingested(tmp_path: Path) -> None:
    seed = int(os.environ.get("HEARTH_CRASH_SEED", str(random.SystemRandom().randrange(10**6))))
    rng = random.Random(seed)
    corpus = tmp_path / "corpus"
    texts = 30
    make_corpus(corpus, texts)
    data = tmp_path / "data"
    db = data / "catalogue.db"
    cycles: list[Cycle] = []
    # Timed kills fall in [0, window]: start-up (imports, model load, migration, repair), then
    # loading and embedding. The window follows how long the last starts took to their first
    # catalogue write (seen by the growth-keyed kills; a start with work cannot finish sooner),
    # so on a slow machine they still spread, and a timed kill still finds the process alive.
    first_writes: list[float] = []

    def window() -> float:
        return min(max(0.9 * min(first_writes[-3:]) if first_writes else 10.0, 4.0), 90.0)

    def history() -> str:
        return f"seed {seed} (HEARTH_CRASH_SEED={seed} replays)\n" + "\n".join(map(str, cycles))

    # A timed kill can miss a run that finished early (load can drop mid-test): such a cycle
    # does not count, and another run takes its place, so exactly KILLS kills land mid-run.
    n = 0
    while sum(c.killed for c in cycles) < KILLS and n < KILLS + SPARE_RUNS:
        n += 1
        # Every start finds work: three new files and one changed (its old chunks must go).
        for _ in range(3):
            write_log(corpus, texts)
            texts += 1
        write_log(corpus, rng.randrange(texts - 3), version=n)
        before = catalogue_chunks(db)
        mode = "time" if n % 2 else "growth"
        target = rng.uniform(0, window()) if mode == "time" else float(rng.randint(1, 6))
        jitter = rng.uniform(0, 0.3)
        proc = spawn_hearth(data, "ingest", "-q", str(corpus))
        started = time.monotonic()
        deadline = started + 300
        while proc.poll() is None and time.monotonic() < deadline:
            if mode == "time" and time.monotonic() - started >= target:
                break
            if mode == "growth":
                grown = catalogue_chunks(db) - before
                if grown > 0 and len(first_writes) < n // 2:
                    first_writes.append(time.monotonic() - started)
                if grown >= target:
                    time.sleep(jitter)
                    break
            time.sleep(0.02)
        alive = time.monotonic() - started
        killed = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        after = catalogue_chunks(db)
        where = f"after kill {n} ({mode} {target:.2f}); {history()}"
        assert killed or proc.returncode == 0, f"ingest failed on its own: {where}"
        _, pre = check_consistent(snapshot(data, tmp_path / f"check-{n}"), where)
        truth = set(pre["sql"])
        out_of_step = any(set(pre[k]) != truth for k in ("chroma", "faiss"))
        cycles.append(Cycle(n, mode, target, before, after, out_of_step, alive, killed))

    # The kills were kills, and landed both before any write of their run and among the writes.
    assert sum(c.killed for c in cycles) == KILLS, history()
    assert any(c.killed and c.chunks_after == c.chunks_before for c in cycles), history()
    assert any(c.killed and c.chunks_after > c.chunks_before for c in cycles), history()
    assert any(c.out_of_step for c in cycles), f"no kill left the stores behind: {history()}"

    done = run_hearth(data, "ingest", "-q", str(corpus))
    assert done.returncode == 0, f"{done.stderr}\n{history()}"
    assert "failed 0" in done.stdout, f"{done.stdout}\n{history()}"
    total, pre = check_consistent(data, f"after the final ingest; {history()}")
    # The product's own start-up repair (not this check) must already have put them in step.
    assert all(sorted(pre[k]) == sorted(pre["sql"]) for k in ("chroma", "faiss")), history()
    kb = KnowledgeBase(load_settings(data_dir=data))
    try:
        files = sorted(p for p in corpus.iterdir())
        assert kb.stats()["by_status"] == {"ingested": len(files)}, history()
        with kb.db.session() as s:
            stored = dict(s.execute(text("SELECT path, sha256 FROM documents")).all())
        current = {str(p.resolve()): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
        assert stored == current, f"catalogue is not the files' latest content; {history()}"
        assert total > 0 and kb.stats()["stores"] == {"chroma": total, "faiss": total}
        # Chroma's vector index (not only its SQLite rows) came through: every vector is found.
        vector = np.frombuffer(kb_embedding(kb), dtype=np.float32)
        for store in kb.stores.values():
            hits = store.query(vector, total)
            assert {h.chunk_id for h in hits} == kb.catalogue_ids(), f"{store.name}: {history()}"
    finally:
        kb.close()
    print(history())
