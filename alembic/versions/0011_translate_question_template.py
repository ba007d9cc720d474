"""translate-question template: a question put into its passages' language before fitting

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06

Adds the template translate-question, version 1 active (note "default"). An answer whose
retrieved passages are written in another language than its question (an English question
over a French recording, an Italian e-mail) has the bundled model translate the question first;
fitting scores the passages' sentences against both (service/answering/orchestration/
_crosslingual.py, issue 35). As a template it is listed, diffed, versioned and rolled back like
the others; an answer's record keeps the translation it was fitted with, so a replay fits the
same passages.

Variables: ``question`` and ``language`` (the passages' language as a prompt writes it,
"French"). The texts are service/answering/prompting/defaults/0011/translate-question.
<system|user>.txt (package data), each ending in one newline that is not part of the text. A
template of the same name that exists already (made by a user) is left as it is; no row is
inserted with an explicit id (Postgres sequences, see 0009's ``_resync_id_sequences``).
"""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import sqlalchemy as sa

from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

NOTE = "default"
NAME = "translate-question"
_DIR = Path(str(resources.files("service"))) / "answering" / "prompting" / "defaults"


def _text(part: str) -> str:
    return (_DIR / revision / f"{NAME}.{part}.txt").read_text(encoding="utf-8").removesuffix("\n")


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


def _id(bind: sa.engine.Connection) -> int | None:
    return bind.execute(
        sa.select(_TEMPLATES.c.id).where(_TEMPLATES.c.name == NAME)
    ).scalar_one_or_none()


def upgrade() -> None:
    bind = op.get_bind()
    if _id(bind) is not None:
        return
    now = datetime.now(UTC)
    system, user = _text("system"), _text("user")
    bind.execute(sa.insert(_TEMPLATES).values(name=NAME, active_version=1, created_at=now))
    op.bulk_insert(_VERSIONS, [{
        "template_id": _id(bind), "version": 1, "system": system, "user": user,
        "content_hash": _hash(system, user), "note": NOTE, "created_at": now,
    }])


def downgrade() -> None:
    bind = op.get_bind()
    template_id = _id(bind)
    if template_id is None:
        return
    system, user = _text("system"), _text("user")
    versions = bind.execute(
        sa.select(_VERSIONS.c.content_hash, _VERSIONS.c.note).where(
            _VERSIONS.c.template_id == template_id
        )
    ).all()
    if list(versions) != [(_hash(system, user), NOTE)]:
        return  # a user's versions: theirs to remove
    bind.execute(sa.delete(_VERSIONS).where(_VERSIONS.c.template_id == template_id))
    bind.execute(sa.delete(_TEMPLATES).where(_TEMPLATES.c.id == template_id))
