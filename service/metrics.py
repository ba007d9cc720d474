"""Prometheus metrics: requests by route and status, LLM speed and threads, queues, ingest,
memory, and the cores other programs keep busy.

One registry per app (no process-global state). Request counts and generation figures are
observed as they happen; queue depth, catalogue and ledger counts and memory are read at scrape.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector

from core import catalogue
from core.memsize import current_rss
from core.threads import budget
from service.llm.queue import RequestStats

if TYPE_CHECKING:
    from service.state import Hearth

CONTENT_TYPE = CONTENT_TYPE_LATEST
TTFT_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60)
SPEED_BUCKETS = (1, 2, 5, 10, 15, 20, 30, 45, 60, 80, 120, 200)
STEP_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5)
WAIT_BUCKETS = (0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120)


class Metrics:
    """The service's metrics registry and the instruments the request path updates."""

    def __init__(self) -> None:
        disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "hearth_http_requests",
            "HTTP requests by route template, method and status code.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.ttft = Histogram(
            "hearth_llm_time_to_first_token_seconds",
            "Time from a generation's turn in the queue to its first token.",
            ["model"],
            buckets=TTFT_BUCKETS,
            registry=self.registry,
        )
        self.speed = Histogram(
            "hearth_llm_tokens_per_second",
            "Generation speed after the first token.",
            ["model"],
            buckets=SPEED_BUCKETS,
            registry=self.registry,
        )
        self.wait = Histogram(
            "hearth_llm_queue_wait_seconds",
            "Time a generation waited in its model's queue.",
            ["model"],
            buckets=WAIT_BUCKETS,
            registry=self.registry,
        )
        self.retrieval = Histogram(
            "hearth_answer_retrieval_seconds",
            "Retrieval of an answer's passages (search and fitting them to the budget).",
            ["model"],
            buckets=STEP_BUCKETS,
            registry=self.registry,
        )
        self.condense = Histogram(
            "hearth_answer_condense_seconds",
            "Rewriting a follow-up as a standalone question (follow-ups only).",
            ["model"],
            buckets=TTFT_BUCKETS,
            registry=self.registry,
        )
        self.prompt_eval = Histogram(
            "hearth_llm_prompt_eval_seconds",
            "Evaluation of an answer prompt's new tokens (most of the time to first token).",
            ["model"],
            buckets=TTFT_BUCKETS,
            registry=self.registry,
        )
        self.prompt_tokens = Counter(
            "hearth_llm_prompt_tokens",
            "Prompt tokens of answers: reused from the KV cache (cached) or evaluated (new).",
            ["model", "kind"],
            registry=self.registry,
        )
        self.generations = Counter(
            "hearth_llm_generations",
            "Generations by model and outcome (done, cancelled, timeout, error).",
            ["model", "outcome"],
            registry=self.registry,
        )
        self.threads = Gauge(
            "hearth_llm_threads",
            "llama.cpp threads of the last answer: reading its prompt, then generating.",
            ["model", "phase"],
            registry=self.registry,
        )
        self.cores_busy = Gauge(
            "hearth_llm_cores_busy_elsewhere",
            "Cores other programs kept busy when the last answer started (of hearth_cpu_cores).",
            ["model"],
            registry=self.registry,
        )
        ProcessCollector(namespace="hearth", registry=self.registry)

    def observe_generation(self, model: str, stats: RequestStats) -> None:
        """Record one finished generation (a ``ModelPool`` observer)."""
        self.generations.labels(model, stats.outcome).inc()
        self.wait.labels(model).observe(stats.wait_s)
        if stats.ttft_s is not None:
            self.ttft.labels(model).observe(stats.ttft_s)
        if stats.tokens_per_s:
            self.speed.labels(model).observe(stats.tokens_per_s)
        if stats.retrieval_s is not None:
            self.retrieval.labels(model).observe(stats.retrieval_s)
        if stats.condense_s:
            self.condense.labels(model).observe(stats.condense_s)
        if stats.prompt_eval_s is not None:
            self.prompt_eval.labels(model).observe(stats.prompt_eval_s)
        if stats.prompt_tokens is not None:
            cached = stats.prompt_cached_tokens or 0
            self.prompt_tokens.labels(model, "cached").inc(cached)
            self.prompt_tokens.labels(model, "new").inc(max(stats.prompt_tokens - cached, 0))
        if stats.threads:
            self.threads.labels(model, "prompt").set(stats.threads)
            self.threads.labels(model, "generation").set(stats.generation_threads or 0)
            self.cores_busy.labels(model).set(stats.cores_busy or 0.0)

    def bind(self, hearth: Hearth) -> None:
        """Observe this Hearth's models and read its state at every scrape."""
        hearth.pool.observers.append(self.observe_generation)
        self.registry.register(HearthCollector(hearth))

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)


