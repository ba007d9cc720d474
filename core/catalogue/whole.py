"""The catalogue as a whole, for backup, restore and the assistant bundle: rows per table, the
schema's migration revision, every document's path, moving the paths of uploaded files to a new
data directory, and which model files answered questions (the answers table).

Each function takes a session the caller opens; :func:`file_session` opens one on a catalogue
file that is not a data directory's own (a backup's copy), with none of the pragmas a running
catalogue sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.orm import Session

from core.db.answers import AnswerRecord
from core.db.models import Document, LedgerEntry


@contextmanager
def file_session(path: Path) -> Iterator[Session]:
    """A session on the SQLite catalogue file ``path`` (committed on success), its engine
    disposed at the end."""
    engine = sa.create_engine(f"sqlite:///{path}")
    try:
        with Session(engine) as s, s.begin():
            yield s
    finally:
        engine.dispose()


def table_names(s: Session) -> set[str]:
    """The tables the catalogue's database holds."""
    return set(sa.inspect(s.connection()).get_table_names())


def table_counts(s: Session, tables: Iterable[str]) -> dict[str, int]:
    """Rows of each of ``tables`` the database holds (the others are left out)."""
    present = table_names(s)
    return {
        t: int(s.scalar(sa.select(sa.func.count()).select_from(sa.table(t))) or 0)
        for t in tables
        if t in present
    }


def schema_revision(s: Session) -> str:
    """The Alembic revision the catalogue is at."""
    version = sa.table("alembic_version", sa.column("version_num"))
    return str(s.execute(sa.select(version.c.version_num)).scalar_one())


def all_paths(s: Session) -> list[str]:
    """The path of every document."""
    return list(s.scalars(sa.select(Document.path)))


def rebase_paths(s: Session, old: str, new: str) -> int:
    """Paths of documents and ledger rows that begin with ``old`` (compared character for
    character, not as a pattern) begin with ``new`` instead; returns how many rows changed.
    Nothing else of the rows changes (``updated_at`` keeps its value: a restore gives back the
    rows as they were)."""
    changed = 0
    for path in (Document.path, LedgerEntry.path):
        head = sa.func.substr(path, 1, len(old))
        rest = sa.func.substr(path, len(old) + 1)
        table = path.class_.__table__
        kept = {c.name: c for c in table.columns if c.onupdate is not None}
        statement = (
            sa.update(table)
            .where(head == old)
            .values(path=sa.cast(sa.literal(new, sa.Text), sa.Text) + rest, **kept)
        )
        result = s.execute(statement)
        changed += int(getattr(result, "rowcount", 0) or 0)
    return changed


def models_answered(s: Session) -> list[tuple[str, str, int]]:
    """(model, sha256, answers) of every model file recorded as having answered; none when the
    answers table does not exist yet (a database never migrated)."""
    if AnswerRecord.__tablename__ not in table_names(s):
        return []
    query = sa.select(AnswerRecord.model, AnswerRecord.model_sha256, sa.func.count()).group_by(
        AnswerRecord.model, AnswerRecord.model_sha256
    )
    return [(str(m), str(h), int(n)) for m, h, n in s.execute(query).all()]
