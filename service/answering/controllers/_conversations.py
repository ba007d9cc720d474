"""Conversations and stored answers: list, rename, delete; show an answer's recipe; replay it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar import Controller, Request, delete, get, patch, post
from litestar.datastructures import State

from service.answering.orchestration import (
    AnswerRecordOut,
    AnswerService,
    ConversationOut,
    MessageOut,
    ReplayResult,
    replay,
)
from service.bridge import run_in_thread
from service.schemas import Id


@dataclass
class ConversationCreate:
    """A new conversation; ``collection`` limits what its questions see."""

    title: str = ""
    collection: str | None = None


@dataclass
class ConversationRename:
    """A new title."""

    title: str


@dataclass
class ConversationDetail:
    """A conversation with its turns."""

    conversation: ConversationOut
    messages: list[MessageOut]


def _answers(state: State) -> AnswerService:
    service: AnswerService = state.hearth.answers
    return service


class ConversationController(Controller):
    """Multi-turn chats; ask with ``conversation_id`` to continue one."""

    path = "/api/conversations"
    tags = ["conversations"]

    @post("/", sync_to_thread=True, status_code=201)
    def create(self, data: ConversationCreate, state: State) -> ConversationOut:
        """Start a conversation."""
        return _answers(state).conversations.create(data.title, data.collection)

    @get("/", sync_to_thread=True)
    def list_conversations(self, state: State) -> list[ConversationOut]:
        """Every conversation, most recent first."""
        return _answers(state).conversations.all()

    @get("/{conversation_id:int}", sync_to_thread=True)
    def get_conversation(self, conversation_id: Id, state: State) -> ConversationDetail:
        """A conversation and its turns."""
        conv, msgs = _answers(state).conversations.get(conversation_id)
        return ConversationDetail(conv, msgs)

    @patch("/{conversation_id:int}", sync_to_thread=True)
    def rename(
        self, conversation_id: Id, data: ConversationRename, state: State
    ) -> ConversationOut:
        """Rename a conversation."""
        return _answers(state).conversations.rename(conversation_id, data.title)

    @delete("/{conversation_id:int}", sync_to_thread=True, status_code=204)
    def delete_conversation(self, conversation_id: Id, state: State) -> None:
        """Delete a conversation and its turns."""
        _answers(state).conversations.delete(conversation_id)


class AnswerController(Controller):
    """Stored answers, each with everything needed to reproduce it."""

    path = "/api/answers"
    tags = ["answers"]

    @get("/{answer_id:int}", sync_to_thread=True)
    def get_answer(self, answer_id: Id, state: State) -> AnswerRecordOut:
        """An answer with its template version, model sha256, sampling, embedder and the
        retrieved chunk ids with scores."""
        return _answers(state).records.get(answer_id)

    @post("/{answer_id:int}/replay", status_code=200)
    async def replay_answer(
        self, answer_id: Id, state: State, request: Request[Any, Any, Any]
    ) -> ReplayResult:
        """Re-run an answer with its recorded settings; says whether the text and the sources
        came out the same (409 when its model or template version is not available). A client
        that disconnects stops the generation."""
        service = _answers(state)
        return await run_in_thread(
            lambda stop: replay(service, answer_id, stop),
            None,
            "hearth-replay",
            request=request,
            generations=state.hearth.generations,
        )
