"""Chat completions on Hearth's models: a plain local model, or answers grounded in a collection.

A model name is either one of the pool's models (the messages go to it as they are) or
``hearth-rag`` / ``hearth-rag:<collection>``: the last user message is answered by the
AnswerService with retrieval (over one collection when named), and the sources come back too.
``hearth-rag`` with ``mode`` summarise / extract / compare reads every chunk of the ``documents``
instead (service/wholedoc): the reply is the whole-document result's text, its items and sources
in ``hearth``, and a stream sends ``hearth.progress`` chunks while the groups are read.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from core import catalogue
from core.errors import InvalidInputError
from service.answering.orchestration import AskOptions, validate_question
from service.answering.retrieval import check_fits
from service.llm.base import ChatMessage, SamplingParams
from service.llm.pool import ModelSlot
from service.llm.queue import Ticket
from service.openai_compat.schemas import ChatRequest, unknown_model
from service.state import Hearth
from service.wholedoc.controller import service_of
from service.wholedoc.service import Job, WholeDocService, WholeRequest

RAG = "hearth-rag"


def collections(hearth: Hearth) -> list[str]:
    """Names of the collections that hold ingested documents."""
    with hearth.kb.db.session() as s:
        return catalogue.ingested_collections(s)


def model_ids(hearth: Hearth) -> list[str]:
    """Every chat model name: the pool's models, then the retrieval-augmented assistants."""
    names = list(hearth.pool.slots)
    return [*names, RAG, *(f"{RAG}:{c}" for c in collections(hearth))]


@dataclass
class Piece:
    """A piece of the reply's text (``logprobs``: OpenAI ``content`` items of its tokens)."""

    text: str
    logprobs: list[dict[str, Any]] | None = None


@dataclass
class Progress:
    """How far a whole-document run is (chunks read of total, seconds left)."""

    data: dict[str, Any]


@dataclass
class Finish:
    """The end of a reply: the full text, token counts, and Hearth's extension (RAG sources)."""

    text: str
    completion_tokens: int
    extension: dict[str, Any] | None = field(default=None)
    #: Tokens of the whole prompt the model read (passages included); 0: the plan's count.
    prompt_tokens: int = 0
    #: OpenAI ``logprobs.content`` items of every token, when asked for.
    logprobs: list[dict[str, Any]] | None = None


@dataclass
class ChatPlan:
    """A validated request: which model slot, which messages or question, which sampling."""

    model_id: str
    slot: ModelSlot
    params: SamplingParams
    messages: list[ChatMessage]
    prompt_tokens: int
    question: str | None = None
    collection: str | None = None
    #: A whole-document run (``mode`` summarise, extract or compare of ``hearth-rag``).
    whole: tuple[WholeDocService, Job] | None = None


def plan_whole(
    hearth: Hearth,
    req: ChatRequest,
    messages: list[ChatMessage],
    mode: str,
    collection: str | None,
) -> ChatPlan:
    """The checked whole-document run of a ``hearth-rag`` request (4xx naming ``documents``,
    ``what``, ``collection`` or ``confirm`` before a response starts)."""
    users = [m["content"] for m in messages if m["role"] == "user"]
    # extract lists what ``what`` names, else what the last user message says
    what = req.what if req.what is not None else (users[-1] if users and mode == "extract" else "")
    request = WholeRequest(
        mode,
        tuple(str(d) for d in req.documents or ()),
        collection,
        what,
        None,
        req.confirm,
    )
    service = service_of(hearth)
    job = service.prepare(request)
    params = SamplingParams(temperature=0.0, max_tokens=1)
    return ChatPlan(req.model, job.slot, params, messages, 0, None, collection, (service, job))


