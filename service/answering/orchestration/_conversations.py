"""Conversations and their messages, stored in the catalogue (``core.catalogue``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core import catalogue
from core.db.session import Database
from core.errors import InvalidInputError, NotFoundError


@dataclass
class ConversationOut:
    """A conversation's summary."""

    id: int
    title: str
    collection: str | None
    messages: int
    created_at: datetime
    updated_at: datetime


@dataclass
class MessageOut:
    """One turn."""

    id: int
    role: str
    content: str
    answer_id: int | None
    created_at: datetime


def _title(title: str) -> str:
    title = " ".join((title or "").split())
    if len(title) > 200:
        raise InvalidInputError("title: at most 200 characters", field="title")
    return title


class ConversationStore:
    """Create, list, rename and delete conversations; append and read their turns."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, title: str = "", collection: str | None = None) -> ConversationOut:
        """A new, empty conversation."""
        with self.db.session() as s:
            conv = catalogue.add_conversation(s, _title(title), collection)
            return ConversationOut(
                conv.id, conv.title, conv.collection, 0, conv.created_at, conv.updated_at
            )

    def all(self) -> list[ConversationOut]:
        """Every conversation, most recently active first."""
        with self.db.session() as s:
            return [
                ConversationOut(c.id, c.title, c.collection, n, c.created_at, c.updated_at)
                for c, n in catalogue.conversations_by_activity(s)
            ]

    def get(self, conversation_id: int) -> tuple[ConversationOut, list[MessageOut]]:
        """A conversation and its turns, oldest first."""
        with self.db.session() as s:
            conv = catalogue.conversation_by_id(s, conversation_id)
            if conv is None:
                raise NotFoundError(f"conversation {conversation_id} does not exist", field="id")
            msgs = [
                MessageOut(m.id, m.role, m.content, m.answer_id, m.created_at)
                for m in conv.messages
            ]
            return (
                ConversationOut(
                    conv.id,
                    conv.title,
                    conv.collection,
                    len(msgs),
                    conv.created_at,
                    conv.updated_at,
                ),
                msgs,
            )

    def rename(self, conversation_id: int, title: str) -> ConversationOut:
        """Change a conversation's title."""
        with self.db.session() as s:
            conv = catalogue.conversation_by_id(s, conversation_id)
            if conv is None:
                raise NotFoundError(f"conversation {conversation_id} does not exist", field="id")
            conv.title = _title(title)
        return self.get(conversation_id)[0]

    def delete(self, conversation_id: int) -> None:
        """Delete a conversation and its turns (stored answers stay, unlinked)."""
        with self.db.session() as s:
            conv = catalogue.conversation_by_id(s, conversation_id)
            if conv is None:
                raise NotFoundError(f"conversation {conversation_id} does not exist", field="id")
            catalogue.delete_conversation(s, conv)

    def history(self, conversation_id: int) -> list[dict[str, str]]:
        """The turns as chat messages (role, content), oldest first."""
        return [{"role": m.role, "content": m.content} for m in self.get(conversation_id)[1]]

    def append(
        self, conversation_id: int, question: str, answer: str, answer_id: int | None
    ) -> None:
        """Record a question and its answer; the first question titles an untitled chat."""
        with self.db.session() as s:
            conv = catalogue.conversation_by_id(s, conversation_id)
            if conv is None:
                raise NotFoundError(f"conversation {conversation_id} does not exist", field="id")
            catalogue.add_turn(s, conv, question, answer, answer_id)
