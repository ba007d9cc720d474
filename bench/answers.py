"""Answers old vs new in one run: today's pipeline (whole passages, top_k of them, no saved KV
states, prompt batches of 512) against the new one (passages fitted to a token budget by
sentence, identical passages merged, KV prefix states saved, the default batches), on the
default model, question by question, interleaved so that both see the same machine load.

Questions: SQuAD 2.0 dev answerable questions over its corpus (a scratch knowledge base, built
once with ``service.evaluation.scratch`` and reused), questions on ``../shared/data/docs``, and
SQuAD unanswerable ones. Figures: TTFT p50/p95, prompt tokens p50, generation tokens/s,
answer containment, right document cited, abstention on the unanswerable, grounding flags on
right answers (all of them, and false flags: on right answers the passages given hold; a right
answer they do not hold came from the model's own knowledge and is rightly flagged); a PNG of
TTFT per question, old vs new. Each pipeline has its own
context (two runtimes of the same model), so "old" keeps llama-cpp-python's own live-prefix reuse
exactly as today.

    .venv/bin/python bench/answers.py [--squad 24] [--unanswerable 10] [--model M]
        [--max-tokens 128] [--out bench/out/answers] [--passage-tokens N] [--modes old,new]

``--passage-tokens`` sets the new pipeline's passage budget (default: the setting's default);
``--modes new`` runs the new pipeline alone, to try a setting against an earlier run's "today".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import REPO, SHARED
from core.evalmetrics import answer_contains, is_abstention, median, p95

#: Questions on ../shared/data/docs: (question, accepted answers, file that holds the answer).
DOC_QUESTIONS: list[tuple[str, tuple[str, ...], str]] = [
    ("Who patented the typewriter in 1868?", ("Sholes",), "multi_page.pdf"),
    ("In which year was IBM founded?", ("1911",), "wiki.md"),
    ("Where is IBM headquartered?", ("Armonk",), "wiki.md"),
    ("What is IBM's nickname?", ("Big Blue",), "wiki.md"),
    ("In what year did IBM debut in the microcomputer market?", ("1981",), "wiki.md"),
    ("To which family do ducks belong?", ("Anatidae",), "wiki_duck.html"),
    ("Where was Iwan Roberts born?", ("Bangor",), "norwich-city.txt"),
    ("Which club did Iwan Roberts join in 1990?", ("Huddersfield",), "norwich-city.txt"),
]
DOCS_COLLECTION = "shared-docs"


@dataclass
class Item:
    """One question of the bench."""

    id: str
    question: str
    answers: tuple[str, ...]
    source: str | None  # expected document (squad corpus id or a docs file name)
    collection: str
    unanswerable: bool = False


@dataclass
class Row:
    """One answer's figures."""

    item: Item
    mode: str
    answer: str
    timings: dict[str, float]
    cited: list[str]
    grounded: bool
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def contained(self) -> bool:
        # A declining reply may quote the passages that hold the answer: it is no answer.
        return (
            bool(self.item.answers)
            and not self.declined
            and answer_contains(self.answer, self.item.answers)
        )

    @property
    def right_doc(self) -> bool:
        return self.item.source is not None and self.item.source in self.cited

    @property
    def declined(self) -> bool:
        return is_abstention(self.answer)


