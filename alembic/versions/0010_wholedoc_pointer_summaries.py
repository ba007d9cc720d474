"""wholedoc-summarise v2: pointer lines (an excerpt's number and the name its key fact is about)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02

Adds version 2 of the map prompt of a summary and makes it active where the active version is
still the seeded default (note "default"); a version a user chose is left active, the new one
is added for them to activate. Versions are immutable: version 1 is kept.

Why (issue 30): version 1 asked for one key-fact line of up to 20 words per excerpt, and
generating those lines doubled the time of a whole-document read (1.75x the raw model's prompt
evaluation, the goal is 1.25x). Version 2 asks for a pointer per excerpt (its number, then the
one name its most important fact is about, ~5 tokens); the summary shows the document's own
sentence holding it (service/wholedoc/mapreduce.py, ``_pointed``), as extract does.

The text is service/answering/prompting/defaults/0010/wholedoc-summarise.<system|user>.txt
(package data), each ending in one newline that is not part of the text. No row is inserted
with an explicit id (Postgres sequences, see 0009's ``_resync_id_sequences``).
"""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import sqlalchemy as sa

from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

NOTE = "default v2: pointer lines (number, name), the document's sentence shown"
NAMES = ("wholedoc-summarise",)
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
    sa.column("active_version", sa.Integer),
)
_VERSIONS = sa.table(
    "prompt_template_versions",
    sa.column("template_id", sa.Integer), sa.column("version", sa.Integer),
    sa.column("system", sa.Text), sa.column("user", sa.Text),
    sa.column("content_hash", sa.String), sa.column("note", sa.Text),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def _template(bind: sa.engine.Connection, name: str) -> tuple[int, int] | None:
    """(id, active version) of a template, None when it does not exist."""
    row = bind.execute(
        sa.select(_TEMPLATES.c.id, _TEMPLATES.c.active_version).where(_TEMPLATES.c.name == name)
    ).first()
    return None if row is None else (row[0], row[1])


def upgrade() -> None:
    bind = op.get_bind()
    now = datetime.now(UTC)
    for name in NAMES:
        row = _template(bind, name)
        if row is None:
            continue
        template_id, active = row
        system, user = _text(name, "system"), _text(name, "user")
        numbers = bind.execute(
            sa.select(_VERSIONS.c.version, _VERSIONS.c.note).where(
                _VERSIONS.c.template_id == template_id
            )
        ).all()
        number = max(v for v, _ in numbers) + 1
        op.bulk_insert(_VERSIONS, [{
            "template_id": template_id, "version": number, "system": system, "user": user,
            "content_hash": _hash(system, user), "note": NOTE, "created_at": now,
        }])
        active_note = next((n for v, n in numbers if v == active), "")
        if active_note == "default":  # still the seeded default: move to the new one
            bind.execute(
                sa.update(_TEMPLATES).where(_TEMPLATES.c.id == template_id)
                .values(active_version=number)
            )


def downgrade() -> None:
    bind = op.get_bind()
    for name in NAMES:
        row = _template(bind, name)
        if row is None:
            continue
        template_id, active = row
        system, user = _text(name, "system"), _text(name, "user")
        ours = bind.execute(
            sa.select(_VERSIONS.c.version).where(
                _VERSIONS.c.template_id == template_id,
                _VERSIONS.c.content_hash == _hash(system, user),
                _VERSIONS.c.note == NOTE,
            )
        ).scalars().all()
        for number in ours:
            bind.execute(
                sa.delete(_VERSIONS).where(
                    _VERSIONS.c.template_id == template_id, _VERSIONS.c.version == number
                )
            )
        if active in ours:
            bind.execute(
                sa.update(_TEMPLATES).where(_TEMPLATES.c.id == template_id).values(active_version=1)
            )