def plan_chat(hearth: Hearth, req: ChatRequest) -> ChatPlan:
    """Check the request against the served models and the context size."""
    messages = req.chat_messages()
    pool = hearth.answers.pool
    base, _, collection = req.model.partition(":")
    question: str | None = None
    mode = req.whole_mode()
    if req.model in pool.slots:
        if mode is not None:
            raise InvalidInputError(
                f"mode: {mode} reads whole documents, which model {RAG} does; {req.model} "
                "chats without the library",
                field="mode",
            )
        slot = pool.slots[req.model]
    elif base == RAG and (not collection or collection in collections(hearth)):
        if mode is not None:
            return plan_whole(hearth, req, messages, mode, collection or None)
        slot = pool.select(task="qa")
        users = [m["content"] for m in messages if m["role"] == "user"]
        if not users:
            raise InvalidInputError("messages: a user message is needed", field="messages")
        question = validate_question(users[-1])
        if req.logprobs_top() is not None:
            raise InvalidInputError(
                f"logprobs: {RAG} does not report token log-probabilities; use a model's own "
                f"name ({', '.join(pool.slots)})",
                field="logprobs",
            )
        if req.response_format is not None and req.json_schema() is not None:
            raise InvalidInputError(
                f"response_format: {RAG} answers in cited prose; use a model's own name "
                f"({', '.join(pool.slots)}) for JSON output",
                field="response_format",
            )
    else:
        raise unknown_model(req.model, model_ids(hearth))
    cfg = hearth.settings.llm
    llm = slot.runtime
    top = req.logprobs_top()
    if top is not None and not getattr(llm, "supports_logprobs", False):
        raise InvalidInputError(
            f"logprobs: model {req.model} does not report token log-probabilities",
            field="logprobs",
        )
    max_tokens = req.max_completion_tokens or req.max_tokens or cfg.max_tokens
    if question is not None:  # the answer prompt is fitted later; the question must fit alone
        prompt_tokens = llm.count_tokens(question)
        room = llm.n_ctx // 2  # at least half the context stays for the passages
        hearth.answers.check_question(llm, question, "qa", min(max_tokens, room))
    else:
        prompt_tokens = check_fits(llm, messages, 16, "the messages")
        room = llm.n_ctx - prompt_tokens
    params = SamplingParams(
        temperature=cfg.temperature if req.temperature is None else req.temperature,
        top_p=cfg.top_p if req.top_p is None else req.top_p,
        max_tokens=min(max_tokens, room),
        seed=cfg.seed if req.seed is None else req.seed,
        stop=req.stops(),
        json_schema=req.json_schema() if question is None else None,
        logprobs=top,
    )
    return ChatPlan(req.model, slot, params, messages, prompt_tokens, question, collection or None)


def admit(plan: ChatPlan) -> Ticket | None:
    """The first model call's place in the queue (``OverloadedError``, a 429, when full); None
    for a whole-document result that is cached."""
    if plan.whole is not None:
        service, job = plan.whole
        return service.admit(job)
    return plan.slot.queue.admit()


def run_whole(
    plan: ChatPlan, ticket: Ticket | None, stop: threading.Event
) -> Iterator[Piece | Progress | Finish]:
    """A whole-document run: progress, then its text as one piece and a Finish carrying the
    items, sources and timings in ``hearth``."""
    assert plan.whole is not None
    service, job = plan.whole
    for event in service.stream(job, stop, ticket):
        if event.kind == "progress":
            yield Progress(event.data)
            continue
        result = event.data
        timings = result["timings"]
        yield Piece(result["answer"])
        extension = {
            "mode": result["mode"],
            "what": result["what"],
            "items": result["items"],
            "overview": result["overview"],
            "sources": result["sources"],
            "citations": result["sources"],
            "documents": result["documents"],
            "collection": plan.collection,
            "cached": result["cached"],
            "dropped": result["dropped"],
            "chunks_read": result["chunks_read"],
            "timings": timings,
        }
        yield Finish(
            result["answer"],
            int(timings.get("completion_tokens", 0)),
            extension,
            int(timings.get("prompt_tokens", 0)),
        )


def run_chat(
    hearth: Hearth, plan: ChatPlan, ticket: Ticket | None, stop: threading.Event
) -> Iterator[Piece | Progress | Finish]:
    """The reply as pieces (a whole-document run's progress too), then a Finish; frees the
    ticket when done."""
    if plan.whole is not None:
        yield from run_whole(plan, ticket, stop)
        return
    assert ticket is not None, "an ordinary chat always has its queue place"
    llm = plan.slot.runtime
    if plan.question is None:
        pieces = []
        every: list[dict[str, Any]] | None = None if plan.params.logprobs is None else []
        gen = hearth.answers.pool.generate(plan.slot, ticket, plan.messages, plan.params, stop)
        for text in gen:
            pieces.append(text)
            items = None
            if every is not None:
                items = [r.as_openai() for r in getattr(text, "logprobs", ())]
                every.extend(items)
            yield Piece(str(text), items)
        reply = "".join(pieces)
        count = llm.count_tokens(reply) if reply else 0
        yield Finish(reply, count, logprobs=every)
        return
    options = AskOptions(collection=plan.collection, sampling=plan.params)
    for event in hearth.answers.stream(plan.question, stop, ticket=ticket, options=options):
        if event.kind == "token":
            yield Piece(event.data["text"])
        elif event.kind == "done":
            reply = event.data["answer"]
            extension = {
                "sources": event.data["sources"],
                "citations": event.data["citations"],
                "collection": plan.collection,
                "timings": event.data["timings"],
                "grounding": event.data["grounding"],
                "answer_id": event.data["answer_id"],
            }
            timings = event.data["timings"]
            yield Finish(
                reply,
                int(timings.get("completion_tokens", 0)),
                extension,
                int(timings.get("prompt_tokens", 0)),
            )
