"""Chat completions on Hearth's models: a plain local model, or answers grounded in a collection.

A model name is either one of the pool's models (the messages go to it as they are) or
``hearth-rag`` / ``hearth-rag:<collection>``: the last user message is answered by the
AnswerService with retrieval (over one collection when named), and the sources come back too.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import select

from core.db.models import Document
from core.errors import InvalidInputError
from service.answering.context import check_fits
from service.answers import AskOptions, validate_question
from service.llm.base import ChatMessage, SamplingParams
from service.llm.pool import ModelSlot
from service.llm.queue import Ticket
from service.openai_api import ChatRequest, unknown_model
from service.state import Hearth

RAG = "hearth-rag"
T = TypeVar("T")


def collections(hearth: Hearth) -> list[str]:
    """Names of the collections that hold ingested documents."""
    query = select(Document.collection).where(Document.status == "ingested").distinct()
    with hearth.kb.db.session() as s:
        return sorted(s.scalars(query))


def model_ids(hearth: Hearth) -> list[str]:
    """Every chat model name: the pool's models, then the retrieval-augmented assistants."""
    names = list(hearth.pool.slots) if hearth.pool else [hearth.llm.model_name]
    return [*names, RAG, *(f"{RAG}:{c}" for c in collections(hearth))]


@dataclass
class Piece:
    """A piece of the reply's text."""

    text: str


@dataclass
class Finish:
    """The end of a reply: the full text, token counts, and Hearth's extension (RAG sources)."""

    text: str
    completion_tokens: int
    extension: dict[str, Any] | None = field(default=None)
    #: Tokens of the whole prompt the model read (passages included); 0: the plan's count.
    prompt_tokens: int = 0


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


def plan_chat(hearth: Hearth, req: ChatRequest) -> ChatPlan:
    """Check the request against the served models and the context size."""
    messages = req.chat_messages()
    pool = hearth.answers.pool
    base, _, collection = req.model.partition(":")
    question: str | None = None
    if req.model in pool.slots:
        slot = pool.slots[req.model]
    elif base == RAG and (not collection or collection in collections(hearth)):
        slot = pool.select(task="qa")
        users = [m["content"] for m in messages if m["role"] == "user"]
        if not users:
            raise InvalidInputError("messages: a user message is needed", field="messages")
        question = validate_question(users[-1])
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
    )
    return ChatPlan(req.model, slot, params, messages, prompt_tokens, question, collection or None)


def run_chat(
    hearth: Hearth, plan: ChatPlan, ticket: Ticket, stop: threading.Event
) -> Iterator[Piece | Finish]:
    """The reply as pieces, then a Finish; frees the ticket when done."""
    llm = plan.slot.runtime
    if plan.question is None:
        pieces = []
        gen = hearth.answers.pool.generate(plan.slot, ticket, plan.messages, plan.params, stop)
        for text in gen:
            pieces.append(text)
            yield Piece(text)
        reply = "".join(pieces)
        yield Finish(reply, llm.count_tokens(reply) if reply else 0)
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


async def in_thread(
    work: Callable[[threading.Event], Iterator[T]], ticket: Ticket
) -> AsyncGenerator[T, None]:
    """Run ``work`` in a worker thread and hand its items over; an error is raised here. If the
    consumer goes away, the work is stopped and its queue place freed at once."""
    stop = threading.Event()
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def put(kind: str, item: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, (kind, item))

    def runner() -> None:
        try:
            for item in work(stop):
                put("item", item)
                if stop.is_set():
                    break
        except BaseException as exc:  # handed to the consumer, which raises it
            put("error", exc)
        finally:
            put("end", None)

    threading.Thread(target=runner, name="hearth-openai", daemon=True).start()
    try:
        while True:
            kind, item = await queue.get()
            if kind == "end":
                return
            if kind == "error":
                raise item
            yield item
    finally:
        stop.set()
        ticket.release("cancelled")
