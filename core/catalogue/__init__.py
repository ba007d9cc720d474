"""The one owner of catalogue queries: every table of ``core.db``'s models is read and written
here (the keyword index's are ``core.keywords``'s) (``kinds``: statuses and actions; ``documents``:
documents and the ledger; ``chunks``: chunks and their embeddings; ``answers``: stored answers
and conversations with their turns; ``templates``: prompt templates and their versions;
``tokens``: access tokens; ``versions``: the commit of one ingested version;
``whole``: the catalogue as a whole for backup, restore and the bundle: row counts, revision,
paths and their move, the models that answered; ``speakers``: names given to the speakers of
recordings and the speakers their chunks record).

Every function takes a session the caller opens (``with kb.db.session() as s``), so one
transaction can hold several steps; callers use ``from core import catalogue`` and
``catalogue.document_at(s, path)``.
"""

from __future__ import annotations

from core.catalogue.answers import (
    add_answer,
    add_conversation,
    add_turn,
    answer_by_id,
    conversation_by_id,
    conversations_by_activity,
    delete_conversation,
)
from core.catalogue.chunks import (
    all_chunk_ids,
    chunk_count,
    chunk_ids_of,
    chunk_metadata,
    chunk_signature,
    chunks_around,
    chunks_of,
    chunks_with_documents,
    first_chunks,
    stored_embeddings,
)
from core.catalogue.documents import (
    IN_BATCH,
    action_counts,
    add_failed,
    any_under,
    carried_readings,
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
    highest_speaker,
    name_chunk_speaker,
    set_speaker_name,
    speaker_chunks,
    speaker_names_of,
)
from core.catalogue.templates import (
    add_template,
    add_template_version,
    template_named,
    templates_by_name,
)
from core.catalogue.tokens import (
    active_token_count,
    active_token_hashes,
    active_tokens_called,
    add_token,
    tokens_in_order,
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
    "active_token_count",
    "active_token_hashes",
    "active_tokens_called",
    "add_answer",
    "add_conversation",
    "add_failed",
    "add_speaker_names",
    "add_template",
    "add_template_version",
    "add_token",
    "add_turn",
    "all_chunk_ids",
    "all_paths",
    "answer_by_id",
    "any_under",
    "carried_readings",
    "chunk_count",
    "chunk_ids_of",
    "chunk_metadata",
    "chunk_signature",
    "chunk_speakers",
    "chunks_around",
    "chunks_of",
    "chunks_with_documents",
    "collection_counts",
    "conversation_by_id",
    "conversations_by_activity",
    "delete_conversation",
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
    "first_chunks",
    "highest_speaker",
    "ingested_collections",
    "ledger",
    "models_answered",
    "name_chunk_speaker",
    "paths_under",
    "rebase_paths",
    "schema_revision",
    "set_speaker_name",
    "speaker_chunks",
    "speaker_names_of",
    "status_counts",
    "stored_embeddings",
    "table_counts",
    "table_names",
    "template_named",
    "templates_by_name",
    "tokens_in_order",
    "write_version",
]
