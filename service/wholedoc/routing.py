"""A plain question to ``/api/ask`` that names a document and asks for its summary, every X in
it or a comparison takes that whole-document mode (``intent.detect``); the result is given in
the answer's shape, its text saying which mode ran, and streamed as ``progress`` events then the
usual ``sources``, ``token`` and ``done``. The first model call's queue place is taken before a
response starts, so a full queue is a 429 (with Retry-After), never an error inside the stream."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litestar import Request

from core import catalogue
from core.errors import HearthError
from service.answering.schemas import AskRequest
from service.bridge import Abandoned, in_thread, run_in_thread
from service.errors import error_body
from service.llm.queue import Ticket
from service.wholedoc.intent import detect, wants_mode
from service.wholedoc.service import Event, Job, WholeDocService

if TYPE_CHECKING:
    from service.state import Hearth

Routed = tuple[WholeDocService, Job]


def routed_job(
    hearth: Hearth, question: str, data: AskRequest, collection: str | None
) -> Routed | None:
    """The whole-document job a question of ``data`` asks for, checked (4xx before a response
    starts), or None for an ordinary answer (always for a task or a conversation's turn)."""
    if data.task is not None or data.conversation_id is not None or not wants_mode(question):
        return None
    model = data.model
    with hearth.kb.db.session() as s:
        names = [Path(p).name for _, p in catalogue.document_paths(s, collection)]
    request = detect(question, names)
    if request is None:
        return None
    service = WholeDocService(
        hearth.kb, hearth.pool, hearth.settings.data_dir / "wholedoc", hearth.embedder
    )
    return service, service.prepare(replace(request, collection=collection, model=model))


def as_answer(result: dict[str, Any], question: str) -> dict[str, Any]:
    """A whole-document result in the fields of an answer (``AskResponse``): every source is
    cited; ``grounding`` says which mode ran and how many unsupported lines were dropped."""
    return {
        "answer": result["answer"],
        "sources": result["sources"],
        "citations": result["sources"],
        "model": result["model"],
        "sampling": {"temperature": 0.0},
        "timings": result["timings"],
        "standalone_question": question,
        "template": {
            "name": f"wholedoc-{result['mode']}",
            "version": result.get("templates", {}).get(f"wholedoc-{result['mode']}", 0),
            "content_version": result["template_version"],
        },
        "grounding": {
            "grounded": True,
            "mode": result["mode"],
            "whole_document": True,
            "cached": result["cached"],
            "dropped": result["dropped"],
            "chunks_read": result["chunks_read"],
        },
    }


def _events(
    routed: Routed, question: str, stop: threading.Event, ticket: Ticket | None
) -> Iterator[Event]:
    service, job = routed
    for event in service.stream(job, stop, ticket):
        if event.kind != "done":
            yield event
            continue
        answer = as_answer(event.data, question)
        yield Event("sources", {"sources": answer["sources"]})
        yield Event("token", {"text": answer["answer"]})
        yield Event("done", answer)


async def whole_answer(
    hearth: Hearth, routed: Routed, question: str, request: Request[Any, Any, Any]
) -> dict[str, Any]:
    """The answer-shaped result of a routed question (``Abandoned`` if the client left);
    ``OverloadedError`` (429) before anything runs when the model's queue is full."""
    ticket = routed[0].admit(routed[1])

    def work(stop: threading.Event) -> dict[str, Any]:
        for event in _events(routed, question, stop, ticket):
            if event.kind == "done":
                return event.data
        raise Abandoned("the whole-document run was stopped before its end")

    return await run_in_thread(
        work, ticket, "hearth-wholedoc", request=request, generations=hearth.generations
    )


def whole_answer_events(hearth: Hearth, routed: Routed, question: str) -> AsyncIterator[Event]:
    """``progress``..., ``sources``, ``token``, ``done`` (or ``error``) of a routed question.
    The queue place is taken here, before the stream starts: ``OverloadedError`` (a 429 with
    Retry-After) when the model's queue is full."""
    ticket = routed[0].admit(routed[1])

    def work(stop: threading.Event) -> Iterator[Event]:
        try:
            yield from _events(routed, question, stop, ticket)
        except HearthError as exc:
            yield Event("error", error_body(exc))

    async def events() -> AsyncIterator[Event]:
        try:
            async for event in in_thread(
                work, ticket, "hearth-wholedoc", generations=hearth.generations
            ):
                yield event
        except Abandoned as exc:
            yield Event("error", error_body(exc))

    return events()
