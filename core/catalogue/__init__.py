"""The one owner of catalogue queries: documents, their chunks and the ingest ledger are read and
written here (``kinds``: statuses and actions; ``documents``: documents and the ledger;
``chunks``: chunks and their embeddings; ``versions``: the commit of one ingested version;
``whole``: the catalogue as a whole for backup, restore and the bundle: row counts, revision,
paths and their move, the models that answered; ``speakers``: names given to the speakers of
recordings and the speakers their chunks record).

Every function takes a session the caller opens (``with kb.db.session() as s``), so one
transaction can hold several steps; callers use ``from core import catalogue`` and
``catalogue.document_at(s, path)``.
"""

from __future__ import annotations

from core.catalogue.chunks import (
    all_chunk_ids,
    chunk_count,
    chunk_ids_of,
    chunk_metadata,
    chunk_signature,
    chunks_of,
    chunks_with_documents,
    stored_embeddings,
)
from core.catalogue.documents import (
    IN_BATCH,
    action_counts,
    add_failed,
    any_under,
    collection_counts,
    delete_documents,
    descendant_ids,
    document_at,
    document_by_id,
    document_id_at,
    document_paths,
    documents_at,
    documents_by_id,
    documents_in,
    documents_under,
    ingested_collections,
    ledger,
    paths_under,
    status_counts,
)
from core.catalogue.kinds import DONE, Action, DocumentStatus
from core.catalogue.speakers import (
    add_speaker_names,
    chunk_speakers,
    every_speaker_name,
    name_chunk_speaker,
    set_speaker_name,
    speaker_names_of,
)
from core.catalogue.versions import Committed, DocumentVersion, write_version
from core.catalogue.whole import (
    all_paths,
    file_session,
    models_answered,
    rebase_paths,
    schema_revision,
    table_counts,
    table_names,
)

__all__ = [
    "DONE",
    "IN_BATCH",
    "Action",
    "Committed",
    "DocumentStatus",
    "DocumentVersion",
    "action_counts",
    "add_failed",
    "add_speaker_names",
    "all_chunk_ids",
    "all_paths",
    "any_under",
    "chunk_count",
    "chunk_ids_of",
    "chunk_metadata",
    "chunk_signature",
    "chunk_speakers",
    "chunks_of",
    "chunks_with_documents",
    "collection_counts",
    "delete_documents",
    "descendant_ids",
    "document_at",
    "document_by_id",
    "document_id_at",
    "document_paths",
    "documents_at",
    "documents_by_id",
    "documents_in",
    "documents_under",
    "every_speaker_name",
    "file_session",
    "ingested_collections",
    "ledger",
    "models_answered",
    "name_chunk_speaker",
    "paths_under",
    "rebase_paths",
    "schema_revision",
    "set_speaker_name",
    "speaker_names_of",
    "status_counts",
    "stored_embeddings",
    "table_counts",
    "table_names",
    "write_version",
]
