"""Chunks and vectors of one large document kept on disk until its version is committed, and
the embedding of its batches (each distinct chunk text once).

A streamed file (``StreamingLoader``) is chunked and embedded a batch at a time; its batches
are written here, to two unlinked temporary files in the data directory (the system removes
them when the process ends, however it ends), and read back a batch at a time for the catalogue
commit and then for the vector stores. Memory holds one batch, whatever the document's size.
"""

from __future__ import annotations

import json
import tempfile
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TypeVar

import numpy as np

from core.embedder import Embedder
from core.memsize import trim_heap
from core.types import ChunkDraft

T = TypeVar("T")


class Spool:
    """Drafts (JSON lines) and float32 vectors (``dimension`` wide) of one document, in order.

    Use as a context manager; :meth:`add` appends a batch, :meth:`batches` reads them back
    (from the start, as often as needed) in lists of at most ``size``.
    """

    def __init__(self, folder: Path, dimension: int) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.dimension = dimension
        self.count = 0
        # Open for the spool's life, closed by close(); unlinked already, so never left behind.
        self._drafts: IO[bytes] = tempfile.TemporaryFile(dir=folder, prefix="hearth-spool-")  # noqa: SIM115
        self._vectors: IO[bytes] = tempfile.TemporaryFile(dir=folder, prefix="hearth-spool-")  # noqa: SIM115

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Free the files."""
        self._drafts.close()
        self._vectors.close()

    def add(self, drafts: list[ChunkDraft], vectors: np.ndarray) -> None:
        """Append drafts and their vectors (shape ``(len(drafts), dimension)``)."""
        if len(drafts) != len(vectors):
            raise ValueError(f"{len(drafts)} drafts but {len(vectors)} vectors")
        lines = (
            json.dumps([d.ordinal, d.text, d.token_count, d.provenance], ensure_ascii=False)
            for d in drafts
        )
        self._drafts.write("".join(line + "\n" for line in lines).encode())
        self._vectors.write(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
        self.count += len(drafts)

    def batches(self, size: int) -> Iterator[tuple[list[ChunkDraft], np.ndarray]]:
        """Every (drafts, vectors) in order, ``size`` at a time."""
        self._drafts.flush()
        self._vectors.flush()
        self._drafts.seek(0)
        self._vectors.seek(0)
        width = self.dimension * 4
        left = self.count
        while left:
            n = min(size, left)
            drafts = [ChunkDraft(*json.loads(self._drafts.readline())) for _ in range(n)]
            raw = self._vectors.read(n * width)
            yield drafts, np.frombuffer(raw, dtype=np.float32).reshape(n, self.dimension)
            left -= n
        self._drafts.seek(0, 2)  # further adds append
        self._vectors.seek(0, 2)


def trimmed(batches: Iterator[T], every: int) -> Iterator[T]:
    """``batches`` as they come, :func:`trim_heap` after every ``every`` of them."""
    for number, batch in enumerate(batches, 1):
        yield batch
        if number % every == 0:
            trim_heap()


class VectorCache:
    """Embeds texts, each distinct text once: the last ``size`` texts' vectors are kept (a log
    or a data dump repeats whole chunks; about 10 MB at the default size)."""

    def __init__(self, embedder: Embedder, size: int = 4096) -> None:
        self.embedder = embedder
        self.size = size
        self.embedded = 0  #: texts the embedder was given
        self._known: OrderedDict[str, np.ndarray] = OrderedDict()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` in order, shape ``(len(texts), dimension)``."""
        known = self._known
        fresh = [t for t in dict.fromkeys(texts) if t not in known]
        if fresh:
            known.update(zip(fresh, self.embedder.embed(fresh), strict=True))
            self.embedded += len(fresh)
        for text in texts:
            known.move_to_end(text)
        out = np.stack([known[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)
        while len(known) > max(self.size, len(texts)):
            known.popitem(last=False)
        return out
