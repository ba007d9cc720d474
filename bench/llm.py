"""LLM runtime benchmark: raw llama-cpp-python versus Hearth's runtime, memory plan versus RSS,
cold versus warm time to first token. One run, the same prompt and settings for both paths.

    .venv/bin/python bench/llm.py                      # smollm2-135m (quick)
    .venv/bin/python bench/llm.py --model qwen2.5-coder-0.5b
    .venv/bin/python bench/llm.py --big                # qwen2.5-coder-1.5b (slow)
    .venv/bin/python bench/llm.py --json out.json      # also the figures as JSON

Runs alternate raw / Hearth so that the load of a shared machine hits both alike. Each run's system
message starts with its number so llama-cpp-python cannot reuse the previous run's KV prefix.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

# The repository first: run as a script, bench/ingest.py would shadow the ingest package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: F401 - offline switches first
from bench.figures import Figure, add_json_option, write_json
from core.bundled import resolve_llm
from core.memsize import current_rss, human
from core.settings import load_settings
from service.llm.base import ChatMessage, SamplingParams
from service.llm.planner import plan_from_settings
from service.llm.pool import ModelPool, timed_generation, warmup_prompt
from service.llm.runtimes.llama_cpp import LlamaCppRuntime, choose_chat_format
from service.llm.scripted import ScriptedRuntime

PASSAGE = (
    "The keeper of the Hearth lighthouse lit the lamp at dusk, counted the ships passing the "
    "cape, and wrote about the weather, the tides and the gulls on the rocks. "
)


def messages(run: int, prompt_words: int) -> list[ChatMessage]:
    """A RAG-like prompt of about ``prompt_words`` words; the run number leads the prompt."""
    body = (PASSAGE * (prompt_words // len(PASSAGE.split()) + 1)).split()[:prompt_words]
    return [
        {"role": "system", "content": f"Run {run}. Answer from the passage, citing [1]."},
        {"role": "user", "content": "[1] " + " ".join(body) + "\n\nWhat did the keeper do?"},
    ]


def measure(stream: Iterator[str]) -> dict[str, float]:
    """TTFT, tokens and tokens/s of one streamed generation (one piece per token)."""
    start = time.perf_counter()
    first = last = 0.0
    n = 0
    for _ in stream:
        last = time.perf_counter()
        first = first or last
        n += 1
    gen = max(last - first, 1e-9)
    return {"ttft_s": first - start, "tokens": n, "tok_s": (n - 1) / gen if n > 1 else 0.0}


def wrapper_overhead_s(settings: Any) -> float:
    """Seconds Hearth's pool.generate adds per token, measured with a zero-cost runtime."""
    echo = ScriptedRuntime(["x"] * 200_000, name="echo")  # pieces at once: no model cost
    pool = ModelPool.of(echo, settings)
    slot = pool.default
    start = time.perf_counter()
    for _ in echo.stream_chat([], SamplingParams(), threading.Event()):
        pass
    bare = time.perf_counter() - start
    start = time.perf_counter()
    for _ in pool.generate(slot, slot.queue.admit(), [], SamplingParams(), threading.Event()):
        pass
    return max(time.perf_counter() - start - bare, 0.0) / 200_000


