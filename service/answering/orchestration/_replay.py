"""Replaying a stored answer with its recorded recipe, and saying whether it came out the same."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from core.errors import ConflictError
from core.text import DONT_KNOW
from service.answering.orchestration._service import (
    AnswerService,
    counting_citations,
    further_hops,
    restatement,
    restating,
    with_turns_around,
    without_runaway,
)
from service.answering.retrieval import Filters, fit_passages, merge_identical, with_heads
from service.llm.base import SamplingParams
from service.llm.queue import Abandoned


@dataclass
class ReplayResult:
    """The recorded and the replayed answer, and whether text and sources match."""

    answer_id: int
    same_text: bool
    same_sources: bool
    original_answer: str
    replayed_answer: str
    original_chunks: list[int]
    replayed_chunks: list[int]


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def replay(
    service: AnswerService, answer_id: int, stop: threading.Event | None = None
) -> ReplayResult:
    """Re-run an answer: same standalone question, retrieval settings, history, template
    version (its hash checked), model (its sha256 checked), sampling settings and seed.
    ``Abandoned`` when ``stop`` is set before the generation's end."""
    rec = service.records.get(answer_id)
    slot = next(
        (s for s in service.pool.slots.values() if s.runtime.model_sha256() == rec.model_sha256),
        None,
    )
    if slot is None:
        raise ConflictError(
            f"answer {answer_id} was made by a model (sha256 {rec.model_sha256[:12]}…) that is "
            "not loaded now; load it to replay"
        )
    version = service.templates.get(rec.template_name, rec.template_version)
    if version.content_hash != rec.template_hash:
        raise ConflictError(f"template {rec.template_name} v{rec.template_version} changed")
    cfg: dict[str, Any] = rec.retrieval
    filters = Filters(collection=cfg.get("collection"), speakers=tuple(cfg.get("speakers", ())))
    found = service.retriever.retrieve(
        rec.standalone_question,
        k=int(cfg["top_k"]),
        filters=filters,
        min_score=float(cfg["min_score"]),
        relative_margin=float(cfg["relative_margin"]),
    )
    # The same further retrieval hops the answer took (issue 21, issue 35).
    found = further_hops(
        service.retriever, rec.standalone_question, found, int(cfg["top_k"]), filters
    )
    found = fit_passages(
        rec.standalone_question,
        merge_identical(found),
        service.retriever.embedder,
        slot.runtime.count_tokens,
        int(cfg.get("passage_tokens", 0)),  # answers recorded before the budget: whole
        also=str(cfg.get("translated_question", "")),  # the translation it was fitted with
    )
    if cfg.get("exchanges"):  # recorded since a turn is given the turns around it
        found = with_turns_around(service.retriever, rec.standalone_question, found, filters)
    passages = with_heads(service.retriever.kb.db, found[: len(rec.retrieved)])
    prompt, messages = service.prompts.messages(
        rec.template_name, rec.template_version, rec.standalone_question, passages, rec.history
    )
    sampling = dict(rec.sampling)
    params = SamplingParams(
        float(sampling["temperature"]),
        float(sampling["top_p"]),
        int(sampling["max_tokens"]),
        int(sampling["seed"]),
        tuple(sampling.get("stop") or ()),
        # The prompt evaluated in the same batches as the original (NOTES.md: a prompt evaluated
        # on another prefix can take another token at a near-tie); None for older records.
        reuse_at_most=_int_or_none(rec.timings.get("prompt_cached_tokens")),
    )
    ticket = slot.queue.admit()
    stop = stop or threading.Event()
    try:
        pieces = service.pool.generate(
            slot, ticket, messages, params, stop, release=False, until=counting_citations(passages)
        )
        text = without_runaway("".join(pieces).strip(), passages)
        # asked once more, as the answer was, when the reply states no fact
        again = restatement(messages, text, passages, rec.standalone_question)
        if again is not None and not stop.is_set():
            text = "".join(service.pool.generate(slot, ticket, again, restating(params), stop))
            text = text.strip()
        elif ticket.running:
            service.pool.finish(slot, ticket)
    finally:
        ticket.release("done")
    if stop.is_set():
        raise Abandoned(f"the replay of answer {answer_id} was stopped before its end")
    if passages:
        text, _ = service.postprocess(text, passages, rec.standalone_question, system=prompt.system)
    else:
        text = DONT_KNOW
    original = [r["chunk_id"] for r in rec.retrieved]
    replayed = [p.chunk_id for p in passages]
    return ReplayResult(
        answer_id, text == rec.answer, original == replayed, rec.answer, text, original, replayed
    )
