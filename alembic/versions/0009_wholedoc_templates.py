"""wholedoc templates: the map and reduce prompts of whole-document modes as versioned templates

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02

Adds four templates, each with version 1 active (note "default"): wholedoc-summarise (the map
prompt of a summary: one key-fact line per excerpt), wholedoc-reduce (an overview of the key
facts), wholedoc-extract (the map prompt of "every X") and wholedoc-compare (an overview of the
changes). They were code (service/wholedoc/prompts.py, TEMPLATE_VERSION 1); as templates they
are listed, diffed, versioned and rolled back like the answer templates, and the content hashes
of the active versions key every cached whole-document result, so a new version is never
answered from a result of the old one (issue 30).

Variables are those every template has: ``sources`` are the numbered excerpts, statements or
changes (number, label, text, path) and ``question`` is what an extract lists. The texts are the
files service/answering/prompting/defaults/0009/<name>.<system|user>.txt (package data), each
ending in one newline that is not part of the text. A template of the same name that exists
already (made by a user) is left as it is.
"""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import sqlalchemy as sa

from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

NOTE = "default"
NAMES = ("wholedoc-summarise", "wholedoc-reduce", "wholedoc-extract", "wholedoc-compare")
_DIR = Path(str(resources.files("service"))) / "answering" / "prompting" / "defaults"


def _text(name: str, part: str) -> str:
    return (_DIR / revision / f"{name}.{part}.txt").read_text(encoding="utf-8").removesuffix("\n")


def _hash(system: str, user: str) -> str:
    return hashlib.sha256(
        json.dumps({"system": system, "user": user}, sort_keys=True).encode()
    ).hexdigest()


_TEMPLATES = sa.table(
    "prompt_templates",
    sa.column("id", sa.Integer), sa.column("name", sa.String),
    sa.column("active_version", sa.Integer), sa.column("created_at", sa.DateTime(timezone=True)),
)
_VERSIONS = sa.table(
    "prompt_template_versions",
    sa.column("template_id", sa.Integer), sa.column("version", sa.Integer),
    sa.column("system", sa.Text), sa.column("user", sa.Text),
    sa.column("content_hash", sa.String), sa.column("note", sa.Text),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def _id(bind: sa.engine.Connection, name: str) -> int | None:
    return bind.execute(
        sa.select(_TEMPLATES.c.id).where(_TEMPLATES.c.name == name)
    ).scalar_one_or_none()


def _resync_id_sequences(bind: sa.engine.Connection) -> None:
    """Move every Postgres id sequence past the largest id its table holds.

    Migration 0002 seeded ``prompt_templates`` with explicit ids (1-3), which Postgres does not
    count against the table's sequence: the next insert without an id, here or by
    ``hearth templates add``, was given id 1 again and failed with a unique violation. SQLite
    takes the next rowid and needs nothing.
    """
    if bind.dialect.name != "postgresql":
        return
    inspector = sa.inspect(bind)
    for table in inspector.get_table_names():
        if "id" not in {column["name"] for column in inspector.get_columns(table)}:
            continue
        sequence = bind.execute(
            sa.text("SELECT pg_get_serial_sequence(:t, 'id')"), {"t": table}
        ).scalar_one_or_none()
        if sequence is None:
            continue
        bind.execute(sa.text(
            f'SELECT setval(:s, COALESCE((SELECT MAX(id) FROM "{table}"), 0) + 1, false)'
        ), {"s": sequence})


def upgrade() -> None:
    bind = op.get_bind()
    _resync_id_sequences(bind)
    now = datetime.now(UTC)
    for name in NAMES:
        if _id(bind, name) is not None:
            continue
        system, user = _text(name, "system"), _text(name, "user")
        bind.execute(
            sa.insert(_TEMPLATES).values(name=name, active_version=1, created_at=now)
        )
        template_id = _id(bind, name)
        op.bulk_insert(_VERSIONS, [{
            "template_id": template_id, "version": 1, "system": system, "user": user,
            "content_hash": _hash(system, user), "note": NOTE, "created_at": now,
        }])


def downgrade() -> None:
    bind = op.get_bind()
    for name in NAMES:
        template_id = _id(bind, name)
        if template_id is None:
            continue
        bind.execute(sa.delete(_VERSIONS).where(_VERSIONS.c.template_id == template_id))
        bind.execute(sa.delete(_TEMPLATES).where(_TEMPLATES.c.id == template_id))
