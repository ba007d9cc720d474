"""Whole-document requests: choose the documents, reuse a cached result or run the map-reduce
on the model's queue (one place per model call, so questions are answered between groups),
report progress, cite every line, store the result."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.embedder import Embedder
from core.errors import ConflictError, InvalidInputError, OverloadedError
from core.knowledge import KnowledgeBase
from service.llm.base import ChatMessage, PromptStats, SamplingParams
from service.llm.pool import ModelPool, ModelSlot
from service.llm.queue import Abandoned, Ticket
from service.templates.service import TemplateService
from service.wholedoc import mapreduce, selection
from service.wholedoc.cache import ResultCache, request_key, version_key
from service.wholedoc.mapreduce import (
    CountTokens,
    MapReduce,
    Relevance,
    Statement,
    Stopped,
    counting,
)
from service.wholedoc.prompts import Prompts
from service.wholedoc.selection import MAX_DOCUMENTS, ChunkText, DocumentText, select

MODES = ("summarise", "extract", "compare")
MAX_WHAT_CHARS = 200
#: A run whose estimate is longer than this (seconds) must be confirmed (``confirm``).
CONFIRM_OVER_S = 900.0
#: Prompt tokens per second and generated tokens per second assumed before any was measured.
PROMPT_RATE = 100.0
GENERATION_RATE = 8.0
#: Seconds a model call waits for a place in a full queue before the run gives up.
ADMIT_WAIT_S = 120.0


@dataclass
class Event:
    """One step of a run: ``progress`` (groups done of total, chunks read, seconds left) or
    ``done`` (the result)."""

    kind: str
    data: dict[str, Any]


@dataclass(frozen=True)
class WholeRequest:
    """A whole-document request: the mode, the documents (ids, paths, folders or file names;
    none: the whole ``collection``), what to extract, the model, whether a long run is
    confirmed and whether to ignore a cached result."""

    mode: str
    documents: tuple[str, ...] = ()
    collection: str | None = None
    what: str = ""
    model: str | None = None
    confirm: bool = False
    refresh: bool = False

    def checked(self) -> WholeRequest:
        """The request, or ``InvalidInputError`` naming the field that is wrong."""
        if self.mode not in MODES:
            raise InvalidInputError(f"mode: must be one of {', '.join(MODES)}", field="mode")
        what = self.what.strip()
        if self.mode == "extract" and not what:
            raise InvalidInputError(
                "what: extract needs what to list (e.g. 'deadline')", field="what"
            )
        if len(what) > MAX_WHAT_CHARS:
            raise InvalidInputError(f"what: over {MAX_WHAT_CHARS} characters", field="what")
        if self.mode == "compare" and len(self.documents) != 2:
            raise InvalidInputError(
                f"documents: compare reads exactly two documents, not {len(self.documents)}",
                field="documents",
            )
        if len(self.documents) > MAX_DOCUMENTS:
            raise InvalidInputError(
                f"documents: {len(self.documents)} named, at most {MAX_DOCUMENTS}",
                field="documents",
            )
        if any(not str(d).strip() for d in self.documents):
            raise InvalidInputError("documents: an empty name", field="documents")
        return WholeRequest(
            self.mode, self.documents, self.collection, what, self.model, self.confirm, self.refresh
        )


@dataclass
class Job:
    """A checked request with its documents, model and cache keys."""

    request: WholeRequest
    documents: list[DocumentText]
    slot: ModelSlot
    request_key: str
    version_key: str
    groups: list[list[ChunkText]]
    estimate_s: float
    count: CountTokens
    prompts: Prompts
    cached: dict[str, Any] | None = None
    prompt: dict[str, float] = field(default_factory=dict)
    statements: list[Statement] = field(default_factory=list)
    overview: list[Statement] = field(default_factory=list)


class WholeDocService:
    """Runs whole-document requests on a knowledge base and a model pool; results cached in
    ``folder`` (``DATA_DIR/wholedoc``). The prompts are the active versions of the catalogue's
    ``wholedoc-*`` templates; ``embedder`` (optional) scores an ``extract`` item that names no
    word of what is asked against it (without one such items are dropped)."""

    def __init__(
        self,
        kb: KnowledgeBase,
        pool: ModelPool,
        folder: Path,
        embedder: Embedder | None = None,
    ) -> None:
        self.kb = kb
        self.pool = pool
        self.cache = ResultCache(folder)
        self.templates = TemplateService(kb.db)
        self.relevance: Relevance | None = None
        if embedder is not None:
            model = embedder

            def relevance(queries: list[str], texts: list[str]) -> list[list[float]]:
                vectors = model.embed_questions([*queries, *texts])
                cosines = vectors[: len(queries)] @ vectors[len(queries) :].T
                return [[float(x) for x in row] for row in cosines]

            self.relevance = relevance

    def prepare(self, request: WholeRequest) -> Job:
        """The job of a request: documents chosen, cache looked up, time estimated.
        ``InvalidInputError`` / ``NotFoundError`` name the field; ``ConflictError`` (409, field
        ``confirm``) when the run is estimated over :data:`CONFIRM_OVER_S` and not confirmed."""
        request = request.checked()
        documents = select(self.kb, list(request.documents), request.collection)
        if request.mode == "compare" and len(documents) != 2:
            raise InvalidInputError(
                f"documents: compare reads two documents; these name {len(documents)}",
                field="documents",
            )
        slot = self.pool.select(request.model)
        llm = slot.runtime
        req_key = request_key(request.mode, request.what, [d.path for d in documents])
        prompts = Prompts.active(self.templates)
        ver_key = version_key(selection.version_key(documents), prompts.version, llm.model_sha256())
        count = counting(llm.count_tokens)
        runner = MapReduce(lambda m, n: "", count, llm.n_ctx, prompts=prompts)
        planned = (
            runner.plan(documents, mix=request.mode == "extract")
            if request.mode != "compare"
            else [list(d.chunks) for d in documents]
        )
        job = Job(request, documents, slot, req_key, ver_key, planned, 0.0, count, prompts)
        if not request.refresh:
            job.cached = self.cache.get(request.mode, req_key, ver_key)
        job.estimate_s = 0.0 if job.cached else self._estimate(job)
        if job.estimate_s > CONFIRM_OVER_S and not request.confirm:
            raise ConflictError(
                f"confirm: reading {sum(len(d.chunks) for d in documents)} chunks is estimated "
                f"at {job.estimate_s:.0f} s; send confirm to run it",
                field="confirm",
            )
        return job

    def _estimate(self, job: Job) -> float:
        tokens = sum(job.count(c.text) for g in job.groups for c in g)
        tokens += len(job.groups) * mapreduce.PROMPT_OVERHEAD
        stats = _prompt_stats(job.slot)
        rate = stats.new_tokens / stats.eval_s if stats and stats.eval_s > 0.05 else PROMPT_RATE
        calls = len(job.groups) if job.request.mode != "compare" else 1
        return round(tokens / rate + calls * mapreduce.MAP_TOKENS / 2 / GENERATION_RATE, 1)

    def admit(self, job: Job) -> Ticket | None:
        """A place in the model's queue for the first call (``OverloadedError`` when full: a
        429 before a response starts); None for a cached result."""
        return None if job.cached else job.slot.queue.admit()

    def stream(
        self, job: Job, stop: threading.Event, ticket: Ticket | None = None
    ) -> Iterator[Event]:
        """Progress events, then ``done`` with the result; ``Abandoned`` once ``stop`` is set
        (nothing is stored)."""
        if job.cached is not None:
            yield Event("done", {**job.cached, "cached": True})
            return
        started = time.perf_counter()
        chunks_total = sum(len(g) for g in job.groups)
        upto = [sum(len(g) for g in job.groups[:i]) for i in range(len(job.groups) + 1)]

        def progress(done: int, total: int) -> Event:
            elapsed = time.perf_counter() - started
            read = upto[min(done, len(job.groups))] if total == len(job.groups) else chunks_total
            left = elapsed / max(read, 1) * (chunks_total - read)
            return Event(
                "progress",
                {
                    "done": done,
                    "total": total,
                    "chunks_read": read,
                    "chunks_total": chunks_total,
                    "elapsed_s": round(elapsed, 2),
                    "eta_s": round(left, 1),
                },
            )

        generate = self._generator(job, ticket, stop)
        memo = self.cache.calls(job.slot.runtime.model_sha256(), read=not job.request.refresh)
        runner = MapReduce(
            generate,
            job.count,
            job.slot.runtime.n_ctx,
            stop.is_set,
            memo,
            job.prompts,
            self.relevance,
        )
        yield Event(
            "progress",
            {
                "done": 0,
                "total": len(job.groups),
                "chunks_read": 0,
                "chunks_total": chunks_total,
                "elapsed_s": 0.0,
                "eta_s": job.estimate_s,
            },
        )
        try:
            steps = self._steps(job, runner)
            while True:
                try:
                    done, total = next(steps)
                except StopIteration:
                    break
                yield progress(done, total)
        except Stopped:
            raise Abandoned("the whole-document run was stopped before its end") from None
        finally:
            if ticket is not None:
                ticket.release("cancelled" if stop.is_set() else "done")
        if stop.is_set():
            raise Abandoned("the whole-document run was stopped before its end")
        result = self._result(job, runner, time.perf_counter() - started)
        self.cache.put(job.request.mode, job.request_key, job.version_key, result, memo)
        yield Event("done", {**result, "cached": False})

    @staticmethod
    def _steps(job: Job, runner: MapReduce) -> Generator[tuple[int, int], None, None]:
        """Runs the mode, yielding (groups done, total) after each group; its statements are
        kept on the job."""
        request = job.request
        if request.mode == "summarise":
            job.statements, job.overview = yield from runner.summarise(job.documents)
        elif request.mode == "extract":
            job.statements = yield from runner.extract(job.documents, request.what)
        else:
            job.statements, job.overview = yield from runner.compare(*job.documents)

    def _generator(
        self, job: Job, first: Ticket | None, stop: threading.Event
    ) -> Callable[[list[ChatMessage], int], str]:
        tickets = [first] if first is not None else []
        cfg = self.kb.settings.llm

        def generate(messages: list[ChatMessage], max_tokens: int) -> str:
            ticket = tickets.pop() if tickets else self._admit(job.slot, stop)
            params = SamplingParams(0.0, cfg.top_p, max_tokens, cfg.seed)
            began = time.perf_counter()
            text = "".join(self.pool.generate(job.slot, ticket, messages, params, stop))
            job.prompt["model_s"] = job.prompt.get("model_s", 0.0) + time.perf_counter() - began
            stats = _prompt_stats(job.slot)
            if stats is not None:
                job.prompt["prompt_tokens"] = (
                    job.prompt.get("prompt_tokens", 0) + stats.prompt_tokens
                )
                job.prompt["prompt_new_tokens"] = (
                    job.prompt.get("prompt_new_tokens", 0) + stats.new_tokens
                )
                job.prompt["prompt_eval_s"] = job.prompt.get("prompt_eval_s", 0.0) + stats.eval_s
            job.prompt["completion_tokens"] = (
                job.prompt.get("completion_tokens", 0) + ticket.stats.tokens
            )
            return text

        return generate

    @staticmethod
    def _admit(slot: ModelSlot, stop: threading.Event) -> Ticket:
        """A place in a queue that may be full for a while (other questions): retried."""
        deadline = time.monotonic() + ADMIT_WAIT_S
        while True:
            try:
                return slot.queue.admit()
            except OverloadedError:
                if stop.is_set() or time.monotonic() > deadline:
                    raise
                stop.wait(0.5)

    def _result(self, job: Job, runner: MapReduce, seconds: float) -> dict[str, Any]:
        chunks = {c.chunk_id: c for d in job.documents for c in d.chunks}
        numbers: dict[int, int] = {}

        def marks(ids: list[int]) -> list[int]:
            for cid in ids:
                numbers.setdefault(cid, len(numbers) + 1)
            return [numbers[c] for c in ids]

        items = []
        for s in [*job.overview, *job.statements]:
            item: dict[str, Any] = {"text": s.text, "citations": marks(s.chunks)}
            if s.kind:
                item["kind"] = s.kind
                item.update(s.extra)
            items.append(item)
        overview, listed = items[: len(job.overview)], items[len(job.overview) :]
        sources = [chunks[cid].source(n) for cid, n in numbers.items()]
        answer = render(job, overview, listed, runner.run)
        return {
            "mode": job.request.mode,
            "what": job.request.what or None,
            "answer": answer,
            "items": listed,
            "overview": overview,
            "sources": sources,
            "documents": [d.as_dict() for d in job.documents],
            "model": job.slot.runtime.model_name,
            "template_version": job.prompts.version,
            "templates": job.prompts.versions(),
            "groups": runner.run.groups,
            "model_calls": runner.run.calls,
            "reused_calls": runner.run.reused,
            "reduce_rounds": runner.run.reduce_rounds,
            "dropped": runner.run.dropped,
            "irrelevant": runner.run.irrelevant,
            "stand_ins": runner.run.stand_ins,
            "chunks_read": sum(len(d.chunks) for d in job.documents),
            "timings": {
                "total_s": round(seconds, 3),
                **{k: round(v, 3) for k, v in job.prompt.items()},
            },
        }


def _prompt_stats(slot: ModelSlot) -> PromptStats | None:
    stats_of = getattr(slot.runtime, "prompt_stats", None)
    stats = stats_of() if callable(stats_of) else None
    return stats if isinstance(stats, PromptStats) else None


def _cite(item: dict[str, Any]) -> str:
    return "".join(f"[{n}]" for n in item["citations"])


def render(
    job: Job, overview: list[dict[str, Any]], items: list[dict[str, Any]], run: mapreduce.Run
) -> str:
    """The answer text: which mode ran over what, then the cited lines."""
    names = ", ".join(d.name for d in job.documents)
    read = sum(len(d.chunks) for d in job.documents)
    mode = job.request.mode
    head = f"[{mode} mode: read all {read} chunks of {names} in {run.groups} group(s)]"
    if mode == "summarise":
        if not items:
            return f"{head}\nNothing could be summarised."
        if not overview:
            return f"{head}\n" + " ".join(f"{i['text']} {_cite(i)}" for i in items)
        lines = "\n".join(f"- {i['text']} {_cite(i)}" for i in items)
        body = " ".join(f"{o['text']} {_cite(o)}" for o in overview)
        return f"{head}\n{body}\nKey facts, in document order:\n{lines}"
    if mode == "extract":
        what = job.request.what
        if not items:
            return f"{head}\nNo {what} found."
        lines = "\n".join(f"- {i['text']} {_cite(i)}" for i in items)
        return f"{head}\n{len(items)} found ({what}):\n{lines}"
    counts = {
        k: sum(1 for i in items if i.get("kind") == k)
        for k in ("same", "changed", "added", "removed")
    }
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    out = [f"{head}\nSentences: {summary}."]
    out += [f"{o['text']} {_cite(o)}" for o in overview]
    for i in items:
        if i.get("kind") == "changed":
            out.append(f"- Changed: {i['before']} -> {i['after']} {_cite(i)}")
        elif i.get("kind") == "added":
            out.append(f"- Added: {i['after']} {_cite(i)}")
        elif i.get("kind") == "removed":
            out.append(f"- Removed: {i['before']} {_cite(i)}")
    return "\n".join(out)
