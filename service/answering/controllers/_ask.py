"""Asking questions: a whole answer, or a stream of server-sent events."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

from litestar import Controller, Request, post
from litestar.datastructures import State
from litestar.response import ServerSentEvent, ServerSentEventMessage

from core.errors import HearthError
from service.answering.orchestration import AnswerService, AskOptions, Event, validate_question
from service.answering.retrieval import check_speakers
from service.answering.schemas import AskRequest, AskResponse
from service.bridge import Abandoned, Generations, in_thread, run_in_thread
from service.errors import error_body, log_unexpected
from service.library.service import valid_collection
from service.llm.queue import Ticket
from service.state import Hearth
from service.wholedoc.routing import routed_job, whole_answer, whole_answer_events

log = logging.getLogger(__name__)


async def stream_events(
    service: AnswerService,
    question: str,
    ticket: Ticket | None = None,
    options: AskOptions | None = None,
    task: str | None = None,
    generations: Generations | None = None,
) -> AsyncIterator[Event]:
    """Run the answer in a worker thread and hand its events over; if the client goes, stop it
    and free its queue place at once; if Hearth stops, end with an ``error`` event."""

    def work(stop: threading.Event) -> Iterator[Event]:
        try:
            yield from service.stream(question, stop, ticket=ticket, options=options, task=task)
        except HearthError as exc:
            yield Event("error", error_body(exc))
        except Exception as exc:
            log_unexpected(log, "an answer", exc)
            yield Event("error", {"error": "InternalError", "detail": "generation failed"})

    try:
        async for event in in_thread(work, ticket, "hearth-answer", generations=generations):
            yield event
    except Abandoned as exc:
        yield Event("error", error_body(exc))


def ask_options(service: AnswerService, data: AskRequest) -> AskOptions:
    """Options of a request, checked before any response starts (404/400, not an SSE error)."""
    if data.conversation_id is not None:
        service.conversations.get(data.conversation_id)
    collection = valid_collection(data.collection) if data.collection is not None else None
    speakers = check_speakers(service.retriever.kb.db, data.speakers or [], collection)
    return AskOptions(
        conversation_id=data.conversation_id, collection=collection, speakers=speakers
    )


class AskController(Controller):
    """Questions answered from the knowledge base, with citations."""

    path = "/api/ask"
    tags = ["ask"]

    @post("/", status_code=200)
    async def ask(
        self, data: AskRequest, state: State, request: Request[Any, Any, Any]
    ) -> AskResponse:
        """Answer a question; returns the answer, the passages used and the ones cited.
        ``model`` names a configured model, else ``task`` (qa, summarize, translate, code,
        write) is routed by ``llm.routes``; 429 with Retry-After when the model's queue is full.
        A client that disconnects stops the generation (or its place in the queue)."""
        hearth: Hearth = state.hearth
        service = hearth.answers
        question = validate_question(data.question)
        options = ask_options(service, data)
        # A question naming a document and asking for its summary, every X or a comparison
        # reads the whole document (service/wholedoc); its answer says which mode ran.
        whole = routed_job(hearth, question, data, options.collection)
        if whole is not None:
            return AskResponse(**await whole_answer(hearth, whole, question, request))
        service.check_request(question, data.model, data.task, options)
        ticket = service.admit(data.model, data.task)
        answer = await run_in_thread(
            lambda stop: service.answer(
                question, ticket=ticket, stop=stop, options=options, task=data.task
            ),
            ticket,
            "hearth-answer",
            request=request,
            generations=hearth.generations,
        )
        return AskResponse(**answer.as_dict())

    @post("/stream", status_code=200)
    async def ask_stream(self, data: AskRequest, state: State) -> ServerSentEvent:
        """Stream an answer as server-sent events: ``sources``, ``token``..., then ``done``
        (the whole answer with citations) or ``error``."""
        hearth: Hearth = state.hearth
        service = hearth.answers
        question = validate_question(data.question)
        options = ask_options(service, data)
        whole = routed_job(hearth, question, data, options.collection)
        if whole is not None:  # the whole document: progress events, then the usual ones
            events = whole_answer_events(hearth, whole, question)
            return ServerSentEvent(
                ServerSentEventMessage(event=e.kind, data=json.dumps(e.data)) async for e in events
            )
        service.check_request(question, data.model, data.task, options)  # 400 before the stream
        ticket = service.admit(data.model, data.task)  # a full queue is a 429 here
        generations = hearth.generations

        async def messages() -> AsyncIterator[ServerSentEventMessage]:
            events = stream_events(service, question, ticket, options, data.task, generations)
            async for event in events:
                payload: Any = event.data
                yield ServerSentEventMessage(event=event.kind, data=json.dumps(payload))

        return ServerSentEvent(messages())
