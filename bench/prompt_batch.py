"""Prompt evaluation against llama.cpp's batch sizes and threads: which ``llm.n_batch`` /
``llm.n_ubatch`` and thread count read an answer's prompt fastest on this machine, and what each
costs in the memory plan (the compute buffer grows with ``n_ubatch``).

Raw llama-cpp-python (no Hearth code on the timed path), the default model, a prompt of
squad_dev paragraphs cut to ``--tokens`` tokens, evaluated from an empty context ``--runs`` times
per setting (median). Settings are taken in turn, round after round, so each sees the same load.

    .venv/bin/python bench/prompt_batch.py [--tokens 450] [--batches 64,128,256,512]
        [--threads 1,2] [--runs 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, load_beir


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=450, help="prompt length (tokens)")
    ap.add_argument("--batches", default="64,128,256,512", help="n_batch = n_ubatch values")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not (SHARED / "retrieval" / "squad_dev").is_dir():
        sys.exit(f"shared data not found at {SHARED}")
    import llama_cpp

    from core.bundled import resolve_llm
    from core.settings import load_settings
    from service.llm.config import model_configs
    from service.llm.planner import plan_model

    settings = load_settings()
    name = settings.llm.model
    path = resolve_llm(name, settings.models_dir)
    beir = load_beir(SHARED / "retrieval" / "squad_dev")
    text = "\n\n".join(doc["text"] for doc in list(beir.corpus.values())[:12])
    batches = [int(b) for b in args.batches.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    models: dict[int, Any] = {}
    for b in batches:
        models[b] = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=2048,
            n_batch=b,
            n_ubatch=b,
            n_threads=threads[0],
            n_threads_batch=threads[0],
            verbose=False,
        )
    tokens = models[batches[0]].tokenize(text.encode())[: args.tokens]
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    times: dict[tuple[int, int], list[float]] = {(b, t): [] for b in batches for t in threads}
    for _ in range(args.runs):
        for b in batches:
            for t in threads:
                llm = models[b]
                llm._ctx.set_n_threads(t, t)
                llm.reset()
                llm._ctx.kv_cache_clear()
                started = time.perf_counter()
                llm.eval(tokens)
                times[(b, t)].append(time.perf_counter() - started)
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    config = next(c for c in model_configs(settings) if c.model == name)
    rows = []
    for (b, t), ts in times.items():
        plan = plan_model(config, path, b)
        sec = statistics.median(ts)
        rows.append(
            {
                "n_batch": b,
                "threads": t,
                "prompt_s": sec,
                "tok_s": len(tokens) / sec,
                "compute_mib": plan.compute / 2**20,
            }
        )
    print(f"\n# Prompt evaluation, {name}, {len(tokens)} tokens, median of {args.runs}\n")
    print("| n_batch = n_ubatch | threads | prompt s | tokens/s | compute buffer MiB |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['n_batch']} | {r['threads']} | {r['prompt_s']:.2f} | {r['tok_s']:.1f} "
            f"| {r['compute_mib']:.0f} |"
        )
    print(f"\nload before: {load_before}\nload after: {load_after}")
    if args.json:
        args.json.write_text(json.dumps({"model": name, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
