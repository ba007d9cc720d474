"""Whole-document requests over HTTP: ``POST /api/wholedoc`` (the result) and
``POST /api/wholedoc/stream`` (server-sent ``progress`` events, then ``done`` or ``error``)."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from litestar import Controller, Request, post
from litestar.datastructures import State
from litestar.response import ServerSentEvent, ServerSentEventMessage

from core.errors import HearthError, InvalidInputError
from service.bridge import Abandoned, in_thread, run_in_thread
from service.errors import error_body, log_unexpected
from service.library.service import valid_collection
from service.state import Hearth
from service.wholedoc.service import Event, Job, WholeDocService, WholeRequest

log = logging.getLogger(__name__)


@dataclass
class WholeDocRequest:
    """A whole-document request: ``mode`` summarise | extract | compare; ``documents`` by id,
    path, folder or file name (compare: exactly two; none: every document of ``collection``);
    ``what`` to list (extract); ``model``; ``confirm`` a run estimated over the limit;
    ``refresh`` to ignore a cached result and the stored replies of its model calls."""

    mode: str
    documents: list[str | int] = field(default_factory=list)
    collection: str | None = None
    what: str = ""
    model: str | None = None
    confirm: bool = False
    refresh: bool = False


def service_of(hearth: Hearth) -> WholeDocService:
    """The whole-document service of a running Hearth (results in DATA_DIR/wholedoc)."""
    return WholeDocService(
        hearth.kb, hearth.pool, hearth.settings.data_dir / "wholedoc", hearth.embedder
    )


def prepared(hearth: Hearth, data: WholeDocRequest) -> tuple[WholeDocService, Job]:
    """The checked job (4xx naming the field before any response starts)."""
    collection = valid_collection(data.collection) if data.collection is not None else None
    request = WholeRequest(
        data.mode,
        tuple(str(d) for d in data.documents),
        collection,
        data.what,
        data.model,
        data.confirm,
        data.refresh,
    )
    if data.model is not None and data.model not in hearth.pool.slots:
        known = ", ".join(hearth.pool.slots)
        raise InvalidInputError(f"model: {data.model!r} is not loaded ({known})", field="model")
    service = service_of(hearth)
    return service, service.prepare(request)


def result_of(
    service: WholeDocService, job: Job, stop: threading.Event, ticket: Any
) -> dict[str, Any]:
    """The ``done`` event's data of a whole run; ``Abandoned`` when stopped first."""
    for event in service.stream(job, stop, ticket):
        if event.kind == "done":
            return event.data
    raise Abandoned("the whole-document run was stopped before its end")


class WholeDocController(Controller):
    """Summaries, "every X" lists and comparisons that read every chunk of the documents."""

    path = "/api/wholedoc"
    tags = ["wholedoc"]

    @post("/", status_code=200)
    async def run(
        self, data: WholeDocRequest, state: State, request: Request[Any, Any, Any]
    ) -> dict[str, Any]:
        """Run (or reuse the cached result of) a whole-document request: ``answer`` (the mode
        that ran, then cited lines), ``items`` (text, citations), ``sources``, ``documents``,
        ``cached``, ``timings``. 400/404 name the field; 409 (field ``confirm``) for a run
        estimated too long; 429 when the model's queue is full."""
        hearth: Hearth = state.hearth
        service, job = prepared(hearth, data)
        ticket = service.admit(job)
        return await run_in_thread(
            lambda stop: result_of(service, job, stop, ticket),
            ticket,
            "hearth-wholedoc",
            request=request,
            generations=hearth.generations,
        )

    @post("/stream", status_code=200)
    async def stream(self, data: WholeDocRequest, state: State) -> ServerSentEvent:
        """The same as server-sent events: ``progress`` (``done`` of ``total`` groups,
        ``chunks_read`` of ``chunks_total``, ``eta_s``)..., then ``done`` or ``error``. A client
        that goes away stops the run; nothing is cached then."""
        hearth: Hearth = state.hearth
        service, job = prepared(hearth, data)
        ticket = service.admit(job)

        def work(stop: threading.Event) -> Iterator[Event]:
            try:
                yield from service.stream(job, stop, ticket)
            except HearthError as exc:
                yield Event("error", error_body(exc))
            except Exception as exc:
                log_unexpected(log, "a whole-document run", exc)
                yield Event("error", {"error": "InternalError", "detail": "the run failed"})

        async def messages() -> AsyncIterator[ServerSentEventMessage]:
            try:
                async for event in in_thread(
                    work, ticket, "hearth-wholedoc", generations=hearth.generations
                ):
                    yield ServerSentEventMessage(event=event.kind, data=json.dumps(event.data))
            except Abandoned as exc:
                yield ServerSentEventMessage(event="error", data=json.dumps(error_body(exc)))

        return ServerSentEvent(messages())
