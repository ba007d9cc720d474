"""A scratch knowledge base for a BEIR corpus, apart from the user's own.

``<data_dir>/eval/scratch/<set name>-<key>/`` holds the corpus written as one text file per
document (``corpus/<name>.txt``, title then text) and its own data directory (``data/``: SQLite
catalogue, embedded Chroma, FAISS). The key hashes the corpus file and the embedder and chunking
settings, so a re-run over the same corpus reuses the ingested scratch base at once; when the
corpus changes, the old scratch folder of that set is removed and a new one built.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from core.embedder import Embedder
from core.settings import HearthSettings
from service.evaluation.gold import GoldSet

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


@dataclass
class Scratch:
    """A ready scratch knowledge base: its settings, collection, and file name -> BEIR ``_id``."""

    folder: Path
    settings: HearthSettings
    collection: str
    ids: dict[str, str]
    reused: bool
    ingest_s: float = 0.0
    failed: int = 0

    def corpus_id(self, path: str) -> str:
        """The BEIR ``_id`` of a scratch document's path."""
        stem = Path(path).stem
        return self.ids.get(stem, stem)


def file_stem(doc_id: str) -> str:
    """A safe file name for a corpus ``_id`` (the id itself when it is plain)."""
    if _SAFE.fullmatch(doc_id):
        return doc_id
    return "d" + hashlib.sha256(doc_id.encode()).hexdigest()[:20]


def scratch_settings(settings: HearthSettings, folder: Path) -> HearthSettings:
    """The user's settings pointed at a scratch data directory with embedded stores only (never
    the user's catalogue database or Chroma server)."""
    scratch = settings.model_copy(deep=True)
    scratch.data_dir = folder / "data"
    scratch.database_url = None
    scratch.chroma.mode = "embedded"
    scratch.chroma.url = None
    scratch.watch.folders = []
    return scratch


def scratch_key(settings: HearthSettings, gold: GoldSet) -> str:
    """Changes with the corpus, the embedder and the chunking (anything that changes the index)."""
    digest = hashlib.sha256()
    for part in (
        gold.corpus_sha256,
        settings.embedder.model_dump_json(),
        settings.chunking.model_dump_json(),
    ):
        digest.update(part.encode())
    return digest.hexdigest()[:12]


def _collection_name(gold: GoldSet) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", gold.name).strip("-") or "eval"


def prepare_scratch(
    settings: HearthSettings, gold: GoldSet, embedder: Embedder, progress: bool = True
) -> Scratch:
    """The scratch knowledge base of a BEIR corpus: reused when ready, else ingested now."""
    import time

    from tqdm import tqdm

    from core.knowledge import KnowledgeBase
    from core.lock import WriterLock
    from ingest.pipeline import FileResult, IngestPipeline

    name = _collection_name(gold)
    root = settings.data_dir / "eval" / "scratch"
    folder = root / f"{name}-{scratch_key(settings, gold)}"
    scratch = scratch_settings(settings, folder)
    manifest_path = folder / MANIFEST
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("complete"):
            return Scratch(folder, scratch, name, dict(manifest["ids"]), reused=True)
    for stale in root.glob(f"{name}-*"):  # an older corpus of the same set
        if stale != folder and (stale / MANIFEST).exists():
            shutil.rmtree(stale, ignore_errors=True)
    corpus_dir = folder / "corpus"
    corpus_dir.mkdir(parents=True, exist_ok=True)
    ids: dict[str, str] = {}
    paths = []
    for doc_id, doc in gold.corpus.items():
        stem = file_stem(doc_id)
        ids[stem] = doc_id
        path = corpus_dir / f"{stem}.txt"
        body = f"{doc['title']}\n\n{doc['text']}" if doc["title"] else doc["text"]
        if not path.exists() or path.read_text(encoding="utf-8") != body:
            path.write_text(body, encoding="utf-8")
        paths.append(path)
    started = time.perf_counter()
    kb = KnowledgeBase(scratch)
    try:
        with WriterLock.for_settings(scratch):
            bar = tqdm(
                total=len(paths),
                unit="doc",
                desc=f"ingest {name} (scratch)",
                file=sys.stderr,
                disable=not progress or None,
            )

            def tick(_result: FileResult) -> None:
                bar.update(1)

            with bar:
                report = IngestPipeline(kb, embedder).ingest(paths, collection=name, progress=tick)
    finally:
        kb.close()
    failed = len(report.failures)
    if failed:
        log.warning("scratch ingest of %s: %d documents failed", name, failed)
    tmp = manifest_path.with_suffix(".tmp")
    tmp.write_text(
        json.dumps(
            {
                "complete": True,
                "gold": str(gold.path),
                "corpus_sha256": gold.corpus_sha256,
                "documents": len(paths),
                "failed": failed,
                "chunks": report.chunks,
                "ids": ids,
            }
        )
    )
    os.replace(tmp, manifest_path)
    return Scratch(
        folder, scratch, name, ids, False, round(time.perf_counter() - started, 2), failed
    )
