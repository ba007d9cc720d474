"""Stored answers: everything needed to show how an answer was made and to replay it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core import catalogue
from core.db.session import Database
from core.errors import NotFoundError


@dataclass
class AnswerRecordOut:
    """A stored answer with its recipe: template version and hash, model and its sha256,
    sampling settings and seed, embedder, retrieval settings, retrieved chunk ids with scores."""

    id: int
    conversation_id: int | None
    question: str
    standalone_question: str
    answer: str
    template_name: str
    template_version: int
    template_hash: str
    model: str
    model_sha256: str
    embedder: str
    sampling: dict[str, Any]
    retrieval: dict[str, Any]
    history: list[dict[str, Any]]
    retrieved: list[dict[str, Any]]
    citations: list[int]
    flags: dict[str, Any]
    timings: dict[str, Any]
    created_at: datetime


class AnswerRecords:
    """Writes and reads the answers table (through ``core.catalogue``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def save(self, **fields: Any) -> int:
        """Store an answer; returns its id."""
        with self.db.session() as s:
            return catalogue.add_answer(s, **fields)

    def get(self, answer_id: int) -> AnswerRecordOut:
        """One stored answer."""
        with self.db.session() as s:
            row = catalogue.answer_by_id(s, answer_id)
            if row is None:
                raise NotFoundError(f"answer {answer_id} does not exist", field="id")
            return AnswerRecordOut(
                row.id,
                row.conversation_id,
                row.question,
                row.standalone_question,
                row.answer,
                row.template_name,
                row.template_version,
                row.template_hash,
                row.model,
                row.model_sha256,
                row.embedder,
                dict(row.sampling),
                dict(row.retrieval),
                list(row.history),
                list(row.retrieved),
                list(row.citations),
                dict(row.flags),
                dict(row.timings),
                row.created_at,
            )
