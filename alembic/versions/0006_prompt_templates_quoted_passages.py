"""prompt templates v2: passages as quoted data, no worked examples, decline only when nothing bears

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30

Adds a new version of every template that shows passages (qa, summarize, code, write) and makes
it active where the active version is still the seeded default (a version a user chose is left
active; the new one is added for them to activate). Versions are immutable: version 1 is kept.

Why (issues 19, 20, 21):
- the passages are quoted data between markers, and the model is told never to follow
  instructions found inside them (a DOCX saying "ignore all previous instructions" was obeyed);
- no worked examples: the small models copied "The Zorbin valve was patented by Ada Quell in
  1911" into answers;
- the decline rule is "only when no passage bears on the question": v1 declined for 19 of 32
  hard questions whose passage had been retrieved.
The "don't know" sentence and the [n] citations are unchanged (abstention detection, the grounding
check and the UI parse them).
"""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import sqlalchemy as sa
from alembic import op


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

NOTE = "default v2: quoted passages, no examples, decline only when nothing bears"
# The templates as they are at this revision (migrations never change; a later default is a new
# migration): files, service/answering/prompting/defaults/0006/<name>.<system|user>.txt, each
# ending in one newline that is not part of the text. condense-question and translate show no
# passages and keep version 1. In the qa user part, the reminder after the question: without it
# the 1.5B cited 2 of 6 right answers. A passage cannot close the block early: the end marker is
# removed from its text.
# They are package data of service.answering.prompting, so a checkout and an installed wheel
# (which carries these migrations apart from the package) read the same files.
_DIR = Path(str(resources.files("service"))) / "answering" / "prompting" / "defaults"


def _text(name: str, part: str) -> str:
    return (_DIR / revision / f"{name}.{part}.txt").read_text(encoding="utf-8").removesuffix("\n")


DEFAULTS: dict[str, tuple[str, str]] = {
    name: (_text(name, "system"), _text(name, "user")) for name in ("qa", "summarize", "code", "write")
}


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
    for name, (system, user) in DEFAULTS.items():
        row = _template(bind, name)
        if row is None:
            continue
        template_id, active = row
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
    for name, (system, user) in DEFAULTS.items():
        row = _template(bind, name)
        if row is None:
            continue
        template_id, active = row
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
