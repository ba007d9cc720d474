"""Prompt lookup decoding against plain decoding on this machine: generation tokens/s and
whether the temperature-0 output is identical (issue 19: ship it only if faster, and the same).

Raw llama-cpp-python with its ``LlamaPromptLookupDecoding`` draft model (draft tokens copied from
n-grams of the prompt, ``--draft`` of them a step), the default model, answers to squad_dev
questions over their own paragraph (answers copy from the prompt: the best case for lookup).
Plain and lookup are taken in turn for each question, each from an empty context. TTFT is
printed too: with a draft model llama-cpp-python asks for logits at every prompt position
(``logits_all``), which costs prompt evaluation.

    .venv/bin/python bench/lookup.py [--questions 4] [--draft 2,10] [--max-tokens 96]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, load_beir


def generate(
    llm: Any, messages: list[dict[str, str]], max_tokens: int
) -> tuple[str, float, int, float]:
    """(text, seconds after the first token, tokens after the first, seconds to the first)."""
    llm.reset()
    llm._ctx.kv_cache_clear()
    start = time.perf_counter()
    first = None
    pieces: list[str] = []
    for part in llm.create_chat_completion(
        messages=messages, temperature=0.0, max_tokens=max_tokens, stream=True, seed=0
    ):
        piece = part["choices"][0]["delta"].get("content")
        if piece:
            if first is None:
                first = time.perf_counter()
            pieces.append(piece)
    end = time.perf_counter()
    return "".join(pieces), end - (first or end), max(len(pieces) - 1, 0), (first or end) - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=4)
    ap.add_argument("--draft", default="2,10", help="draft tokens per step, comma-separated")
    ap.add_argument("--max-tokens", type=int, default=96)
    args = ap.parse_args()
    if not (SHARED / "retrieval" / "squad_dev").is_dir():
        sys.exit(f"shared data not found at {SHARED}")
    import llama_cpp
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    from core.bundled import resolve_llm
    from core.settings import load_settings

    settings = load_settings()
    path = str(resolve_llm(settings.llm.model, settings.models_dir))
    common: dict[str, Any] = {"model_path": path, "n_ctx": 2048, "verbose": False}
    modes: dict[str, Any] = {"plain": llama_cpp.Llama(**common)}
    for n in (int(d) for d in args.draft.split(",")):
        draft = LlamaPromptLookupDecoding(num_pred_tokens=n)
        modes[f"lookup {n}"] = llama_cpp.Llama(**common, draft_model=draft)
    beir = load_beir(SHARED / "retrieval" / "squad_dev")
    ids = list(beir.queries)[:: max(1, len(beir.queries) // args.questions)][: args.questions]
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    speeds: dict[str, list[float]] = {m: [] for m in modes}
    ttfts: dict[str, list[float]] = {m: [] for m in modes}
    same: dict[str, int] = {m: 0 for m in modes}
    for qid in ids:
        context = beir.corpus[next(iter(beir.qrels[qid]))]["text"]
        messages = [
            {"role": "system", "content": "Answer from the passage in two sentences."},
            {"role": "user", "content": f"{context}\n\nQuestion: {beir.queries[qid]}"},
        ]
        texts = {}
        for mode, llm in modes.items():
            text, seconds, tokens, ttft = generate(llm, messages, args.max_tokens)
            texts[mode] = text
            speeds[mode].append(tokens / seconds if seconds else 0.0)
            ttfts[mode].append(ttft)
        for mode in modes:
            same[mode] += texts[mode] == texts["plain"]
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    plain = statistics.median(speeds["plain"])
    plain_ttft = statistics.median(ttfts["plain"])
    print(f"\n# Prompt lookup decoding, {settings.llm.model}, {len(ids)} questions\n")
    print(
        "| mode | generation tok/s p50 | vs plain | TTFT p50 s | vs plain "
        "| output identical to plain |"
    )
    print("|---|---|---|---|---|---|")
    for mode in modes:
        p50 = statistics.median(speeds[mode])
        t50 = statistics.median(ttfts[mode])
        print(
            f"| {mode} | {p50:.1f} | {p50 / plain:.2f} | {t50:.2f} | {t50 / plain_ttft:.2f} "
            f"| {same[mode]}/{len(ids)} |"
        )
    print(f"\nload before: {load_before}\nload after: {load_after}")


if __name__ == "__main__":
    main()
