"""The keyword index Hearth used before issue 17, kept for benchmarks only: BM25 over every
chunk's text in memory (bm25s, no stemming, no title), rebuilt whenever the catalogue changes."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import func, select

from core.db.models import Chunk
from core.types import Hit

if TYPE_CHECKING:
    from core.db.session import Database


class BM25Index:
    """Keyword retrieval kept in step with the catalogue.

    The catalogue's signature (chunk count, highest chunk id) changes with every add, replace and
    removal, because chunk ids are never reused; :meth:`search` rebuilds the index when it has.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._signature: tuple[int, int] | None = None
        self._retriever: Any = None
        self._ids = np.zeros(0, dtype=np.int64)
        self._position: dict[int, int] = {}

    def _current_signature(self) -> tuple[int, int]:
        with self.db.session() as s:
            count, top = s.execute(select(func.count(Chunk.id), func.max(Chunk.id))).one()
        return int(count or 0), int(top or 0)

    def refresh(self) -> bool:
        """Rebuild if the catalogue changed; True when it did."""
        signature = self._current_signature()
        with self._lock:
            if signature == self._signature:
                return False
            import bm25s

            # bm25s sets its own logger to DEBUG when imported: keep it at the process's level.
            logging.getLogger("bm25s").setLevel(logging.getLogger().getEffectiveLevel())
            with self.db.session() as s:
                rows = s.execute(select(Chunk.id, Chunk.text).order_by(Chunk.id)).all()
            self._ids = np.asarray([r[0] for r in rows], dtype=np.int64)
            self._position = {int(cid): i for i, cid in enumerate(self._ids)}
            if rows:
                retriever = bm25s.BM25()
                tokens = bm25s.tokenize([r[1] for r in rows], stopwords="en", show_progress=False)
                retriever.index(tokens, show_progress=False)
                self._retriever = retriever
            else:
                self._retriever = None
            self._signature = signature
            return True

    def search(self, query: str, k: int, allowed: set[int] | None = None) -> list[Hit]:
        """Top ``k`` chunks by BM25 score (only ``allowed`` ids when given), best first."""
        self.refresh()
        with self._lock:
            if self._retriever is None or not len(self._ids):
                return []
            import bm25s

            tokens = bm25s.tokenize(query, stopwords="en", return_ids=False, show_progress=False)
            if not tokens or not tokens[0]:
                return []
            mask = None
            if allowed is not None:
                mask = np.zeros(len(self._ids), dtype=np.float32)
                for cid in allowed:
                    pos = self._position.get(cid)
                    if pos is not None:
                        mask[pos] = 1.0
            docs, scores = self._retriever.retrieve(
                tokens,
                k=min(k, len(self._ids)),
                show_progress=False,
                weight_mask=mask,
                n_threads=1,
            )
        return [
            Hit(int(self._ids[d]), float(sc))
            for d, sc in zip(docs[0], scores[0], strict=True)
            if sc > 0
        ]
