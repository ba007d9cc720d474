"""Asking questions: a whole answer, or a stream of server-sent events."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

from anyio import to_thread
from litestar import Controller, post
from litestar.datastructures import State
from litestar.response import ServerSentEvent, ServerSentEventMessage

from core.errors import HearthError
from service.answers import AnswerService, AskOptions, Event, validate_question
from service.errors import error_body, log_unexpected
from service.library import valid_collection
from service.llm.queue import Ticket
from service.schemas import AskRequest, AskResponse

log = logging.getLogger(__name__)


async def stream_events(
    service: AnswerService,
    question: str,
    ticket: Ticket | None = None,
    options: AskOptions | None = None,
    task: str | None = None,
) -> AsyncIterator[Event]:
    """Run the answer in a worker thread and hand its events over; if the client goes, stop it
    and free its queue place at once."""
    stop = threading.Event()
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event | None] = asyncio.Queue()

    def put(item: Event | None) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, item)

    def work() -> None:
        try:
            for event in service.stream(question, stop, ticket=ticket, options=options, task=task):
                put(event)
                if stop.is_set():
                    break
        except HearthError as exc:
            put(Event("error", error_body(exc)))
        except Exception as exc:
            log_unexpected(log, "an answer", exc)
            put(Event("error", {"error": "InternalError", "detail": "generation failed"}))
        finally:
            put(None)

    threading.Thread(target=work, name="hearth-answer", daemon=True).start()
    try:
        while (event := await queue.get()) is not None:
            yield event
    finally:
        stop.set()
        if ticket is not None:
            ticket.release("cancelled")


def ask_options(service: AnswerService, data: AskRequest) -> AskOptions:
    """Options of a request, checked before any response starts (404/400, not an SSE error)."""
    if data.conversation_id is not None:
        service.conversations.get(data.conversation_id)
    collection = valid_collection(data.collection) if data.collection is not None else None
    return AskOptions(conversation_id=data.conversation_id, collection=collection)


class AskController(Controller):
    """Questions answered from the knowledge base, with citations."""

    path = "/api/ask"
    tags = ["ask"]

    @post("/", status_code=200)
    async def ask(self, data: AskRequest, state: State) -> AskResponse:
        """Answer a question; returns the answer, the passages used and the ones cited.
        ``model`` names a configured model, else ``task`` (qa, summarize, translate, code,
        write) is routed by ``llm.routes``; 429 with Retry-After when the model's queue is full."""
        service: AnswerService = state.hearth.answers
        question = validate_question(data.question)
        options = ask_options(service, data)
        service.check_request(question, data.model, data.task, options)
        ticket = service.admit(data.model, data.task)
        stop = threading.Event()
        try:
            answer = await to_thread.run_sync(
                lambda: service.answer(
                    question, ticket=ticket, stop=stop, options=options, task=data.task
                )
            )
        finally:
            stop.set()
            ticket.release("cancelled")
        return AskResponse(**answer.as_dict())

    @post("/stream", status_code=200)
    async def ask_stream(self, data: AskRequest, state: State) -> ServerSentEvent:
        """Stream an answer as server-sent events: ``sources``, ``token``..., then ``done``
        (the whole answer with citations) or ``error``."""
        service: AnswerService = state.hearth.answers
        question = validate_question(data.question)
        options = ask_options(service, data)
        service.check_request(question, data.model, data.task, options)  # 400 before the stream
        ticket = service.admit(data.model, data.task)  # a full queue is a 429 here

        async def messages() -> AsyncIterator[ServerSentEventMessage]:
            async for event in stream_events(service, question, ticket, options, data.task):
                payload: Any = event.data
                yield ServerSentEventMessage(event=event.kind, data=json.dumps(payload))

        return ServerSentEvent(messages())
