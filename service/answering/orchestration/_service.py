"""Answering: condense a follow-up, retrieve, render the versioned template, fit the context,
stream the reply, check its citations and grounding, store it so it can be replayed."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any

from core.errors import InvalidInputError
from core.settings import TASKS, HearthSettings
from core.text import DONT_KNOW, runaway_citations
from service.answering.grounding import (
    Grounding,
    compute,
    dangling,
    review,
    sides,
    states_nothing,
)
from service.answering.orchestration._conversations import ConversationStore
from service.answering.orchestration._crosslingual import language_label, passages_language
from service.answering.orchestration._records import AnswerRecords
from service.answering.prompting import PromptAssembler, RenderedPrompt
from service.answering.retrieval import (
    Filters,
    Passage,
    Retriever,
    asked_speaker,
    check_fits,
    counted_tokens,
    fit_passages,
    is_turn,
    merge_identical,
    second_hop,
    side_hop,
    with_exchanges,
    with_heads,
)
from service.answering.schemas import AnswerFields
from service.llm.base import ChatMessage, LLMRuntime, PromptStats, SamplingParams
from service.llm.pool import ModelPool, ModelSlot
from service.llm.queue import Abandoned, Ticket
from service.templates.service import TemplateService

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000
#: Prompted user turns remembered for prefix reuse (a few KiB each).
MAX_PROMPTED_TURNS = 512
#: Asked once more when a reply states no fact ("[2]", "The bill number is [2] [3].", a copied
#: label: ``states_nothing``). The reply is kept as the turn before, so the model sees what it
#: wrote, and the second reply is sampled under ``NO_CITATION``: it cannot write a citation
#: marker, so it writes the fact, and the review cites the passage holding it (``attribute``;
#: one no passage can be cited for is flagged ``uncited``, as any reply). Replacing such a
#: reply by the passages was tried: on the dev half it fired 11 times, 6 on right answers.
RESTATE_REMINDER = "Write the answer as one full sentence taken from the passages."
#: Tokens a question's translation is given at most (``_translated``).
MAX_TRANSLATION_TOKENS = 160
#: GBNF grammar of a reply without "[": no citation marker can start.
NO_CITATION = "root ::= [^\\[]+"


def restatement(
    messages: list[ChatMessage], reply: str, passages: list[Passage], question: str
) -> list[ChatMessage] | None:
    """The messages asking once more for a ``reply`` that states no fact (``states_nothing``,
    against the passages' labels), to be sampled with ``restating``; None for a reply that
    states one, declines, ends on a word no sentence ends on (``dangling``), or had no
    passages. Shared by an answer and its replay."""
    if not passages or not reply or DONT_KNOW.lower().rstrip(".") in reply.lower():
        return None
    # "France is a region of [1]." had no fact to give: asked again, it wrote one (SQuAD 2.0's
    # unanswerable question, tests/integration/test_squad_abstain.py); it stays declined.
    if not states_nothing(reply, question, [p.label for p in passages]) or dangling(reply):
        return None
    return [
        *messages,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": RESTATE_REMINDER},
    ]


def counting_citations(passages: list[Passage]) -> Callable[[str], bool]:
    """``ModelPool.generate``'s ``until`` for an answer over ``passages``: the reply so far ends
    in a run of citation markers counting past them (``runaway_citations``: "is [1] [2] ...
    [96]", written until the token limit). Shared by an answer and its replay. Read only when
    the newest piece closes a marker: a run can only start counting past them at a "]"."""
    count = len(passages)
    read = 0  # characters of the reply already given

    def until(text: str) -> bool:
        nonlocal read
        closes, read = "]" in text[read:], len(text)
        return closes and runaway_citations(text, count) is not None

    return until


def without_runaway(reply: str, passages: list[Passage]) -> str:
    """``reply`` up to the first marker of a run counting past ``passages`` (the markers it can
    mean kept: "The total is [1] [2] [3]", asked once more by ``restatement``)."""
    cut = runaway_citations(reply, len(passages))
    return reply if cut is None else reply[:cut].rstrip(" ,;")


def restating(params: SamplingParams) -> SamplingParams:
    """``params`` for the second reply of ``restatement``: no citation marker (``NO_CITATION``)."""
    return replace(params, grammar=NO_CITATION)


@dataclass
class Event:
    """One step of a streamed answer: ``sources``, ``token``, ``done`` or ``error``."""

    kind: str
    data: dict[str, Any]


@dataclass(frozen=True)
class AskOptions:
    """How to answer: which conversation, collection and template; whether to store it;
    ``speakers``: only those speakers' turns (names or ``Speaker N``, ``Filters.speakers``)."""

    conversation_id: int | None = None
    collection: str | None = None
    speakers: tuple[str, ...] = ()
    record: bool = True
    sampling: SamplingParams | None = None  # default: the configured sampling settings


@dataclass
class Answer(AnswerFields[dict[str, Any]]):
    """A finished answer with its sources, citations, grounding verdict and timings (the fields
    of :class:`service.answering.schemas.AnswerFields`, its passages as JSON-ready dicts), and
    the question.
    """

    question: str = field(kw_only=True)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, the body of an :class:`service.answering.schemas.AskResponse` (the
        question is not echoed)."""
        return {f.name: getattr(self, f.name) for f in fields(AnswerFields)}


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


def template_for(task: str | None) -> str:
    """The prompt template of a task (qa by default)."""
    if task is None:
        return "qa"
    if task not in TASKS:
        raise InvalidInputError(f"task: must be one of {', '.join(TASKS)}", field="task")
    return task


@dataclass
class _Turn:
    """Everything one answer is made of, gathered before generation."""

    question: str
    standalone: str
    history: list[dict[str, str]]
    passages: list[Passage]
    prompt: RenderedPrompt
    messages: list[ChatMessage]
    filters: Filters
    #: The question in its passages' language, when it was translated for fitting.
    translated: str = ""


def further_hops(
    retriever: Retriever, question: str, found: list[Passage], top_k: int, filters: Filters
) -> list[Passage]:
    """The passages ``found`` for ``question`` after the second hop of a two-step question
    (``second_hop``) and, for an arithmetic one, each side's own search (``side_hop``); an answer
    and its replay take the same hops."""
    found = second_hop(retriever, question, found, top_k, filters)
    asked = sides(question)
    if asked is None:
        return found

    def complete(passages: list[Passage]) -> bool:
        return compute(question, {p.number: p.text for p in passages}) is not None

    return side_hop(retriever, found, asked, complete, filters)


def with_turns_around(
    retriever: Retriever, question: str, fitted: list[Passage], filters: Filters
) -> list[Passage]:
    """``fitted`` with each recording's turn given the turns before and after it
    (``with_exchanges``: a dialogue's answer is in the reply), unless the question filters by
    speaker or asks about one ("what did Maria say", "the second speaker": that speaker's
    turns, labelled with them, were asked for); an answer and its replay (of an answer
    recorded with ``"exchanges": true``) do the same."""
    if filters.speakers or not any(is_turn(p.provenance) for p in fitted):
        return fitted
    kb = retriever.kb
    if asked_speaker(question, kb.db, kb.settings.data_dir) != (None, None):
        return fitted
    return with_exchanges(fitted, kb.db)


def prompt_timings(llm: LLMRuntime, to_first: float) -> dict[str, float]:
    """The prompt's part of the time to first token: tokens in all, reused from the KV cache
    (``prompt_cached_tokens``) and evaluated (``prompt_new_tokens``), evaluation and state
    restore seconds, and ``first_token_s``, the rest of ``to_first`` (seconds from the start
    of generation to the first piece: sampling, decoding); llama.cpp's ``threads`` for the
    prompt and ``generation_threads``, with ``cores_busy`` of the ``cores`` other programs kept
    busy when it started. Empty for a runtime that does not report them (a remote server)."""
    stats_of = getattr(llm, "prompt_stats", None)
    stats: PromptStats | None = stats_of() if callable(stats_of) else None
    if stats is None:
        return {}
    timings = {
        "prompt_tokens": stats.prompt_tokens,
        "prompt_cached_tokens": stats.cached_tokens,
        "prompt_new_tokens": stats.new_tokens,
        "prompt_eval_s": stats.eval_s,
        "prompt_restore_s": stats.restore_s,
        "first_token_s": round(max(to_first - stats.eval_s - stats.restore_s, 0.0), 4),
    }
    if stats.threads:  # llama.cpp's threads and the cores other programs kept busy
        timings.update(
            threads=stats.threads,
            generation_threads=stats.generation_threads,
            cores=stats.cores,
            cores_busy=stats.cores_busy,
        )
    return timings


class AnswerService:
    """Turns a question into a grounded, cited, replayable answer, on the model a request names
    or routes to. ``llm`` is the pool of loaded models; a bare runtime is wrapped in a pool."""

    #: Whether the review looks for a reply that followed an instruction inside a passage
    #: (``review(injection=...)``); bench/injection.py's "before" turns it off.
    check_injection: bool = True

    def __init__(
        self,
        settings: HearthSettings,
        retriever: Retriever,
        llm: LLMRuntime | ModelPool,
        templates: TemplateService | None = None,
    ) -> None:
        self.settings = settings
        self.retriever = retriever
        self.pool = llm if isinstance(llm, ModelPool) else ModelPool.of(llm, settings)
        db = retriever.kb.db
        self.templates = templates or TemplateService(db)
        self.prompts = PromptAssembler(self.templates, settings)
        self.conversations = ConversationStore(db)
        self.records = AnswerRecords(db)
        #: (conversation, question) -> the user message its answer's prompt had.
        self._prompted: OrderedDict[tuple[int, str], str] = OrderedDict()

    @property
    def llm(self) -> LLMRuntime:
        """The default model's runtime."""
        return self.pool.default.runtime

    def sampling(self) -> SamplingParams:
        """Sampling settings from the configuration."""
        cfg = self.settings.llm
        return SamplingParams(cfg.temperature, cfg.top_p, cfg.max_tokens, cfg.seed)

    def admit(self, model: str | None = None, task: str | None = None) -> Ticket:
        """A place in the chosen model's queue (``OverloadedError`` when full); call before
        a response starts so that a full queue is a 429."""
        template_for(task)
        return self.pool.select(model, task).queue.admit()

    def prefill(self, templates: tuple[str, ...] = ("qa", "condense-question")) -> int:
        """Evaluate the active system prompt of ``templates`` on every local model that can keep
        KV states, so the first question reuses it; the number of prompts evaluated."""
        done = 0
        for slot in self.pool.slots.values():
            prefill = getattr(slot.runtime, "prefill", None)
            if not callable(prefill):
                continue
            for name in templates:
                system = self.prompts.messages(name, None, "", [], [])[0].system
                prefill([{"role": "system", "content": system}, {"role": "user", "content": ""}])
                done += 1
        return done

    # -- building the prompt (service.answering.prompting) ------------------------------

    def check_question(
        self, llm: LLMRuntime, question: str, template: str, max_tokens: int
    ) -> None:
        """``ContextOverflowError`` (400) when the question alone, in the template without
        passages or history, leaves less than ``max_tokens`` of the model's context."""
        _, messages = self.prompts.messages(template, None, question, [], [])
        check_fits(llm, messages, max_tokens, f"the question ({llm.count_tokens(question)} tokens)")

    def check_request(
        self,
        question: str,
        model: str | None,
        task: str | None,
        options: AskOptions | None = None,
    ) -> None:
        """The question checked in tokens on the model the request goes to, before it is
        admitted and before a response starts (a streamed request gets a 400, not an SSE
        error)."""
        params = (options.sampling if options else None) or self.sampling()
        llm = self.pool.select(model, task).runtime
        self.check_question(llm, question, template_for(task), params.max_tokens)

    def _condense(
        self,
        slot: ModelSlot,
        ticket: Ticket,
        question: str,
        history: list[dict[str, str]],
        stop: threading.Event,
    ) -> str:
        """A follow-up rewritten as a standalone question (the turn is kept for the answer)."""
        params = SamplingParams(0.0, 1.0, 96, self.settings.llm.seed)
        llm = slot.runtime
        messages, history = self.prompts.condense(llm, question, history, params.max_tokens)
        if not history:
            return question
        text = "".join(self.pool.generate(slot, ticket, messages, params, stop, release=False))
        standalone = text.strip().strip('"').splitlines()[0].strip() if text.strip() else ""
        return standalone or question

    def _translated(
        self,
        slot: ModelSlot,
        ticket: Ticket,
        question: str,
        passages: list[Passage],
        stop: threading.Event,
    ) -> str:
        """``question`` translated by the model into the language its ``passages`` are written
        in, for fitting to score their sentences against (``passages_language``); "" when
        they are in the question's language, none is sure, or the model gave nothing."""
        language = passages_language(question, passages)
        if language is None:
            return ""
        llm = slot.runtime
        limit = min(MAX_TRANSLATION_TOKENS, 2 * llm.count_tokens(question) + 16)
        params = SamplingParams(0.0, 1.0, limit, self.settings.llm.seed)
        messages = self.prompts.translate_question(question, language_label(language))
        text = "".join(self.pool.generate(slot, ticket, messages, params, stop, release=False))
        lines = [ln.strip().strip('"') for ln in text.strip().splitlines() if ln.strip()]
        return lines[0] if lines else ""

    def _as_prompted(self, cid: int | None, turn: dict[str, str]) -> dict[str, str]:
        """A user turn of a conversation as its own answer's prompt had it (with its passages)
        when this process answered it, so the next prompt starts with the same tokens as the
        previous one and reuses its KV state; else the turn as stored."""
        if cid is None or turn["role"] != "user":
            return turn
        return {
            "role": "user",
            "content": self._prompted.get((cid, turn["content"]), turn["content"]),
        }

    # -- answering -------------------------------------------------------------------------

    def stream(
        self,
        question: str,
        stop: threading.Event | None = None,
        *,
        model: str | None = None,
        task: str | None = None,
        ticket: Ticket | None = None,
        options: AskOptions | None = None,
    ) -> Iterator[Event]:
        """Events of one answer: sources, then tokens, then done (or error); once ``stop`` is
        set the generation ends at its next token and nothing follows (nothing is stored)."""
        stop = stop or threading.Event()
        question = validate_question(question)
        options = options or AskOptions()
        template = template_for(task)
        history = (
            self.conversations.history(options.conversation_id)
            if options.conversation_id is not None
            else []
        )
        if ticket is None:  # a caller holding a ticket checked the question before admitting
            self.check_request(question, model, task, options)
        ticket = ticket or self.admit(model, task)
        try:
            slot = self.pool.slots[ticket.queue.name]
            yield from self._stream(question, template, history, options, stop, slot, ticket)
        finally:
            ticket.release("cancelled" if stop.is_set() else "done")

    def _stream(
        self,
        question: str,
        template: str,
        history: list[dict[str, str]],
        options: AskOptions,
        stop: threading.Event,
        slot: ModelSlot,
        ticket: Ticket,
    ) -> Iterator[Event]:
        llm = slot.runtime
        started = time.perf_counter()
        params = options.sampling or self.sampling()
        standalone = self._condense(slot, ticket, question, history, stop)
        condensed = time.perf_counter()
        cid = options.conversation_id
        history = [self._as_prompted(cid, t) for t in history]
        filters = Filters(collection=options.collection, speakers=options.speakers)
        found = self.retriever.retrieve(standalone, filters=filters)
        found = further_hops(
            self.retriever, standalone, found, self.settings.retrieval.top_k, filters
        )
        searched = time.perf_counter()
        found = merge_identical(found)
        translated = self._translated(slot, ticket, standalone, found, stop)
        after_translation = time.perf_counter()
        found = fit_passages(
            standalone,
            found,
            self.retriever.embedder,
            llm.count_tokens,
            self.settings.retrieval.passage_tokens,
            also=translated,
        )
        found = with_turns_around(self.retriever, standalone, found, filters)
        found = with_heads(self.retriever.kb.db, found)  # the review reads their covers
        prompt, messages, passages, used_history = self.prompts.fit(
            llm, template, None, standalone, found, history, params.max_tokens
        )
        turn = _Turn(
            question, standalone, used_history, passages, prompt, messages, filters, translated
        )
        if cid is not None:
            self._prompted[(cid, question)] = prompt.user
            while len(self._prompted) > MAX_PROMPTED_TURNS:
                self._prompted.popitem(last=False)
        retrieved = time.perf_counter()
        steps = {
            "condense_s": round(condensed - started, 4),
            "retrieval_s": round(retrieved - condensed, 4),
            "search_s": round(searched - condensed, 4),
            "fit_s": round(retrieved - after_translation, 4),
        }
        if translated:
            steps["translate_s"] = round(after_translation - searched, 4)
        ticket.stats.retrieval_s = round(retrieved - condensed, 4)
        ticket.stats.condense_s = steps["condense_s"]
        yield Event("sources", {"sources": [p.as_dict() for p in passages]})
        pieces: list[str] = []
        first: float | None = None
        if passages or template == "translate":
            until = counting_citations(passages)
            for piece in self.pool.generate(
                slot, ticket, messages, params, stop, release=False, until=until
            ):
                if first is None:
                    first = time.perf_counter()
                pieces.append(piece)
                yield Event("token", {"text": piece})
            reply = "".join(pieces).strip()
            if (kept := without_runaway(reply, passages)) != reply:
                # the streamed run's impossible markers are left out of the answer (the
                # done event's text replaces what was streamed)
                steps["citation_run_cut"] = 1.0
                reply, pieces = kept, [kept]
            again = restatement(messages, reply, passages, standalone)
            if again is not None and not stop.is_set():
                # The 1.5B sometimes replies "[2]" alone, or "The bill number is [2] [3].";
                # asked once more, unable to cite, it writes the fact. The prompt's tokens are
                # the same, so its KV state is reused.
                steps["retried"] = 1.0
                pieces = [" "]
                for piece in self.pool.generate(slot, ticket, again, restating(params), stop):
                    pieces.append(piece)
                    yield Event("token", {"text": piece})
            elif ticket.running:
                self.pool.finish(slot, ticket)
        else:  # nothing relevant enough: say so instead of letting the model invent
            first = time.perf_counter()
            pieces.append(DONT_KNOW)
            yield Event("token", {"text": DONT_KNOW})
        if stop.is_set():  # stopped (client gone, Hearth stopping): nothing to check or store
            return
        ended = time.perf_counter()
        if passages or template == "translate":
            steps.update(prompt_timings(llm, (first or ended) - retrieved))
        steps["queue_wait_s"] = ticket.stats.wait_s
        answer = self._finish(
            llm,
            turn,
            "".join(pieces).strip(),
            params,
            options,
            (started, retrieved, first or ended, ended),
            steps,
        )
        log.debug("answered %r with %r", question, answer.answer)
        streamed = "".join(pieces).strip()
        if answer.answer != streamed and answer.answer.startswith(streamed):
            # The check added to what was streamed (the citation of an uncited answer): the
            # stream's reader gets it as one more token, so tokens and answer agree.
            yield Event("token", {"text": answer.answer[len(streamed) :]})
        yield Event("done", answer.as_dict())

    def _finish(
        self,
        llm: LLMRuntime,
        turn: _Turn,
        text: str,
        params: SamplingParams,
        options: AskOptions,
        clock: tuple[float, float, float, float],
        steps: dict[str, float],
    ) -> Answer:
        started, retrieved, first, ended = clock
        passages = turn.passages
        text, verdict = self.postprocess(text, passages, turn.standalone, turn.prompt.system)
        by_number = {p.number: p for p in passages}
        citations = [by_number[n].as_dict() for n in verdict.cited]
        tokens = llm.count_tokens(text) if text else 0
        # The canned "don't know" (nothing retrieved) is not generated: no speed to report.
        generated = bool(passages) or turn.prompt.name == "translate"
        timings = {
            "retrieval_s": round(retrieved - started, 4),
            "ttft_s": round(first - started, 4),
            "total_s": round(ended - started, 4),
            "completion_tokens": tokens,
            # the whole prompt the model read (template, history, passages, question)
            "prompt_tokens": counted_tokens(llm, turn.messages) if generated else 0,
            "tokens_per_s": (
                round(tokens / max(ended - first, 1e-9), 2) if tokens > 1 and generated else 0.0
            ),
            **steps,
        }
        template = {
            "name": turn.prompt.name,
            "version": turn.prompt.version,
            "content_hash": turn.prompt.content_hash,
        }
        answer = Answer(
            question=turn.question,
            answer=text,
            sources=[p.as_dict() for p in passages],
            citations=citations,
            model=llm.model_name,
            sampling=params.as_dict(),
            timings=timings,
            conversation_id=options.conversation_id,
            standalone_question=turn.standalone,
            template=template,
            grounding=verdict.as_dict(),
        )
        if options.record:
            answer.answer_id = self._record(llm, turn, answer)
            if options.conversation_id is not None:
                self.conversations.append(
                    options.conversation_id, turn.question, text, answer.answer_id
                )
        return answer

    def postprocess(
        self, text: str, passages: list[Passage], question: str = "", system: str = ""
    ) -> tuple[str, Grounding]:
        """The reply reviewed against its passages under the ``grounding.on_fail`` setting (the
        text shown and the verdict; ``service.answering.grounding.review``; the injection check
        unless ``check_injection`` is off)."""
        return review(
            text,
            passages,
            question,
            system,
            self.settings.grounding.on_fail,
            injection=self.check_injection,
        )

    def _record(self, llm: LLMRuntime, turn: _Turn, answer: Answer) -> int:
        cfg = self.settings.retrieval
        return self.records.save(
            conversation_id=answer.conversation_id,
            question=turn.question,
            standalone_question=turn.standalone,
            answer=answer.answer,
            template_name=turn.prompt.name,
            template_version=turn.prompt.version,
            template_hash=turn.prompt.content_hash,
            model=llm.model_name,
            model_sha256=llm.model_sha256(),
            embedder=self.retriever.embedder.model_id,
            sampling=answer.sampling,
            retrieval={
                "top_k": cfg.top_k,
                "min_score": cfg.min_score,
                "relative_margin": cfg.relative_margin,
                "passage_tokens": cfg.passage_tokens,
                "method": "hybrid",
                "collection": turn.filters.collection,
                "speakers": list(turn.filters.speakers),
                "exchanges": True,
                **({"translated_question": turn.translated} if turn.translated else {}),
            },
            history=turn.history,
            retrieved=[
                {"number": p.number, "chunk_id": p.chunk_id, "score": p.score}
                for p in turn.passages
            ],
            citations=[c["number"] for c in answer.citations],
            flags=answer.grounding,
            timings=answer.timings,
        )

    def answer(
        self,
        question: str,
        *,
        model: str | None = None,
        task: str | None = None,
        ticket: Ticket | None = None,
        stop: threading.Event | None = None,
        options: AskOptions | None = None,
    ) -> Answer:
        """The whole answer at once; ``Abandoned`` when ``stop`` was set before its end."""
        done: dict[str, Any] = {}
        q = validate_question(question)
        for event in self.stream(q, stop, model=model, task=task, ticket=ticket, options=options):
            if event.kind == "done":
                done = event.data
        if not done:
            raise Abandoned("the answer was stopped before its end")
        return Answer(question=q, **done)
