"""The loaded models: one runtime and one fair queue each, routing, warm-up and measured memory."""

from __future__ import annotations

import logging
import os
import resource
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from core.memsize import current_anon, current_rss, human
from core.settings import HearthSettings
from service.llm.base import ChatMessage, LLMRuntime, ModelConfig, PromptStats, SamplingParams
from service.llm.config import Router, model_configs
from service.llm.planner import MemoryPlan, ModelPlan
from service.llm.queue import FairQueue, RequestStats, Ticket
from service.llm.runtimes import RUNTIMES

log = logging.getLogger(__name__)

WARMUP_TEXT = (
    "The lamp was lit at dusk; ships passed the cape; the keeper wrote about tides and gulls. "
)


def warmup_prompt(runtime: LLMRuntime, tokens: int, tag: str) -> str:
    """A prompt of about ``tokens`` tokens (at most half the context), led by ``tag``."""
    limit = min(tokens, runtime.n_ctx // 2)
    per = max(1, runtime.count_tokens(WARMUP_TEXT))
    body = WARMUP_TEXT * max(1, limit // per)
    return f"{tag}. {body}\nReply with one word: ready?"


@dataclass
class ModelSlot:
    """A loaded model, its queue, its plan and what was measured when it loaded."""

    config: ModelConfig
    runtime: LLMRuntime
    queue: FairQueue
    plan: ModelPlan
    measured: dict[str, Any] = field(default_factory=dict)

    def info(self) -> dict[str, Any]:
        """What ``GET /api/models`` lists."""
        return {
            "name": self.config.name,
            "model": self.config.model,
            "backend": self.config.backend,
            "path": self.runtime.model_path,
            "sha256": self.runtime.model_sha256(),
            "quantization": self.plan.quantization or None,
            "n_ctx": self.runtime.n_ctx,
            "kv_type": self.config.kv_type,
            "planned_bytes": self.plan.total,
            "planned": {
                "weights": self.plan.weights,
                "kv_cache": self.plan.kv_cache,
                "compute": self.plan.compute + self.plan.output,
            },
        }


CAP_IPC_LOCK = 14


def can_lock_unlimited() -> bool:
    """True when this process holds CAP_IPC_LOCK (root usually does), which lifts ``ulimit -l``."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> CAP_IPC_LOCK & 1)
    except (OSError, ValueError):
        pass
    return os.geteuid() == 0


def mlock_status(requested: bool, locked_bytes: int) -> dict[str, Any]:
    """Whether ``use_mlock`` can hold ``locked_bytes`` under ``ulimit -l``; a warning if not
    (llama.cpp then keeps going with the pages unlocked)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    privileged = can_lock_unlimited()
    enough = privileged or soft == resource.RLIM_INFINITY or soft >= locked_bytes
    status: dict[str, Any] = {
        "requested": requested,
        "limit_bytes": None if soft == resource.RLIM_INFINITY else soft,
        "cap_ipc_lock": privileged,
        "sufficient": enough,
    }
    if requested and not enough:
        status["warning"] = (
            f"use_mlock asked to lock {human(locked_bytes)} but ulimit -l allows {human(soft)}: "
            "pages stay unlocked; raise the limit (ulimit -l / LimitMEMLOCK) or run without mlock"
        )
    return status


def create_slot_runtime(settings: HearthSettings, config: ModelConfig) -> LLMRuntime:
    """The runtime of one configured model, by its backend's registered name (``local``:
    llama.cpp in process, ``openai``: an OpenAI-compatible server, or a plugin's;
    ``UnknownBackendError`` naming the known ones otherwise)."""
    return RUNTIMES.get(config.backend)(settings, config)


def timed_generation(runtime: LLMRuntime, prompt: str, max_tokens: int = 8) -> dict[str, float]:
    """TTFT and tokens of one short greedy generation."""
    params = SamplingParams(temperature=0.0, max_tokens=max_tokens)
    start = time.perf_counter()
    first: float | None = None
    pieces = 0
    for _ in runtime.stream_chat([{"role": "user", "content": prompt}], params, threading.Event()):
        first = first or time.perf_counter()
        pieces += 1
    return {"ttft_s": round((first or time.perf_counter()) - start, 4), "pieces": pieces}


def _note_prompt(stats: RequestStats, runtime: LLMRuntime) -> None:
    """Copy the runtime's prompt figures (when it reports them) into the request's stats."""
    stats_of = getattr(runtime, "prompt_stats", None)
    prompt: PromptStats | None = stats_of() if callable(stats_of) else None
    if prompt is not None:
        stats.prompt_tokens = prompt.prompt_tokens
        stats.prompt_cached_tokens = prompt.cached_tokens
        stats.prompt_eval_s = prompt.eval_s
        if prompt.threads:
            stats.threads = prompt.threads
            stats.generation_threads = prompt.generation_threads
            stats.cores = prompt.cores
            stats.cores_busy = prompt.cores_busy


class ModelPool:
    """Every configured model, loaded once at start, with routing and per-model queues."""

    def __init__(self, slots: dict[str, ModelSlot], router: Router, mlock: dict[str, Any]) -> None:
        self.slots = slots
        self.router = router
        self.mlock = mlock
        # Called with (model name, stats) after every generation ends (metrics).
        self.observers: list[Callable[[str, RequestStats], None]] = []

    @classmethod
    def load(cls, settings: HearthSettings, plan: MemoryPlan) -> ModelPool:
        """Load every model (KV cache allocated now), warm it up, measure RSS growth."""
        plans = {p.name: p for p in plan.models}
        local = sum(p.total for p in plan.models if p.backend == "local")
        mlock = mlock_status(settings.llm.use_mlock, local)
        if mlock.get("warning"):
            log.warning("%s", mlock["warning"])
        slots: dict[str, ModelSlot] = {}
        try:
            for config in model_configs(settings):
                rss0, anon0, t0 = current_rss(), current_anon(), time.perf_counter()
                runtime = create_slot_runtime(settings, config)
                rss1, t1 = current_rss(), time.perf_counter()
                measured: dict[str, Any] = {
                    "load_s": round(t1 - t0, 3),
                    "rss_growth_after_load": rss1 - rss0,
                    # KV cache is allocated and cleared at context creation: it shows up here.
                    "anon_growth_after_load": current_anon() - anon0,
                }
                if settings.llm.warmup:
                    size = settings.llm.warmup_prompt_tokens
                    for label, tag in (("warmup_cold", "First"), ("warmup_warm", "Second")):
                        prompt = warmup_prompt(runtime, size, tag)
                        measured[label] = timed_generation(runtime, prompt)
                measured["rss_growth"] = current_rss() - rss0
                planned = plans[config.name].total
                if config.backend == "local" and planned:
                    measured["measured_vs_plan"] = round(measured["rss_growth"] / planned, 3)
                queue = FairQueue(
                    config.name, settings.llm.queue_size, settings.llm.request_timeout_s
                )
                slots[config.name] = ModelSlot(config, runtime, queue, plans[config.name], measured)
        except BaseException:
            for slot in slots.values():
                slot.runtime.close()
            raise
        return cls(slots, Router.from_settings(settings, list(slots)), mlock)

    @classmethod
    def of(cls, runtime: LLMRuntime, settings: HearthSettings) -> ModelPool:
        """A one-model pool around an already-built runtime (no plan, no warm-up)."""
        name = runtime.model_name
        config = ModelConfig(name, name, runtime.n_ctx, settings.llm.kv_type, "local", None)
        queue = FairQueue(name, settings.llm.queue_size, settings.llm.request_timeout_s)
        plan = ModelPlan(name, runtime.model_path, "local", runtime.n_ctx, config.kv_type)
        return cls(
            {name: ModelSlot(config, runtime, queue, plan)},
            Router([name], {}, None),
            mlock_status(False, 0),
        )

    def select(self, model: str | None = None, task: str | None = None) -> ModelSlot:
        """The slot a request goes to (by model name, else task route, else default)."""
        return self.slots[self.router.pick(model, task)]

    @property
    def default(self) -> ModelSlot:
        """The default model's slot."""
        return self.slots[self.router.default]

    def generate(
        self,
        slot: ModelSlot,
        ticket: Ticket,
        messages: list[ChatMessage],
        params: SamplingParams,
        stop: threading.Event,
        *,
        release: bool = True,
        until: Callable[[str], bool] | None = None,
    ) -> Iterator[str]:
        """Wait for the ticket's turn (unless it already has it), stream, record TTFT and speed,
        and free the place (``release=False`` keeps the turn for a next step of the same request,
        such as condensing a follow-up before answering it; the place is freed on any failure).
        ``until``, given the reply so far after each piece, ends the generation there when it
        says so: a normal end (outcome ``done``), the turn kept as after the last token."""
        stats = ticket.stats
        outcome = "done"
        try:
            if not ticket.running and not ticket.wait(stop):
                outcome = stats.outcome
                return
            start = time.perf_counter()
            first: float | None = None
            so_far: list[str] = []
            stream = slot.runtime.stream_chat(messages, params, stop)
            try:
                for piece in stream:
                    if first is None:
                        first = time.perf_counter()
                        stats.ttft_s = round(first - start, 4)
                        _note_prompt(stats, slot.runtime)
                    stats.tokens += 1
                    yield piece
                    if stop.is_set() or ticket.expired():
                        outcome = "cancelled" if stop.is_set() else "timeout"
                        break
                    if until is not None:
                        so_far.append(piece)
                        if until("".join(so_far)):
                            break
                else:  # the runtime ended its stream: stopped before a piece came (a remote one)
                    if stop.is_set():
                        outcome = "cancelled"
            finally:  # the runtime's generation ends now (its lock freed), not when collected
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
            if first is not None and stats.tokens > 1:
                stats.tokens_per_s = round(
                    (stats.tokens - 1) / max(time.perf_counter() - first, 1e-9), 2
                )
        except GeneratorExit:
            outcome = "cancelled"
            raise
        except Exception:
            outcome = "error"
            raise
        finally:
            if release or outcome != "done":
                self.finish(slot, ticket, outcome)

    def finish(self, slot: ModelSlot, ticket: Ticket, outcome: str = "done") -> None:
        """Free the ticket's place and report its figures (once): what ``generate`` does at its
        end, for a request that kept its turn (``release=False``) and then needed no next step."""
        ticket.release(outcome)
        if ticket.reported:
            return
        ticket.reported = True
        for observe in self.observers:
            observe(slot.config.name, ticket.stats)

    def snapshot(self) -> dict[str, Any]:
        """Per model: plan, measured memory, warm-up TTFTs and queue figures."""
        return {
            name: {
                "planned_bytes": s.plan.total,
                "measured": s.measured,
                "queue": s.queue.snapshot(),
            }
            for name, s in self.slots.items()
        }

    def close(self) -> None:
        """Free every model."""
        for slot in self.slots.values():
            slot.runtime.close()
