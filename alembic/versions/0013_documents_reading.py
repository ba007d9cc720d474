"""documents.reading: what read a document into its chunks (its reader's version, the chunking)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07

A file whose content did not change was never read again, so a library ingested before a
loader was mended kept the old reading for good (white text dropped as hidden, a table's
title read as each column's name). The reading is stored per document and compared at every
ingest and sync (ingest/reading.py); a document with none (written before this revision) was
read by an older Hearth, whose reading is not known: it is read again once.
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('documents') as batch:
        batch.add_column(sa.Column('reading', sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('documents') as batch:
        batch.drop_column('reading')
