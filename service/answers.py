"""Answering: retrieve, fit the prompt into the context, stream the reply, attach citations."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from core.errors import InvalidInputError
from core.settings import HearthSettings
from service.llm.base import LLMRuntime, SamplingParams
from service.llm.pool import ModelPool, ModelSlot
from service.llm.queue import Ticket
from service.prompts import DONT_KNOW, build_messages, cited_numbers
from service.retrieval import Passage, Retriever

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000


@dataclass
class Event:
    """One step of a streamed answer: ``sources``, ``token``, ``done`` or ``error``."""

    kind: str
    data: dict[str, Any]


@dataclass
class Answer:
    """A finished answer with its sources and timings."""

    question: str
    answer: str
    sources: list[dict[str, Any]]
    citations: list[dict[str, Any]]
    model: str
    sampling: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (the question is not echoed)."""
        return {
            "answer": self.answer,
            "sources": self.sources,
            "citations": self.citations,
            "model": self.model,
            "sampling": self.sampling,
            "timings": self.timings,
        }


def validate_question(question: str) -> str:
    """A trimmed, non-empty question of bounded length."""
    q = (question or "").strip()
    if not q:
        raise InvalidInputError("question: must not be empty", field="question")
    if len(q) > MAX_QUESTION_CHARS:
        raise InvalidInputError(
            f"question: {len(q)} characters is over the {MAX_QUESTION_CHARS} limit",
            field="question",
        )
    return q


class AnswerService:
    """Turns a question into a grounded, cited answer, on the model a request names or routes to.

    ``llm`` is the pool of loaded models; a bare runtime is wrapped in a one-model pool.
    """

    def __init__(
        self, settings: HearthSettings, retriever: Retriever, llm: LLMRuntime | ModelPool
    ) -> None:
        self.settings = settings
        self.retriever = retriever
        self.pool = llm if isinstance(llm, ModelPool) else ModelPool.of(llm, settings)

    @property
    def llm(self) -> LLMRuntime:
        """The default model's runtime."""
        return self.pool.default.runtime

    def sampling(self) -> SamplingParams:
        """Sampling settings from the configuration."""
        cfg = self.settings.llm
        return SamplingParams(cfg.temperature, cfg.top_p, cfg.max_tokens, cfg.seed)

    def _fit(
        self, llm: LLMRuntime, question: str, passages: list[Passage], max_tokens: int
    ) -> list[Passage]:
        """Drop the lowest-ranked passages until the prompt leaves room for the answer."""
        budget = llm.n_ctx - max_tokens
        while passages:
            messages = build_messages(question, passages)
            used = sum(llm.count_tokens(m["content"]) + 8 for m in messages)
            if used <= budget:
                break
            passages = passages[:-1]
        return passages

    def admit(self, model: str | None = None, task: str | None = None) -> Ticket:
        """A place in the chosen model's queue (``OverloadedError`` when full); call before
        a response starts so that a full queue is a 429."""
        return self.pool.select(model, task).queue.admit()

    def stream(
        self,
        question: str,
        stop: threading.Event | None = None,
        *,
        model: str | None = None,
        task: str | None = None,
        ticket: Ticket | None = None,
    ) -> Iterator[Event]:
        """Events of one answer: sources, then tokens, then done (or error)."""
        stop = stop or threading.Event()
        question = validate_question(question)
        ticket = ticket or self.admit(model, task)
        try:
            yield from self._stream(question, stop, self.pool.slots[ticket.queue.name], ticket)
        finally:
            ticket.release("cancelled" if stop.is_set() else "done")

    def _stream(
        self, question: str, stop: threading.Event, slot: ModelSlot, ticket: Ticket
    ) -> Iterator[Event]:
        llm = slot.runtime
        started = time.perf_counter()
        params = self.sampling()
        passages = self._fit(llm, question, self.retriever.retrieve(question), params.max_tokens)
        retrieved = time.perf_counter()
        yield Event("sources", {"sources": [p.as_dict() for p in passages]})
        pieces: list[str] = []
        first: float | None = None
        if passages:
            messages = build_messages(question, passages)
            for piece in self.pool.generate(slot, ticket, messages, params, stop):
                if first is None:
                    first = time.perf_counter()
                pieces.append(piece)
                yield Event("token", {"text": piece})
        else:
            first = time.perf_counter()
            pieces.append(DONT_KNOW)
            yield Event("token", {"text": DONT_KNOW})
        ended = time.perf_counter()
        text = "".join(pieces).strip()
        answer = self._finish(
            llm, question, text, passages, params, started, retrieved, first, ended
        )
        answer.timings["queue_wait_s"] = ticket.stats.wait_s
        log.debug("answered %r with %r", question, text)
        yield Event("done", answer.as_dict())

    def _finish(
        self,
        llm: LLMRuntime,
        question: str,
        text: str,
        passages: list[Passage],
        params: SamplingParams,
        started: float,
        retrieved: float,
        first: float | None,
        ended: float,
    ) -> Answer:
        by_number = {p.number: p for p in passages}
        cited = [by_number[n].as_dict() for n in cited_numbers(text) if n in by_number]
        tokens = llm.count_tokens(text) if text else 0
        gen_seconds = max(ended - (first or ended), 1e-9)
        return Answer(
            question=question,
            answer=text,
            sources=[p.as_dict() for p in passages],
            citations=cited,
            model=llm.model_name,
            sampling=params.as_dict(),
            timings={
                "retrieval_s": round(retrieved - started, 4),
                "ttft_s": round((first or ended) - started, 4),
                "total_s": round(ended - started, 4),
                "completion_tokens": tokens,
                "tokens_per_s": round(tokens / gen_seconds, 2) if tokens > 1 else 0.0,
            },
        )

    def answer(
        self,
        question: str,
        *,
        model: str | None = None,
        task: str | None = None,
        ticket: Ticket | None = None,
        stop: threading.Event | None = None,
    ) -> Answer:
        """The whole answer at once."""
        done: dict[str, Any] = {}
        q = validate_question(question)
        for event in self.stream(q, stop, model=model, task=task, ticket=ticket):
            if event.kind == "done":
                done = event.data
        return Answer(question=q, **done)
