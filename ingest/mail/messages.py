"""Fetched messages into the catalogue: parsed by the e-mail loader (:mod:`ingest.loaders.mail`:
headers and body as one section with subject, sender and date in its provenance), chunked and
embedded in batches across messages, then committed one message at a time with its attachments
as linked documents (``<key>#attachment/N/name``, through the pipeline's attachment ingester).
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass, field
from functools import cached_property

from core import catalogue
from core.catalogue import Action, DocumentVersion
from core.errors import HearthError
from core.types import ChunkDraft
from ingest.loaders.base import Attachment
from ingest.loaders.mail import message_attachments, message_section, parse_message
from ingest.pipeline import EMBED_BATCH, FileResult, IngestPipeline
from ingest.titles import document_title, embedding_texts, nothing_found

log = logging.getLogger(__name__)

FILE_TYPE = "eml"
#: What parsing a broken message can raise (the stdlib parser is lenient; these are its limits).
PARSE_ERRORS = (ValueError, TypeError, LookupError, AttributeError, RecursionError, UnicodeError)


@dataclass(frozen=True)
class Fetched:
    """One message from the server: its catalogue ``key``, where it is, its bytes (None when it
    was not downloaded, with the ``reason``) and its size in bytes."""

    key: str
    folder: str
    uid: int
    data: bytes | None
    size: int
    reason: str | None = None

    @cached_property
    def sha256(self) -> str | None:
        """Hash of the message's bytes (how a message is recognised after a move)."""
        return hashlib.sha256(self.data).hexdigest() if self.data is not None else None


@dataclass
class _Parsed:
    item: Fetched
    sha: str
    drafts: list[ChunkDraft]
    attachments: list[Attachment]
    started: float


@dataclass
class MessageWriter:
    """Writes messages of one account through ``pipeline`` (its chunker, embedder, attachment
    ingester and knowledge base); the caller holds the writer lock."""

    pipeline: IngestPipeline
    account: str
    collection: str = "default"
    _pending: list[_Parsed] = field(default_factory=list)

    def write(self, batch: list[Fetched]) -> list[FileResult]:
        """Commit every message of ``batch``: each is ingested, or recorded as failed with its
        reason (an over-size or unreadable message never stops the rest)."""
        results: list[FileResult] = []
        parsed: list[_Parsed] = []
        for item in batch:
            got = self._parse(item)
            if isinstance(got, FileResult):
                results.append(got)
            else:
                parsed.append(got)
        for item_parsed in parsed:
            self._pending.append(item_parsed)
            if sum(len(p.drafts) for p in self._pending) >= EMBED_BATCH:
                results += self._flush()
        results += self._flush()
        return results

    def _parse(self, item: Fetched) -> _Parsed | FileResult:
        started = time.perf_counter()
        if item.data is None:
            return self._failed(item, item.reason or "not downloaded", started)
        try:
            msg = parse_message(item.data)
            extra = {"account": self.account, "folder": item.folder, "uid": item.uid}
            message_id = str(msg.get("Message-ID") or "").strip()
            if message_id:
                extra["message_id"] = message_id
            section = message_section(msg, extra)
            attachments = message_attachments(msg)
            sections = [section] if section.text.strip() else []
            drafts = self.pipeline.chunker.chunk(sections)
        except (HearthError, *PARSE_ERRORS, MemoryError) as exc:
            reason = exc.message if isinstance(exc, HearthError) else type(exc).__name__
            return self._failed(item, f"not a readable e-mail message ({reason})", started)
        return _Parsed(item, item.sha256 or "", drafts, attachments, started)

    def _flush(self) -> list[FileResult]:
        batch, self._pending = self._pending, []
        if not batch:
            return []
        kb = self.pipeline.kb
        vectors = self.pipeline.embedder.embed(
            [t for p in batch for t in embedding_texts(p.drafts)]
        )
        committed = []
        offset = 0
        for p in batch:
            mine = vectors[offset : offset + len(p.drafts)]
            offset += len(p.drafts)
            version = DocumentVersion(
                path=p.item.key,
                sha256=p.sha,
                size=p.item.size,
                file_type=FILE_TYPE,
                collection=self.collection,
                drafts=p.drafts,
                vectors=mine,
                title=document_title(p.drafts),
                empty_reason=nothing_found(f"message {p.item.uid}", FILE_TYPE, p.item.size),
                started=p.started,
                reading=self.pipeline.readings.of(FILE_TYPE),
            )
            committed.append((kb.commit(version), mine))  # one transaction per message
        kb.write_vectors_many(committed)  # the stores follow, once for the batch
        results = []
        for p, (done, _) in zip(batch, committed, strict=True):
            carried = self.pipeline.attachments.replace(
                done.document_id, p.item.key, p.attachments, self.collection
            )
            results.append(
                FileResult(p.item.key, done.action, len(done.new_ids), attachments=carried)
            )
        return results

    def _failed(self, item: Fetched, reason: str, started: float) -> FileResult:
        text = f"{self.account} {item.folder} message {item.uid}: {reason}"
        log.warning("mail: %s", text)
        duration_ms = int((time.perf_counter() - started) * 1000)
        reading = self.pipeline.readings.of(FILE_TYPE)
        with self.pipeline.kb.db.session() as s:
            doc = catalogue.document_at(s, item.key)
            if doc is None:
                catalogue.add_failed(
                    s,
                    item.key,
                    text,
                    FILE_TYPE,
                    collection=self.collection,
                    sha=item.sha256,
                    reading=reading,
                )
            else:  # tried by this reading: fetched again when the reader changes, not before
                doc.reading = reading
            catalogue.ledger(
                s, item.key, item.sha256, Action.FAILED, error=text, duration_ms=duration_ms
            )
        return FileResult(item.key, Action.FAILED, error=text, error_kind="MailMessageError")