def parser() -> argparse.ArgumentParser:
    """The command line of this bench."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--big", action="store_true", help="qwen2.5-coder-1.5b (slow)")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--prompt-words", type=int, default=350)
    ap.add_argument("--n-ctx", type=int, default=2048)
    add_json_option(ap)
    return ap


def run(args: argparse.Namespace) -> list[Figure]:
    """Run both paths, print the figures, return them."""
    settings = load_settings()
    settings.llm.model = "qwen2.5-coder-1.5b" if args.big else args.model
    settings.llm.n_ctx = args.n_ctx
    settings.llm.max_tokens = args.max_tokens
    threads = settings.llm.n_threads or os.cpu_count() or 1
    path = resolve_llm(settings.llm.model, settings.models_dir)
    plan = plan_from_settings(settings).models[0]
    params = SamplingParams(temperature=0.0, max_tokens=args.max_tokens, seed=0)
    print(
        f"model {settings.llm.model}, n_ctx {args.n_ctx}, {threads} threads, "
        f"~{args.prompt_words}-word prompt, {args.max_tokens} tokens, load {os.getloadavg()}"
    )

    # Hearth's runtime first, in a fresh process, so its RSS growth is its own.
    rss0 = current_rss()
    hearth_rt = LlamaCppRuntime(settings.llm.model, path, settings.llm)
    rss_load = current_rss() - rss0
    pool = ModelPool.of(hearth_rt, settings)
    slot = pool.default

    def hearth_run(run: int) -> dict[str, float]:
        ticket = slot.queue.admit()
        return measure(
            pool.generate(slot, ticket, messages(run, args.prompt_words), params, threading.Event())
        )

    # Hearth's warm-up, as the service runs it at start (a prompt of about n_ubatch tokens).
    prompt = warmup_prompt(hearth_rt, settings.llm.warmup_prompt_tokens, "First")
    hearth_cold = timed_generation(hearth_rt, prompt)
    rss_warm = current_rss() - rss0
    hearth_first = hearth_run(0)  # the first request after warm-up: a full prompt
    rss_used = current_rss() - rss0

    from llama_cpp import Llama

    raw = Llama(
        model_path=str(path),
        n_ctx=args.n_ctx,
        n_threads=threads,
        n_threads_batch=threads,
        n_batch=settings.llm.n_batch,
        n_ubatch=settings.llm.n_ubatch,
        chat_format=choose_chat_format({k: str(v) for k, v in hearth_rt.metadata.items()}, None),
        verbose=False,
    )

    def raw_run(run: int) -> dict[str, float]:
        stream: Any = raw.create_chat_completion(
            messages=cast(Any, messages(run, args.prompt_words)),
            temperature=0.0,
            max_tokens=args.max_tokens,
            seed=0,
            stream=True,
        )
        return measure(c for p in stream if (c := p["choices"][0]["delta"].get("content")))

    raws: list[dict[str, float]] = []
    hearths: list[dict[str, float]] = []
    raws.append(raw_run(1))  # raw's first request: cold
    for run in range(2, args.runs + 1):  # alternate the order so load hits both alike
        pair = (hearth_run, raw_run) if run % 2 else (raw_run, hearth_run)
        for fn in pair:
            (raws if fn is raw_run else hearths).append(fn(run))

    def med(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    raw_tps, hearth_tps = med(raws[1:], "tok_s"), med(hearths, "tok_s")
    raw_ttft, hearth_ttft = med(raws[1:], "ttft_s"), med(hearths, "ttft_s")
    print("\n                    tokens/s   TTFT (s)   [median of runs 2..n]")
    print(f"raw llama-cpp       {raw_tps:8.1f}   {raw_ttft:8.3f}")
    print(f"Hearth runtime      {hearth_tps:8.1f}   {hearth_ttft:8.3f}")
    # Each run's pair saw the same prompt back to back: the median of per-pair ratios is the
    # figure least disturbed by other load on a shared machine.
    pairs = list(zip(raws[1:], hearths, strict=False))
    tps_ratio = statistics.median(h["tok_s"] / r["tok_s"] for r, h in pairs)
    ttft_ratio = statistics.median(r["ttft_s"] / h["ttft_s"] for r, h in pairs)
    print(
        f"ratio Hearth/raw    {tps_ratio:8.3f}   {ttft_ratio:8.3f}"
        "   (median per-pair; goal >= 0.97; TTFT ratio is raw/Hearth)"
    )
    per_token = wrapper_overhead_s(settings)
    print(
        f"Hearth's queue+stats cost per token {per_token * 1e6:.2f} us = "
        f"{per_token * raw_tps * 100:.4f}% of a token at the raw speed (a load-independent "
        f"bound on the ratio: {1 / (1 + per_token * raw_tps):.4f})"
    )
    print(
        "\nmemory of Hearth's model: planned "
        f"{human(plan.total)} (weights {human(plan.weights)}, repacked {human(plan.repacked)}, "
        f"KV {human(plan.kv_cache)}, "
        f"compute {human(plan.compute + plan.output)})"
    )
    print(f"  RSS growth after load      {human(rss_load)}  ({rss_load / plan.total:.2f} of plan)")
    print(f"  after a short generation   {human(rss_warm)}  ({rss_warm / plan.total:.2f} of plan)")
    print(
        f"  after a full-prompt answer {human(rss_used)}  ({rss_used / plan.total:.2f} of plan;"
        " goal within 10%)"
    )
    print("\ncold vs warm time to first token")
    print(f"  Hearth warm-up generation at start (cold)   {hearth_cold['ttft_s']:.3f} s")
    print(f"  raw: first request (cold)     {raws[0]['ttft_s']:.3f} s, later {raw_ttft:.3f} s")
    print(
        f"  Hearth: first request after warm-up {hearth_first['ttft_s']:.3f} s, "
        f"later {hearth_ttft:.3f} s"
    )
    print(
        f"  tokens per answer: raw {[r['tokens'] for r in raws]}, "
        f"Hearth {[r['tokens'] for r in hearths]}"
    )
    print(f"load average at the end {os.getloadavg()} (2 cores shared: figures vary with it)")
    hearth_rt.close()
    raw.close()
    sec = f"llm {settings.llm.model}"
    note = (
        f"median of {len(hearths)} runs, {args.max_tokens} tokens, ~{args.prompt_words}-word prompt"
    )
    return [
        Figure(
            sec,
            "tokens/s",
            hearth_tps,
            "tokens/s",
            raw_tps,
            tps_ratio,
            "higher",
            note + "; ratio = median per-pair",
        ),
        Figure(
            sec,
            "TTFT",
            hearth_ttft,
            "s",
            raw_ttft,
            statistics.median(h["ttft_s"] / r["ttft_s"] for r, h in pairs),
            "lower",
            note + "; ratio = median per-pair",
        ),
        Figure(
            sec,
            "TTFT first request (cold)",
            hearth_first["ttft_s"],
            "s",
            raws[0]["ttft_s"],
            better="lower",
            note="Hearth after its start-up warm-up; raw without",
        ),
        Figure(
            sec,
            "queue+stats bound on tokens/s ratio",
            1 / (1 + per_token * raw_tps),
            better="higher",
            note=f"{per_token * 1e6:.2f} us per token, load-independent",
        ),
        Figure(
            sec,
            "RSS growth / memory plan",
            rss_used / plan.total,
            "share",
            note=f"plan {human(plan.total)}; goal within 10%",
        ),
    ]


def main() -> None:
    """Parse flags, run both paths, print the figures."""
    args = parser().parse_args()
    write_json(args.json, run(args))


if __name__ == "__main__":
    main()
