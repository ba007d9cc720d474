"""`hearth models bench`: the table a person uses to choose a model.

For every bundled model and every configured one, loaded one at a time and freed before the next:
load time, memory planned (from the GGUF header, service/llm/planner.py) and measured (RSS growth
of this process from before the load to after the runs), prompt and generation tokens/s and time
to first token on the fixed RAG prompt (fixed_prompt.py; the second of two runs, so the first
run's one-off costs are not counted), whether that answer names the expected facts, and, with a
gold set, answer quality (containment, abstention) on a small sample of it. A model whose file is
not there (a split model not assembled, a package not installed) gets a "not installed" row.
"""

from __future__ import annotations

import gc
import json
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.bundled import LLM_NAMES, PACKAGED, SPLIT_GGUFS, assembled_ok, package_dir
from core.errors import HearthError
from core.evalmetrics import answer_contains
from core.memsize import current_rss, human
from core.settings import HearthSettings
from service.evaluation.fixed_prompt import EXPECTED, fixed_messages
from service.evaluation.gold import GoldSet, attach_answers, load_gold
from service.llm.base import LLMRuntime, ModelConfig, SamplingParams
from service.llm.config import model_configs

#: Tokens generated on the fixed prompt.
GEN_TOKENS = 64
#: Gold questions answered per model by default.
BENCH_ANSWERS = 10


@dataclass
class ModelRow:
    """One model's figures (None where not measured)."""

    name: str
    model: str
    status: str  # ok, not installed, remote, error
    detail: str = ""
    path: str | None = None
    quantization: str | None = None
    load_s: float | None = None
    planned_bytes: int | None = None
    measured_bytes: int | None = None
    prompt_tokens: int | None = None
    prompt_tokens_per_s: float | None = None
    generated_tokens: int | None = None
    generation_tokens_per_s: float | None = None
    ttft_s: float | None = None
    fixed_answer: str | None = None
    fixed_answer_correct: bool | None = None
    quality: dict[str, Any] | None = field(default=None)


def candidates(settings: HearthSettings) -> list[ModelConfig]:
    """Every bundled model, then every configured model that is not one of them."""
    llm = settings.llm
    configured = {c.name: c for c in model_configs(settings)}
    rows = [
        configured.get(n) or ModelConfig(n, n, llm.n_ctx, llm.kv_type, "local", None)
        for n in LLM_NAMES
    ]
    rows += [c for n, c in configured.items() if n not in LLM_NAMES]
    return rows


def installed_path(config: ModelConfig, settings: HearthSettings) -> Path | None:
    """The model file when it is there (never assembles a split model)."""
    if config.model in SPLIT_GGUFS:
        split = SPLIT_GGUFS[config.model]
        ok = assembled_ok(split, settings.models_dir)
        return settings.models_dir / split.filename if ok else None
    if config.model in PACKAGED:
        base = package_dir(PACKAGED[config.model].package)
        path = base / PACKAGED[config.model].relative if base else None
        return path if path and path.exists() else None
    path = Path(config.model).expanduser()
    return path if path.is_file() else None


def time_fixed_prompt(runtime: LLMRuntime, tag: str, seed: int) -> dict[str, Any]:
    """TTFT, prompt tokens/s (prompt tokens / TTFT) and generation tokens/s on the fixed prompt."""
    messages = fixed_messages(tag)
    prompt_tokens = sum(runtime.count_tokens(m["content"]) for m in messages)
    params = SamplingParams(temperature=0.0, top_p=1.0, max_tokens=GEN_TOKENS, seed=seed)
    pieces: list[str] = []
    start = time.perf_counter()
    first: float | None = None
    for piece in runtime.stream_chat(messages, params, threading.Event()):
        first = first or time.perf_counter()
        pieces.append(piece)
    end = time.perf_counter()
    text = "".join(pieces)
    generated = runtime.count_tokens(text) if text else 0
    ttft = (first or end) - start
    return {
        "ttft_s": round(ttft, 4),
        "prompt_tokens": prompt_tokens,
        "prompt_tokens_per_s": round(prompt_tokens / ttft, 1) if ttft > 0 else None,
        "generated_tokens": generated,
        "generation_tokens_per_s": (
            round((generated - 1) / (end - first), 2) if first and generated > 1 else None
        ),
        "answer": text.strip(),
    }


