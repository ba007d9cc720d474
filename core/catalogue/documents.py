"""Documents and the ingest ledger: look-ups by path, id, folder and collection; counts; the
rows of failed files; deletion (chunks go by cascade)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from core.catalogue.kinds import Action, DocumentStatus
from core.db.models import Chunk, Document, LedgerEntry

#: Paths asked for in one ``IN (...)`` (well under SQLite's and Postgres's parameter limits).
IN_BATCH = 500


def document_at(s: Session, path: str) -> Document | None:
    """The document at this catalogue path (a file, or ``file#attachment/N/name``), or None."""
    return s.scalar(select(Document).where(Document.path == path))


def document_by_id(s: Session, document_id: int) -> Document | None:
    """The document with this id, or None."""
    return s.get(Document, document_id)


def add_failed(
    s: Session,
    path: str,
    reason: str,
    file_type: str,
    *,
    collection: str = "default",
    sha: str | None = None,
    parent_id: int | None = None,
    reading: str | None = None,
) -> None:
    """A document row for a file that failed before it was ever ingested (no chunks);
    ``reading``: what failed to read it (``documents.reading``)."""
    s.add(
        Document(
            path=path,
            collection=collection,
            sha256=sha,
            status=DocumentStatus.FAILED,
            error=reason,
            file_type=file_type[:32],
            parent_id=parent_id,
            reading=reading,
        )
    )


def document_id_at(s: Session, path: str) -> int | None:
    """The id of the document at this path, or None."""
    return s.scalar(select(Document.id).where(Document.path == path))


def documents_at(s: Session, paths: Iterable[str]) -> list[Document]:
    """The documents at any of these paths (asked for ``IN_BATCH`` paths at a time)."""
    keys = sorted(set(paths))
    found: list[Document] = []
    for start in range(0, len(keys), IN_BATCH):
        part = keys[start : start + IN_BATCH]
        found.extend(s.scalars(select(Document).where(Document.path.in_(part))))
    return found


def _under(path: str) -> ColumnElement[bool]:
    """``path`` itself or a path below it, compared byte for byte on every backend.

    ``LIKE 'prefix%'`` alone is not enough: SQLite's LIKE ignores ASCII case (``/a/Notes`` took
    ``/a/notes/x``) and ``_``/``%`` in a folder's name are wildcards unless escaped. The escaped
    LIKE narrows the rows; the exact comparison of the first characters (``substr`` counts
    characters on SQLite and Postgres alike, as ``len`` does) decides.
    """
    prefix = path.rstrip("/") + "/"
    head = func.substr(Document.path, 1, len(prefix))
    below = Document.path.startswith(prefix, autoescape=True) & (head == prefix)
    return (Document.path == path) | below


def paths_under(s: Session, folder: str, *, carried: bool = True) -> list[str]:
    """Paths of the documents at ``folder`` or below it; with ``carried=False`` only those of
    files, not of the documents files carry (``x.eml#attachment/1/y.pdf``: no file of its own,
    it comes and goes with its carrier)."""
    query = select(Document.path).where(_under(folder))
    if not carried:
        query = query.where(Document.parent_id.is_(None))
    return list(s.scalars(query))


def any_under(s: Session, path: str) -> bool:
    """True when a document lies at ``path`` or below it."""
    return s.scalar(select(Document.id).where(_under(path)).limit(1)) is not None


def documents_under(s: Session, path: str) -> list[Document]:
    """The document at ``path`` and every document below it (a folder)."""
    return list(s.scalars(select(Document).where(_under(path))))


def documents_by_id(s: Session, ids: Iterable[int]) -> dict[int, Document]:
    """Documents keyed by id."""
    return {d.id: d for d in s.scalars(select(Document).where(Document.id.in_(list(ids))))}


def _carried(s: Session, parent_ids: list[int]) -> Iterator[tuple[int, int, str, str | None]]:
    """(id, its carrier's id, file type, reading) of every document carried at any depth by
    these documents, nearest first: one round per depth, ``IN_BATCH`` carriers a query."""
    columns = (Document.id, Document.parent_id, Document.file_type, Document.reading)
    frontier = list(parent_ids)
    while frontier:
        depth, frontier = frontier, []
        for start in range(0, len(depth), IN_BATCH):
            part = depth[start : start + IN_BATCH]
            for doc_id, parent_id, file_type, reading in s.execute(
                select(*columns).where(Document.parent_id.in_(part))
            ):
                frontier.append(doc_id)
                yield doc_id, int(parent_id or 0), file_type, reading  # parent_id matched


def descendant_ids(s: Session, parent_ids: list[int]) -> list[int]:
    """Ids of every document carried (at any depth) by these documents, nearest first."""
    return [doc_id for doc_id, *_ in _carried(s, parent_ids)]


def carried_readings(s: Session, carrier_ids: list[int]) -> dict[int, set[tuple[str, str | None]]]:
    """For each carrier id, the (file type, reading) of every document it carries at any depth
    (an e-mail's attachments, a zip's files); a carrier that carries none is absent."""
    out: dict[int, set[tuple[str, str | None]]] = {}
    root = {i: i for i in carrier_ids}  # a carried document's id -> the carrier asked about
    for doc_id, parent_id, file_type, reading in _carried(s, carrier_ids):
        root[doc_id] = root[parent_id]
        out.setdefault(root[doc_id], set()).add((file_type, reading))
    return out


def delete_documents(s: Session, docs: list[Document]) -> None:
    """Delete documents (their chunks go by cascade), last first: list carried ones after their
    carriers so the deepest goes first and the cascade does not race."""
    for doc in reversed(docs):
        s.delete(doc)
        s.flush()


def documents_in(s: Session, collection: str | None = None) -> list[Document]:
    """Every document (of one collection, if given), by path."""
    query = select(Document).order_by(Document.path)
    if collection:
        query = query.where(Document.collection == collection)
    return list(s.scalars(query).all())


def document_paths(s: Session, collection: str | None = None) -> list[tuple[int, str]]:
    """(id, path) of every document (of one collection, if given)."""
    query = select(Document.id, Document.path)
    if collection:
        query = query.where(Document.collection == collection)
    return [(i, p) for i, p in s.execute(query).all()]


def collection_counts(s: Session) -> dict[str, tuple[int, int]]:
    """Every collection with its (document count, chunk count)."""
    docs = dict(
        s.execute(
            select(Document.collection, func.count(Document.id)).group_by(Document.collection)
        ).all()
    )
    chunks = dict(
        s.execute(
            select(Document.collection, func.count(Chunk.id))
            .join(Chunk, Chunk.document_id == Document.id)
            .group_by(Document.collection)
        ).all()
    )
    return {name: (count, chunks.get(name, 0)) for name, count in docs.items()}


def ingested_collections(s: Session) -> list[str]:
    """Collections holding at least one ingested document, sorted."""
    query = select(Document.collection).where(Document.status == DocumentStatus.INGESTED)
    return sorted(s.scalars(query.distinct()))


def status_counts(s: Session) -> dict[str, int]:
    """Documents per status."""
    rows = s.execute(select(Document.status, func.count(Document.id)).group_by(Document.status))
    return {status: count for status, count in rows.all()}


def ledger(
    s: Session,
    path: str,
    sha: str | None,
    action: Action,
    *,
    error: str | None = None,
    chunks: int | None = None,
    duration_ms: int | None = None,
) -> None:
    """Add one ledger entry (columns left None take the table's defaults)."""
    entry = LedgerEntry(path=path, sha256=sha, action=action, error=error)
    if chunks is not None:
        entry.chunk_count = chunks
    if duration_ms is not None:
        entry.duration_ms = duration_ms
    s.add(entry)


def action_counts(s: Session) -> dict[str, int]:
    """Ledger entries per action."""
    query = select(LedgerEntry.action, func.count(LedgerEntry.id)).group_by(LedgerEntry.action)
    return {action: count for action, count in s.execute(query).all()}