class HearthCollector(Collector):
    """Figures read when scraped: queues, memory plan and RSS, catalogue and ingest ledger."""

    def __init__(self, hearth: Hearth) -> None:
        self.hearth = hearth

    def describe(self) -> list[Metric]:
        """Nothing up front: the metric names depend on what is read at scrape."""
        return []

    def collect(self) -> Iterator[Metric]:
        """Every scrape-time metric."""
        yield from self._queues()
        yield from self._cores()
        yield from self._memory()
        yield from self._catalogue()

    def _queues(self) -> Iterator[Metric]:
        waiting = GaugeMetricFamily(
            "hearth_llm_queue_depth", "Requests waiting for a model.", labels=["model"]
        )
        running = GaugeMetricFamily(
            "hearth_llm_queue_running", "1 while the model generates.", labels=["model"]
        )
        rejected = CounterMetricFamily(
            "hearth_llm_queue_rejected", "Requests refused (429) by a full queue.", labels=["model"]
        )
        for name, slot in self.hearth.pool.slots.items():
            snap = slot.queue.snapshot()
            waiting.add_metric([name], snap["waiting"])
            running.add_metric([name], 1 if snap["running"] else 0)
            rejected.add_metric([name], snap["rejected"])
        yield from (waiting, running, rejected)

    def _cores(self) -> Iterator[Metric]:
        load = budget().load()
        cores = GaugeMetricFamily("hearth_cpu_cores", "Cores this process may use (threads.cores).")
        cores.add_metric([], load.cores)
        busy = GaugeMetricFamily(
            "hearth_cpu_cores_busy_elsewhere",
            "Cores other programs kept busy over the last second (/proc/stat less Hearth's own).",
        )
        busy.add_metric([], round(load.busy, 2))
        free = GaugeMetricFamily(
            "hearth_cpu_cores_free", "Cores an answer may take now (threads.adaptive)."
        )
        free.add_metric([], load.free)
        yield from (cores, busy, free)

    def _memory(self) -> Iterator[Metric]:
        rss = GaugeMetricFamily("hearth_memory_rss_bytes", "Resident set size of the process now.")
        rss.add_metric([], current_rss())
        yield rss
        plan = self.hearth.plan
        if plan is None:
            return
        planned = GaugeMetricFamily(
            "hearth_memory_planned_bytes",
            "Memory planned at start, by part (total, and each model).",
            labels=["part"],
        )
        planned.add_metric(["total"], plan.total)
        for model in plan.models:
            planned.add_metric([f"model:{model.name}"], model.total)
        budget = GaugeMetricFamily("hearth_memory_budget_bytes", "The memory budget.")
        budget.add_metric([], plan.budget)
        yield from (planned, budget)

    def _catalogue(self) -> Iterator[Metric]:
        with self.hearth.kb.db.session() as s:
            by_status = catalogue.status_counts(s).items()
            chunks = catalogue.chunk_count(s)
            by_action = catalogue.action_counts(s).items()
        docs = GaugeMetricFamily(
            "hearth_documents", "Documents in the catalogue by status.", labels=["status"]
        )
        for status, count in by_status:
            docs.add_metric([status], count)
        chunk_gauge = GaugeMetricFamily("hearth_chunks", "Chunks in the catalogue.")
        chunk_gauge.add_metric([], chunks)
        ingest = CounterMetricFamily(
            "hearth_ingest_files",
            "Files processed by ingest (every process), by outcome: added, updated, unchanged, "
            "empty, failed (from the ingest ledger).",
            labels=["action"],
        )
        for action, count in by_action:
            ingest.add_metric([action], count)
        yield from (docs, chunk_gauge, ingest)