def bench_model(
    settings: HearthSettings,
    config: ModelConfig,
    gold: GoldSet | None,
    answers: int,
    embedder: Any,
) -> ModelRow:
    """Load one model, time it, score it on the gold sample, free it."""
    from service.evaluation.runner import EvalOptions, Evaluation, settings_for_model
    from service.llm.planner import plan_model
    from service.llm.pool import create_slot_runtime

    row = ModelRow(config.name, config.model, "ok")
    if config.backend != "local":
        row.status, row.detail = "remote", f"served by {config.url}; not benched"
        return row
    path = installed_path(config, settings)
    if path is None:
        row.status = "not installed"
        row.detail = (
            "run `hearth models assemble`" if config.model in SPLIT_GGUFS else "file missing"
        )
        return row
    row.path = str(path)
    n_ubatch = min(settings.llm.n_batch, settings.llm.n_ubatch)
    plan = plan_model(config, path, n_ubatch)
    row.planned_bytes, row.quantization = plan.total, plan.quantization
    gc.collect()
    rss0, t0 = current_rss(), time.perf_counter()
    runtime = create_slot_runtime(settings, config)
    try:
        row.load_s = round(time.perf_counter() - t0, 3)
        time_fixed_prompt(runtime, "Run 1.", settings.llm.seed)  # one-off costs (first run)
        timed = time_fixed_prompt(runtime, "Run 2.", settings.llm.seed)
        row.measured_bytes = current_rss() - rss0
        row.ttft_s = timed["ttft_s"]
        row.prompt_tokens = timed["prompt_tokens"]
        row.prompt_tokens_per_s = timed["prompt_tokens_per_s"]
        row.generated_tokens = timed["generated_tokens"]
        row.generation_tokens_per_s = timed["generation_tokens_per_s"]
        row.fixed_answer = timed["answer"]
        row.fixed_answer_correct = all(answer_contains(timed["answer"], e) for e in EXPECTED)
        if gold is not None and answers > 0:
            opts = EvalOptions(answers=answers, retrieval=False, progress=False)
            report = Evaluation(
                settings_for_model(settings, config.name),
                gold,
                opts,
                embedder=embedder,
                runtime=runtime,
            ).run()
            if report.answers:
                row.quality = {k: v for k, v in report.answers.items() if k != "samples"}
    finally:
        runtime.close()
        del runtime
        gc.collect()
    return row


@dataclass
class BenchReport:
    """Every row, and what it was measured on."""

    rows: list[ModelRow]
    gold: str | None
    seconds: float
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "version": 1,
            "created": self.created,
            "gold": self.gold,
            "gen_tokens": GEN_TOKENS,
            "seconds": self.seconds,
            "models": [asdict(r) for r in self.rows],
        }

    def to_json(self) -> str:
        """Indented JSON."""
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)

    def table(self) -> str:
        """A markdown table, one row per model."""
        head = (
            "| model | status | quant | load s | memory planned | memory measured | "
            "prompt tok/s | gen tok/s | TTFT s | fixed answer | containment | abstention acc |"
        )
        lines = [head, "|" + "---|" * 12]
        for r in self.rows:
            q = r.quality or {}
            lines.append(
                "| "
                + " | ".join(
                    [
                        r.name,
                        r.status + (f" ({r.detail})" if r.detail else ""),
                        r.quantization or "-",
                        _num(r.load_s, 2),
                        human(r.planned_bytes) if r.planned_bytes else "-",
                        human(r.measured_bytes) if r.measured_bytes else "-",
                        _num(r.prompt_tokens_per_s, 1),
                        _num(r.generation_tokens_per_s, 1),
                        _num(r.ttft_s, 2),
                        "-"
                        if r.fixed_answer_correct is None
                        else ("right" if r.fixed_answer_correct else "wrong"),
                        _num(q.get("containment"), 2),
                        _num(q.get("abstention_accuracy"), 2),
                    ]
                )
                + " |"
            )
        notes = [
            "",
            f"Fixed RAG prompt: 3 passages + question, {GEN_TOKENS} tokens generated, greedy; "
            "the second of two runs. Measured memory: RSS growth over the load and both runs.",
        ]
        if self.gold:
            notes.append(f"Quality: answers on a sample of {self.gold}.")
        return "\n".join(lines + notes)


def _num(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def run_bench(
    settings: HearthSettings,
    models: list[str] | None,
    gold_path: Path | None,
    answers: int = BENCH_ANSWERS,
    answers_from: Path | None = None,
) -> BenchReport:
    """Bench the chosen (default: every) model, one at a time (answer quality on a sample of the
    gold set, with expected answers from ``answers_from`` for a BEIR set)."""
    from core.embedder import create_embedder
    from core.errors import InvalidInputError

    started = time.perf_counter()
    configs = candidates(settings)
    if models:
        known = {c.name for c in configs}
        unknown = [m for m in models if m not in known]
        if unknown:
            raise InvalidInputError(
                f"models: {', '.join(unknown)} not known (models: {', '.join(sorted(known))})",
                field="models",
            )
        configs = [c for c in configs if c.name in models]
    gold = load_gold(gold_path) if gold_path is not None else None
    if gold is not None and answers_from is not None:
        attach_answers(gold, answers_from)
    embedder = create_embedder(settings.embedder) if gold is not None else None
    rows = []
    for config in configs:
        try:
            rows.append(bench_model(settings, config, gold, answers, embedder))
        except HearthError as exc:
            rows.append(ModelRow(config.name, config.model, "error", exc.message))
    return BenchReport(
        rows, str(gold_path) if gold_path else None, round(time.perf_counter() - started, 2)
    )
