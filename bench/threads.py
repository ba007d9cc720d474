"""An answer and an ingest at once: the core budget (core/threads.py) against every component
taking every core (the libraries' defaults), in one process, as the server with its watcher.

Four phases on the same machine, one after the other:

- ``answer alone``: the default model answers the questions (TTFT, generation tokens/s);
- ``ingest alone``: the real ingest pipeline reads text files (chunks/s);
- ``both, every core``: ingest runs in a thread while the same questions are answered, every
  component on every core (``threads.share = false``: llama.cpp and torch both take all cores);
- ``both, budget``: the same with the budget (``threads.share = true``, the default): while both
  run, llama.cpp keeps ``threads.answer_cores`` and ingest the rest.

Each answer's prompt is evaluated from scratch (the context is reset), so every phase reads the
same number of tokens. Text ingest exercises the embedder (torch); Whisper and OCR fix their
threads when loaded and are not part of this run. Files are squad_dev paragraphs, questions are
squad_dev questions over a prompt of their own paragraphs (~600 tokens).

    .venv/bin/python bench/threads.py [--questions 4] [--max-tokens 48] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SHARED, load_beir


def _prompt(question: str, passages: list[str]) -> list[dict[str, str]]:
    context = "\n\n".join(f"[{i}] {p}" for i, p in enumerate(passages, start=1))
    return [
        {"role": "system", "content": "Answer from the passages only, citing them as [n]."},
        {"role": "user", "content": f"{context}\n\nQuestion: {question}"},
    ]


class Ingester:
    """Ingests new text files in a thread until stopped (or ``limit`` files); counts the chunks
    stored. Each file is a squad_dev paragraph with a numbered first line, so none is skipped as
    already known."""

    def __init__(self, pipeline: Any, texts: list[str], folder: Path, limit: int = 0) -> None:
        self.pipeline = pipeline
        self.texts = texts
        self.folder = folder
        self.limit = limit
        self.chunks = 0
        self.files = 0
        self.elapsed = 0.0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        folder.mkdir(parents=True, exist_ok=True)

    def _run(self) -> None:
        n = 0
        while not self.stop.is_set() and (not self.limit or self.files < self.limit):
            batch = []
            for _ in range(8):
                f = self.folder / f"note{n:05d}.txt"
                f.write_text(f"Note {n}\n\n{self.texts[n % len(self.texts)]}")
                batch.append(f)
                n += 1
            report = self.pipeline.ingest(batch)
            self.chunks += report.chunks
            self.files += len(batch)

    def __enter__(self) -> Ingester:
        self.started = time.perf_counter()
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.elapsed = time.perf_counter() - self.started

    @property
    def rate(self) -> float:
        return self.chunks / self.elapsed if self.elapsed else 0.0


def answer(runtime: Any, messages: list[dict[str, str]], max_tokens: int) -> dict[str, float]:
    """One answer from scratch: TTFT (s), generated tokens, generation tokens/s."""
    from service.llm.base import SamplingParams

    runtime._llm.reset()  # the whole prompt evaluated, as in every phase
    params = SamplingParams(temperature=0.0, top_p=1.0, max_tokens=max_tokens, seed=0)
    started = time.perf_counter()
    first = None
    pieces = 0
    for _ in runtime.stream_chat(messages, params, threading.Event()):
        pieces += 1
        if first is None:
            first = time.perf_counter()
    end = time.perf_counter()
    ttft = (first or end) - started
    stats = runtime.prompt_stats()
    return {
        "ttft_s": ttft,
        "pieces": pieces,
        "gen_tok_s": (pieces - 1) / (end - first) if first and pieces > 1 else 0.0,
        "prompt_tokens": float(stats.prompt_tokens) if stats else 0.0,
    }


def load() -> str:
    """``uptime``'s load averages."""
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def phase(runtime: Any, prompts: list[Any], max_tokens: int) -> dict[str, float]:
    rows = [answer(runtime, p, max_tokens) for p in prompts]
    return {
        "ttft_p50_s": statistics.median(r["ttft_s"] for r in rows),
        "gen_tok_s_p50": statistics.median(r["gen_tok_s"] for r in rows),
        "prompt_tokens_p50": statistics.median(r["prompt_tokens"] for r in rows),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--files", type=int, default=160, help="files ingested alone")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not (SHARED / "retrieval" / "squad_dev").is_dir():
        sys.exit(f"shared data not found at {SHARED}")
    from core.bundled import resolve_llm
    from core.embedder import create_embedder
    from core.knowledge import KnowledgeBase
    from core.settings import load_settings
    from core.threads import budget, configure
    from ingest.pipeline import IngestPipeline
    from service.llm.runtimes.llama_cpp import LlamaCppRuntime

    beir = load_beir(SHARED / "retrieval" / "squad_dev")
    ids = list(beir.queries)
    step = max(1, len(ids) // args.questions)
    prompts = []
    for qid in ids[::step][: args.questions]:
        passages = [beir.corpus[d]["text"] for d in beir.qrels[qid]][:1]
        near = [d for d in beir.corpus if d not in beir.qrels[qid]][:3]
        passages += [beir.corpus[d]["text"] for d in near]
        prompts.append(_prompt(beir.queries[qid], passages))
    texts = [doc["text"] for doc in beir.corpus.values()]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings = load_settings(data_dir=root / "data")
        settings.llm.prompt_cache_mib = 0  # no saved states: every answer reads its prompt
        embedder = create_embedder(settings.embedder)
        embedder.embed(["warm up", "the embedder"])
        model = settings.llm.model
        runtime = LlamaCppRuntime(model, resolve_llm(model, settings.models_dir), settings.llm)
        answer(runtime, prompts[0], 4)  # warm the model's pages
        print(f"model {model}; cores {budget().cores}; load before: {load()}", flush=True)
        out: dict[str, Any] = {"model": model, "cores": budget().cores, "load_before": load()}
        out["answer alone"] = phase(runtime, prompts, args.max_tokens)
        print("answer alone", out["answer alone"], flush=True)
        kb = KnowledgeBase(settings)
        pipeline = IngestPipeline(kb, embedder)
        with Ingester(pipeline, texts, root / "alone", limit=args.files) as alone:
            alone.thread.join()
        out["ingest alone"] = {"chunks_per_s": alone.rate}
        print("ingest alone", out["ingest alone"], flush=True)
        for name, share in (("both, every core", False), ("both, budget", True)):
            configure(share=share)
            with Ingester(pipeline, texts, root / name.replace(" ", "").replace(",", "")) as ing:
                time.sleep(1.0)  # ingest under way before the first question
                figures = phase(runtime, prompts, args.max_tokens)
            out[name] = {**figures, "chunks_per_s": ing.rate}
            print(name, out[name], flush=True)
        configure()
        kb.close()
        runtime.close()
    out["load_after"] = load()
    report(out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


def report(out: dict[str, Any]) -> None:
    print(f"\n# An answer and an ingest at once ({out['model']}, {out['cores']} cores)\n")
    print("| phase | TTFT p50 s | generation tok/s p50 | prompt tokens | ingest chunks/s |")
    print("|---|---|---|---|---|")
    for name in ("answer alone", "ingest alone", "both, every core", "both, budget"):
        r = out[name]
        ttft = f"{r['ttft_p50_s']:.2f}" if "ttft_p50_s" in r else ""
        gen = f"{r['gen_tok_s_p50']:.1f}" if "gen_tok_s_p50" in r else ""
        tokens = f"{r['prompt_tokens_p50']:.0f}" if "prompt_tokens_p50" in r else ""
        rate = f"{r['chunks_per_s']:.1f}" if "chunks_per_s" in r else ""
        print(f"| {name} | {ttft} | {gen} | {tokens} | {rate} |")
    print(f"\nload before: {out['load_before']}\nload after: {out['load_after']}")


if __name__ == "__main__":
    main()
