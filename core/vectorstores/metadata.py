"""Per-id filter metadata for a store that has none of its own (FAISS), saved beside its index.

Kept as a dict for cheap adds and deletes; the column arrays a filtered query needs are built
once after each change, so a filter costs one vectorised pass, never a SQL query. A loaded file
stays as its arrays until the first change (building the dict of a million ids took 1.0 s of
start-up, bench/scale.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from core.filters import Filters


class FilterMetadata:
    """``id -> (document_id, collection, file_type)`` with vectorised filtering."""

    def __init__(self) -> None:
        self._rows: dict[int, tuple[int, str, str]] | None = {}
        self._arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def rows(self) -> dict[int, tuple[int, str, str]]:
        """``id -> (document_id, collection, file_type)`` (built from loaded arrays on first
        use)."""
        if self._rows is None:
            assert self._arrays is not None
            ids, docs, colls, types = self._arrays
            self._rows = {
                int(i): (int(d), str(c), str(t))
                for i, d, c, t in zip(ids, docs, colls, types, strict=True)
            }
        return self._rows

    def ids(self) -> np.ndarray:
        """Every id, int64."""
        return self._columns()[0]

    def set(self, ids: list[int], metadatas: list[dict[str, Any]]) -> None:
        """Record the metadata of ``ids`` (missing keys are stored empty)."""
        rows = self.rows
        for cid, meta in zip(ids, metadatas, strict=True):
            rows[int(cid)] = (
                int(meta.get("document_id", -1)),
                str(meta.get("collection", "")),
                str(meta.get("file_type", "")),
            )
        self._arrays = None

    def drop(self, ids: list[int]) -> None:
        """Forget ``ids``."""
        rows = self.rows
        for cid in ids:
            rows.pop(int(cid), None)
        self._arrays = None

    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if self._arrays is None:
            rows = self.rows
            n = len(rows)
            ids = np.fromiter(rows.keys(), dtype=np.int64, count=n)
            docs = np.fromiter((r[0] for r in rows.values()), dtype=np.int64, count=n)
            colls = np.asarray([r[1] for r in rows.values()], dtype=object)
            types = np.asarray([r[2] for r in rows.values()], dtype=object)
            self._arrays = (ids, docs, colls, types)
        return self._arrays

    def matching(self, filters: Filters) -> np.ndarray:
        """The int64 ids passing ``filters``."""
        ids, docs, colls, types = self._columns()
        mask = np.ones(len(ids), dtype=bool)
        if filters.collection:
            mask &= colls == filters.collection
        if filters.document_ids:
            mask &= np.isin(docs, np.asarray(filters.document_ids, dtype=np.int64))
        if filters.file_types:
            mask &= np.isin(types, np.asarray(filters.file_types, dtype=object))
        return ids[mask]

    def save(self, path: Path) -> None:
        """Write atomically (temporary file, fsync, rename)."""
        ids, docs, colls, types = self._columns()
        tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
        with tmp.open("wb") as fh:
            np.savez(fh, ids=ids, docs=docs, colls=colls.astype(str), types=types.astype(str))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> FilterMetadata:
        """Read a saved file; empty when it is missing or unreadable."""
        out = cls()
        try:
            with np.load(path, allow_pickle=False) as data:
                ids, docs = data["ids"], data["docs"]
                colls, types = data["colls"], data["types"]
        except (OSError, ValueError, KeyError):
            return out
        as_int = np.int64
        out._arrays = (np.asarray(ids, dtype=as_int), np.asarray(docs, dtype=as_int), colls, types)
        out._rows = None
        return out
