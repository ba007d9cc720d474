"""The knowledge base: the SQL catalogue and the vector stores that mirror it."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from core import catalogue
from core.catalogue import Committed, DocumentVersion
from core.db.session import Database
from core.vectorstores.base import VectorStore, open_vector_stores

if TYPE_CHECKING:
    from core.settings import HearthSettings

log = logging.getLogger(__name__)


@dataclass
class RepairReport:
    """What :meth:`KnowledgeBase.repair` changed in each store."""

    removed: dict[str, int]
    added: dict[str, int]
    #: True when the stores were not compared id by id: the last process closed cleanly with
    #: them in step, and neither the catalogue nor the stores' sizes changed since.
    trusted: bool = False
    #: Stores that answer no query, whose size a trusted start left to be checked before their
    #: first write (:meth:`KnowledgeBase.check_deferred`).
    deferred: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """True when any store had to be mended."""
        return any(self.removed.values()) or any(self.added.values())


#: Written by a clean close with the stores in step: the catalogue's (chunk count, highest id).
IN_STEP_MARK = "stores-in-step.json"


class KnowledgeBase:
    """Opens the catalogue (migrated to head) and the vector stores of one data directory.

    A clean :meth:`close` of a process that repaired its stores leaves a mark
    (:data:`IN_STEP_MARK`) holding the catalogue's signature when no store write failed since;
    every open takes the mark away, so a process that crashes leaves none. :meth:`repair` with
    ``trust_clean_close`` skips the id-by-id comparison when the mark's signature is the
    catalogue's and the store that answers dense queries holds that many ids (at a million
    chunks the comparison took 9 of 12.8 s of start-up, bench/scale.py); the other stores'
    sizes are checked before their first write (:meth:`check_deferred`), and one that is off
    is mended then.
    """

    def __init__(self, settings: HearthSettings, dimension: int | None = None) -> None:
        """``dimension``: the embedder's (read from its configuration when not given)."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        if dimension is None:
            from core.embedder import configured_dimension

            dimension = configured_dimension(settings.embedder)
        self.settings = settings
        self.db = Database(settings.sqlalchemy_url)
        self.db.migrate()
        self.stores: dict[str, VectorStore] = open_vector_stores(settings, dimension)
        self._local_signature: tuple[int, int] | None = None
        self._refresh_guard = threading.Lock()
        self._clean_mark = self._take_mark()
        self._in_step = False  # known only after a repair in this process
        self._store_failed = False
        self._unchecked: dict[str, int] = {}  # role -> size a trusted start did not check
        self._checking = threading.Lock()  # a second writer waits for the check to end

    def _take_mark(self) -> tuple[int, int] | None:
        """The signature a clean close left, removed from disk (None when there is none)."""
        path = self.settings.data_dir / IN_STEP_MARK
        try:
            data = json.loads(path.read_text())
            path.unlink()
            return int(data["chunks"]), int(data["max_id"])
        except (OSError, ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)
            return None

    def catalogue_ids(self) -> set[int]:
        """Every chunk id in the catalogue."""
        with self.db.session() as s:
            return catalogue.all_chunk_ids(s)

    def stats(self) -> dict[str, Any]:
        """Documents by status, chunk count, and each store's size."""
        with self.db.session() as s:
            by_status = catalogue.status_counts(s)
            chunks = catalogue.chunk_count(s)
        return {
            "documents": sum(by_status.values()),
            "by_status": by_status,
            "chunks": chunks,
            "stores": {name: len(store.ids()) for name, store in self.stores.items()},
        }

    def repair(self, trust_clean_close: bool = False) -> RepairReport:
        """Make every vector store hold exactly the catalogue's chunk ids.

        Ids a store has but the catalogue lacks are deleted; ids it lacks are re-added from the
        embeddings kept in the catalogue. Runs at every start, so a crash between the catalogue's
        commit and the stores' update is mended by itself. ``trust_clean_close``: skip the
        comparison after a clean close that nothing has changed since (see the class).
        """
        if trust_clean_close and self._clean_mark is not None:
            signature = self.catalogue_signature()
            serving = {self.settings.retrieval.dense_backend} & set(self.stores)
            if signature == self._clean_mark and all(
                self.stores[role].count() == signature[0] for role in serving
            ):
                zero = dict.fromkeys(self.stores, 0)
                self._in_step = True
                later = tuple(role for role in self.stores if role not in serving)
                self._unchecked = dict.fromkeys(later, signature[0])
                return RepairReport(zero, dict(zero), trusted=True, deferred=later)
        truth = self.catalogue_ids()
        removed: dict[str, int] = {}
        added: dict[str, int] = {}
        for name, store in self.stores.items():
            removed[name], added[name] = self._sync(store, truth)
            if removed[name] or added[name]:
                store.persist()
        self._in_step = True
        return RepairReport(removed=removed, added=added)

    def check_deferred(self) -> None:
        """Check the size of each store a trusted start did not check (those that answer no
        query: an embedded Chroma loads its whole HNSW segment to count it, 1.9 GiB and
        several seconds at a million chunks, holding the GIL); called before their first write.
        One that is off is mended, and this process will not vouch for the stores at close."""
        if not self._unchecked:
            return
        with self._checking:
            while self._unchecked:
                role, expected = next(iter(self._unchecked.items()))
                self._check_size(role, expected)
                del self._unchecked[role]

    def _check_size(self, role: str, expected: int) -> None:
        from core.lock import WriterLock

        store = self.stores[role]
        if store.count() == expected:
            return
        self._in_step = False  # the next start compares every id, whatever happens here
        log.warning("the %s store's size is off after a clean close: mending it", role)
        with WriterLock.for_settings(self.settings):
            # The store's ids first, then the catalogue's: an ingest writes the catalogue
            # before the stores, so no id it is adding can look stray.
            have = store.ids()
            removed, added = self._sync(store, self.catalogue_ids(), have)
            store.persist()
        log.warning("mended the %s store: removed %d, added %d", role, removed, added)

    def _sync(
        self, store: VectorStore, truth: set[int], have: set[int] | None = None
    ) -> tuple[int, int]:
        """Delete what the store has beyond ``truth`` and restore what it lacks from the
        embeddings in the catalogue; returns (removed, added). ``have``: the store's ids, when
        already read."""
        have = store.ids() if have is None else have
        extra = sorted(have - truth)
        missing = sorted(truth - have)
        if extra:
            store.delete(extra)
        for start in range(0, len(missing), 2000):
            self._restore(store, missing[start : start + 2000])
        return len(extra), len(missing)

    def catalogue_signature(self) -> tuple[int, int]:
        """(chunk count, highest chunk id): changes whenever any writer adds or removes chunks
        (ids are never reused)."""
        with self.db.session() as s:
            return catalogue.chunk_signature(s)

    def queryable_store(self, role: str) -> VectorStore:
        """The store of ``role`` brought in step for a query: rebuilt from a shared catalogue
        that other replicas write (see :meth:`refresh_local_stores`), else re-read when another
        process saved it."""
        store = self.stores[role]
        if self.settings.shared_catalogue:
            self.refresh_local_stores()
        else:
            store.refresh()
        return store

    def refresh_local_stores(self) -> bool:
        """Bring the stores local to this replica (FAISS) in step with a shared catalogue that
        other replicas write. One cheap query when nothing changed; True when it synced.

        Needs no writer lock: the FAISS index belongs to this process alone.
        """
        store = self.stores.get("faiss")
        if store is None:
            return False
        with self._refresh_guard:
            signature = self.catalogue_signature()  # read first: a later change re-syncs
            if signature == self._local_signature:
                return False
            removed, added = self._sync(store, self.catalogue_ids())
            self._local_signature = signature
            return bool(removed or added)

    def repair_unless_busy(self) -> RepairReport | None:
        """:meth:`repair` (trusting a clean close) under the writer lock; None when another
        process is writing (that writer repaired at its own start and keeps the stores in
        step)."""
        from core.errors import ConflictError
        from core.lock import WriterLock

        try:
            with WriterLock.for_settings(self.settings):
                return self.repair(trust_clean_close=True)
        except ConflictError:
            return None

    def _restore(self, store: VectorStore, ids: list[int]) -> None:
        with self.db.session() as s:
            found, vectors, metas = catalogue.stored_embeddings(s, ids)
        if vectors is not None:
            store.add(found, vectors, metas)

    def commit(self, version: DocumentVersion) -> Committed:
        """Replace a document's chunks in the catalogue (one transaction); the stores follow
        with :meth:`write_vectors`."""
        with self.db.session() as s:
            return catalogue.write_version(s, version)

    def write_vectors(self, done: Committed, vectors: np.ndarray) -> None:
        """Replace a committed document's vectors in every store (after the catalogue)."""
        self.write_vector_batches(done, [vectors])

    def write_vector_batches(self, done: Committed, batches: Iterable[np.ndarray]) -> None:
        """Replace a committed document's vectors in every store (after the catalogue): the old
        ids go, then the new vectors are added a batch at a time, in the order of
        ``done.new_ids`` (a streamed document's batches are read back from disk)."""
        self.check_deferred()
        try:
            for store in self.stores.values():
                store.delete(done.old_ids)
            offset = 0
            for vectors in batches:
                ids = done.new_ids[offset : offset + len(vectors)]
                offset += len(ids)
                if not ids:
                    continue
                for store in self.stores.values():
                    store.add(ids, vectors, [done.metadata] * len(ids))
        except BaseException:
            self._store_failed = True  # no mark at close: the next start compares every id
            raise

    def write_vectors_many(self, items: list[tuple[Committed, np.ndarray]]) -> None:
        """:meth:`write_vectors` for several committed documents at once: one delete and one add
        per store (a store write costs the same for one document as for fifty)."""
        if not items:
            return
        self.check_deferred()
        old = [i for done, _ in items for i in done.old_ids]
        ids = [i for done, _ in items for i in done.new_ids]
        metas = [done.metadata for done, _ in items for _ in done.new_ids]
        try:
            for store in self.stores.values():
                store.delete(old)
                if ids:
                    store.add(ids, np.vstack([v for done, v in items if done.new_ids]), metas)
        except BaseException:
            self._store_failed = True  # no mark at close: the next start compares every id
            raise

    def delete_vectors(self, ids: list[int]) -> None:
        """Remove chunk ids from every store (after the catalogue dropped them)."""
        self.check_deferred()
        try:
            for store in self.stores.values():
                store.delete(ids)
        except BaseException:
            self._store_failed = True  # no mark at close: the next start compares every id
            raise

    def persist(self) -> None:
        """Make every store durable."""
        for store in self.stores.values():
            store.persist()

    def close(self) -> None:
        """Persist the stores, leave the in-step mark (no store write failed) and release the
        database."""
        self.persist()
        if self._in_step and not self._store_failed:
            chunks, max_id = self.catalogue_signature()
            mark = self.settings.data_dir / IN_STEP_MARK
            tmp = mark.with_suffix(".tmp")
            try:
                tmp.write_text(json.dumps({"chunks": chunks, "max_id": max_id}))
                tmp.replace(mark)
            except OSError:  # the next start compares every id, as after a crash
                with suppress(OSError):
                    tmp.unlink(missing_ok=True)
        self.db.dispose()
