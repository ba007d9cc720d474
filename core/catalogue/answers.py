"""Answers and conversations in the catalogue: the ``answers`` table (every answer with what is
needed to show how it was made and to replay it) and ``conversations`` with their turns
(``messages``). The shapes shown and the check of a title are
``service.answering.orchestration``'s; these functions read and write the rows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.db.answers import AnswerRecord, Conversation, Message


def add_answer(s: Session, **fields: Any) -> int:
    """Store an answer (the columns of :class:`AnswerRecord` by name); returns its id."""
    row = AnswerRecord(**fields)
    s.add(row)
    s.flush()
    return int(row.id)


def answer_by_id(s: Session, answer_id: int) -> AnswerRecord | None:
    """The stored answer with this id, or None."""
    return s.get(AnswerRecord, answer_id)


def add_conversation(s: Session, title: str, collection: str | None) -> Conversation:
    """A new, empty conversation (flushed: its id and timestamps are set)."""
    conv = Conversation(title=title, collection=collection)
    s.add(conv)
    s.flush()
    return conv


def conversation_by_id(s: Session, conversation_id: int) -> Conversation | None:
    """The conversation with this id, or None."""
    return s.get(Conversation, conversation_id)


def conversations_by_activity(s: Session) -> list[tuple[Conversation, int]]:
    """Every conversation with its number of messages, most recently active first (ties: the
    newest id first)."""
    counts = dict(
        s.execute(
            select(Message.conversation_id, func.count(Message.id)).group_by(
                Message.conversation_id
            )
        ).all()
    )
    convs = s.scalars(
        select(Conversation).order_by(Conversation.updated_at.desc(), Conversation.id.desc())
    ).all()
    return [(c, counts.get(c.id, 0)) for c in convs]


def delete_conversation(s: Session, conv: Conversation) -> None:
    """Delete a conversation and its messages (its stored answers stay, unlinked)."""
    s.delete(conv)


def add_turn(
    s: Session, conv: Conversation, question: str, answer: str, answer_id: int | None
) -> None:
    """Append a question and its answer (the stored answer ``answer_id``, if any) to ``conv``;
    the conversation is active now, and an untitled one is titled by the question's first 80
    characters."""
    s.add(Message(conversation_id=conv.id, role="user", content=question))
    s.add(
        Message(
            conversation_id=conv.id,
            role="assistant",
            content=answer,
            answer_id=answer_id,
        )
    )
    if not conv.title:
        conv.title = question[:80]
    conv.updated_at = datetime.now(conv.created_at.tzinfo)