def spread(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """``n`` rows spread evenly over ``rows``."""
    step = len(rows) / max(n, 1)
    return [rows[int(i * step)] for i in range(min(n, len(rows)))]


def load_items(n_squad: int, n_docs: int, n_unanswerable: int, collection: str) -> list[Item]:
    """Answerable SQuAD questions spread over the set, docs questions, unanswerable ones."""
    answerable = [
        json.loads(line)
        for line in (SHARED / "qa" / "squad2_dev_answerable.jsonl").read_text().splitlines()
    ]
    unanswerable = [
        json.loads(line)
        for line in (SHARED / "qa" / "squad2_dev_unanswerable.jsonl").read_text().splitlines()
    ]
    items = [
        Item(r["id"], r["question"], tuple(r["answers"]), r["context_id"], collection)
        for r in spread(answerable, n_squad)
    ]
    items += [
        Item(f"doc{i}", q, a, src, DOCS_COLLECTION)
        for i, (q, a, src) in enumerate(DOC_QUESTIONS[:n_docs])
    ]
    items += [
        Item(r["id"], r["question"], (), None, collection, unanswerable=True)
        for r in spread(unanswerable, n_unanswerable)
    ]
    return items


def interleave(items: list[Item]) -> list[Item]:
    """Answerable SQuAD, docs and unanswerable questions taken in turn."""
    kinds = [
        [i for i in items if not i.unanswerable and i.collection != DOCS_COLLECTION],
        [i for i in items if i.collection == DOCS_COLLECTION],
        [i for i in items if i.unanswerable],
    ]
    out: list[Item] = []
    while any(kinds):
        for kind in kinds:
            if kind:
                out.append(kind.pop(0))
    return out


def build_base(root: Path) -> tuple[Any, Any, str]:
    """The scratch base of squad_dev (reused when built) with the shared docs added once."""
    from core.embedder import create_embedder
    from core.knowledge import KnowledgeBase
    from core.lock import WriterLock
    from core.settings import load_settings
    from ingest.pipeline import IngestPipeline
    from service.evaluation.gold import attach_answers, load_gold
    from service.evaluation.scratch import prepare_scratch

    settings = load_settings(data_dir=root)
    settings.llm.warmup = False
    gold = load_gold(SHARED / "retrieval" / "squad_dev")
    attach_answers(gold, SHARED / "qa" / "squad2_dev_answerable.jsonl")
    embedder = create_embedder(settings.embedder)
    scratch = prepare_scratch(settings, gold, embedder)
    marker = scratch.folder / "shared-docs.done"
    if not marker.exists():
        kb = KnowledgeBase(scratch.settings)
        try:
            with WriterLock.for_settings(scratch.settings):
                docs = sorted(p for p in (SHARED / "docs").rglob("*") if p.is_file())
                IngestPipeline(kb, embedder).ingest(docs, collection=DOCS_COLLECTION)
        finally:
            kb.close()
        marker.write_text("ok")
    return scratch, embedder, scratch.collection


def uptime() -> str:
    """``uptime``'s load averages."""
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def ask(service: Any, item: Item, scratch: Any, mode: str, max_tokens: int) -> Row:
    from service.answering.orchestration import AskOptions
    from service.llm.base import SamplingParams

    cfg = service.settings.llm
    params = SamplingParams(0.0, cfg.top_p, max_tokens, cfg.seed)
    options = AskOptions(collection=item.collection, record=False, sampling=params)
    answer = service.answer(item.question, options=options)
    cited: list[str] = []
    for c in answer.citations:
        for holder in [c, *c.get("copies", [])]:
            name = Path(holder["path"]).name
            cited.append(
                scratch.corpus_id(holder["path"])
                if item.source and item.collection != DOCS_COLLECTION
                else name
            )
    given = " ".join(str(p.get("text", "")) for p in answer.sources)
    return Row(
        item,
        mode,
        answer.answer,
        dict(answer.timings),
        cited,
        bool(answer.grounding.get("grounded")),
        {
            "unsupported": answer.grounding.get("unsupported", []),
            "grounding": answer.grounding,
            # Whether the passages the model was given hold the expected answer: a right answer
            # they do not hold came from the model's own knowledge, and flagging it is right.
            "in_passages": bool(item.answers) and answer_contains(given, item.answers),
        },
    )


def summarise(rows: list[Row]) -> dict[str, Any]:
    """The figures of one mode."""
    generated = [r for r in rows if "prompt_tokens" in r.timings]
    ttft = [r.timings["ttft_s"] for r in generated]
    answerable = [r for r in rows if not r.item.unanswerable]
    unanswerable = [r for r in rows if r.item.unanswerable]
    right = [r for r in answerable if r.contained and not r.declined]
    supported = [r for r in right if r.extra.get("in_passages")]
    return {
        "questions": len(rows),
        "generated": len(generated),
        "ttft_p50_s": median(ttft),
        "ttft_p95_s": p95(ttft),
        "prompt_tokens_p50": median(float(r.timings["prompt_tokens"]) for r in generated),
        "prompt_new_tokens_p50": median(float(r.timings["prompt_new_tokens"]) for r in generated),
        "prompt_eval_p50_s": median(r.timings["prompt_eval_s"] for r in generated),
        "tokens_per_s_p50": median(
            r.timings["tokens_per_s"] for r in generated if r.timings.get("tokens_per_s")
        ),
        "containment": sum(r.contained for r in answerable) / max(len(answerable), 1),
        "right_document_cited": sum(r.right_doc for r in answerable) / max(len(answerable), 1),
        "abstention_unanswerable": sum(r.declined for r in unanswerable)
        / max(len(unanswerable), 1),
        "declined_answerable": sum(r.declined for r in answerable) / max(len(answerable), 1),
        "flags_on_right_answers": sum(not r.grounded for r in right) / max(len(right), 1),
        "false_flags_on_right_answers": sum(not r.grounded for r in supported)
        / max(len(supported), 1),
        "right_answers": len(right),
        "right_answers_in_passages": len(supported),
    }


def plot(rows: list[Row], png: Path) -> None:
    """TTFT per question, old vs new."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    old = [r for r in rows if r.mode == "old"]
    new = {r.item.id: r for r in rows if r.mode == "new"}
    xs = list(range(1, len(old) + 1))
    fig, ax = plt.subplots(figsize=(11, 4))
    ax.bar([x - 0.2 for x in xs], [r.timings["ttft_s"] for r in old], 0.4, label="today")
    ax.bar([x + 0.2 for x in xs], [new[r.item.id].timings["ttft_s"] for r in old], 0.4, label="new")
    ax.set_xlabel("question")
    ax.set_ylabel("time to first token (s)")
    ax.set_title("TTFT per question, today's pipeline vs the new one")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def _cell(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def table(summary: dict[str, dict[str, Any]]) -> str:
    keys = list(summary["new"])
    lines = ["| figure | today | new | new / today |", "|---|---|---|---|"]
    for k in keys:
        o, n = summary["old"].get(k), summary["new"].get(k)
        ratio = f"{n / o:.2f}" if isinstance(o, float) and isinstance(n, float) and o else ""
        lines.append(f"| {k} | {_cell(o)} | {_cell(n)} | {ratio} |")
    return "\n".join(lines)


def parse_with_data(parser: argparse.ArgumentParser, scratch: str) -> argparse.Namespace:
    """``parser``'s arguments with ``--data`` (where ``build_base`` builds its knowledge base:
    ``HEARTH_BENCH_DATA``, else ``scratch``); exits naming the folder when the shared SQuAD data
    is missing."""
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("HEARTH_BENCH_DATA", scratch))
    )
    args = parser.parse_args()
    if not (SHARED / "retrieval" / "squad_dev").is_dir():
        sys.exit(f"shared data not found at {SHARED}")
    return args


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--squad", type=int, default=24, help="answerable SQuAD questions")
    parser.add_argument("--docs", type=int, default=len(DOC_QUESTIONS), help="docs questions")
    parser.add_argument("--unanswerable", type=int, default=10)
    parser.add_argument("--model", default=None, help="default: the configured model")
    parser.add_argument("--max-tokens", type=int, default=128, help="answer length cap (both)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "answers")
    parser.add_argument("--passage-tokens", type=int, default=None, help="new side's budget")
    parser.add_argument("--modes", default="old,new", help="pipelines to run (old,new)")
    args = parse_with_data(parser, "/tmp/hearth-bench-answers")
    from core.knowledge import KnowledgeBase
    from service.answering.orchestration import AnswerService
    from service.answering.retrieval import Retriever
    from service.evaluation.runner import load_model, settings_for_model

    scratch, embedder, collection = build_base(args.data)
    items = load_items(args.squad, args.docs, args.unanswerable, collection)
    # Interleaved kinds, so a run stopped early still covers each kind.
    items = interleave(items)
    base = settings_for_model(scratch.settings, args.model)
    base.llm.request_timeout_s = 3600.0  # a loaded machine must not cut answers short
    old_settings = base.model_copy(deep=True)
    old_settings.retrieval.passage_tokens = 0
    old_settings.llm.prompt_cache_mib = 0
    old_settings.llm.n_batch = old_settings.llm.n_ubatch = 512  # today's batches
    new_settings = base.model_copy(deep=True)
    if args.passage_tokens is not None:
        new_settings.retrieval.passage_tokens = args.passage_tokens
    modes = [m for m in ("old", "new") if m in args.modes.split(",")]
    kb = KnowledgeBase(base)
    retriever = Retriever(kb, embedder)
    chosen = {"old": old_settings, "new": new_settings}
    services = {m: AnswerService(chosen[m], retriever, load_model(chosen[m])) for m in modes}
    if "new" in services:
        services["new"].prefill()  # the new pipeline's start-up (the service does it at warm-up)
    print(f"{len(items)} questions on {base.llm.model}; load before: {uptime()}", flush=True)
    rows: list[Row] = []
    started = time.perf_counter()
    for n, item in enumerate(items, start=1):
        for mode in modes if n % 2 else modes[::-1]:
            row = ask(services[mode], item, scratch, mode, args.max_tokens)
            rows.append(row)
            print(
                f"{n:3} {mode:3} ttft {row.timings['ttft_s']:6.2f}s prompt "
                f"{row.timings.get('prompt_tokens', '-')}/"
                f"{row.timings.get('prompt_new_tokens', '-')} new "
                f"contained {row.contained!s:5} doc {row.right_doc!s:5} "
                f"declined {row.declined!s:5} grounded {row.grounded}",
                flush=True,
            )
        write_report(args.out, rows, base.llm.model, len(items), args.max_tokens, started)
    report = write_report(args.out, rows, base.llm.model, len(items), args.max_tokens, started)
    print(table(report["summary"]))
    print(
        f"load after: {report['load_after']}; wall {report['wall_s']} s; "
        f"plot {args.out / 'ttft_per_question.png'}"
    )


def write_report(
    out: Path, rows: list[Row], model: str, planned: int, max_tokens: int, started: float
) -> dict[str, Any]:
    """report.json, table.md and the plot of the answers so far (a stopped run keeps them)."""
    summary = {m: summarise([r for r in rows if r.mode == m]) for m in ("old", "new")}
    modes = {r.mode for r in rows}
    out.mkdir(parents=True, exist_ok=True)
    done = set.intersection(*({r.item.id for r in rows if r.mode == m} for m in modes))
    if modes == {"old", "new"}:
        plot([r for r in rows if r.item.id in done], out / "ttft_per_question.png")
    report = {
        "model": model,
        "questions_planned": planned,
        "questions_done": len(done),
        "max_tokens": max_tokens,
        "wall_s": round(time.perf_counter() - started, 1),
        "load_after": uptime(),
        "summary": summary,
        "rows": [
            {
                "id": r.item.id, "mode": r.mode, "question": r.item.question,
                "expected": r.item.answers, "answer": r.answer, "timings": r.timings,
                "cited": r.cited, "grounded": r.grounded, **r.extra,
            }
            for r in rows
        ],
    }  # fmt: skip
    (out / "report.json").write_text(json.dumps(report, indent=1))
    (out / "table.md").write_text(table(summary) + "\n")
    return report


if __name__ == "__main__":
    main()
