"""The held-out set's worker (see bench/heldout.py): answers questions with the Hearth code on
PYTHONPATH (whichever checkout is measured) through ``AnswerService`` as ``hearth serve`` builds
it, and keeps what the review of each reply read (the model's raw reply, the passages with their
whole chunks, the standalone question, the system prompt), so that the grounding checks of
another checkout can be run on the very same replies (``review`` mode) without the model.

    PYTHONPATH=CHECKOUT HEARTH_DATA_DIR=DIR python -P bench/heldout_worker.py OUT.jsonl Q.json
    PYTHONPATH=CHECKOUT python -P bench/heldout_worker.py --review RAW.jsonl OUT.jsonl
    PYTHONPATH=CHECKOUT HEARTH_DATA_DIR=DIR python -P bench/heldout_worker.py --retrieve OUT Q.json

It imports nothing from bench/, so an older checkout can be measured.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any


def _passage_dict(p: Any) -> dict[str, Any]:
    return dataclasses.asdict(p)  # copies (tuple of Passage) become dicts too


def _passage(d: dict[str, Any]) -> Any:
    from service.answering.retrieval import Passage

    fields = {f.name for f in dataclasses.fields(Passage)}
    kept = {k: v for k, v in d.items() if k in fields}
    kept["copies"] = tuple(_passage(c) for c in d.get("copies") or ())
    return Passage(**kept)


def _row(i: int, answer: dict[str, Any], **more: Any) -> dict[str, Any]:
    """One answer's JSON line from its ``done`` event's fields (answer, citations, sources,
    grounding), and ``more``."""
    sources = answer.get("sources", [])
    return {
        "i": i,
        "answer": answer.get("answer", ""),
        "cited": [Path(c["path"]).name for c in answer.get("citations", [])],
        "sources": [Path(s["path"]).name for s in sources],
        "source_texts": [s["text"] for s in sources],
        "grounding": answer.get("grounding", {}),
        **more,
    }


def answer_all(out: Path, questions: list[str]) -> None:
    """Answer every question with the code on PYTHONPATH; one JSON line each (``raw``: what the
    review read)."""
    from core.settings import load_settings
    from service.answering.orchestration import AskOptions
    from service.state import Hearth

    settings = load_settings()
    settings.llm.warmup = False
    hearth = Hearth.start(settings)
    service = hearth.answers
    reviewed: dict[str, Any] = {}
    postprocess = service.postprocess

    def recording(text: str, passages: list[Any], question: str = "", system: str = "") -> Any:
        reviewed.update(
            reply=text,
            passages=[_passage_dict(p) for p in passages],
            standalone=question,
            system=system,
            on_fail=service.settings.grounding.on_fail,
        )
        return postprocess(text, passages, question, system)

    service.postprocess = recording  # type: ignore[method-assign]
    try:
        with out.open("w") as fh:
            for i, question in enumerate(questions):
                started = time.perf_counter()
                reviewed.clear()
                done: dict[str, Any] = {}
                for event in service.stream(question, options=AskOptions(record=False)):
                    if event.kind == "done":
                        done = event.data
                seconds = round(time.perf_counter() - started, 1)
                row = _row(i, done, seconds=seconds, raw=dict(reviewed))
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                said = f"{row['answer'][:100]!r} {row['cited']}"
                print(f"{i:3d} {seconds:6.1f}s {said}", file=sys.stderr, flush=True)
    finally:
        hearth.close()


def review_all(raw: Path, out: Path) -> None:
    """The review of the code on PYTHONPATH run again on the replies a run kept (``raw``), one
    JSON line each as ``answer_all`` writes them; a row with no reply kept is copied."""
    from service.answering.grounding import review

    with out.open("w") as fh:
        for line in raw.read_text().splitlines():
            row = json.loads(line)
            kept = row.get("raw") or {}
            if "reply" not in kept:
                fh.write(json.dumps(row) + "\n")
                continue
            passages = [_passage(d) for d in kept["passages"]]
            text, verdict = review(
                kept["reply"], passages, kept["standalone"], kept["system"], kept["on_fail"]
            )
            by_number = {p.number: p for p in passages}
            answer = {
                "answer": text,
                "citations": [{"path": by_number[n].path} for n in verdict.cited],
                "sources": [{"path": p.path, "text": p.text} for p in passages],
                "grounding": verdict.as_dict(),
            }
            fh.write(json.dumps(_row(row["i"], answer, raw=kept)) + "\n")


def retrieve_all(out: Path, questions: list[str]) -> None:
    """Only retrieval, with the code on PYTHONPATH: each question's passages as answering finds
    them (``sources``: file names, best first, before the further hops and passage fitting) and
    as the model is given them (``fitted``: after the hops and fitting to the passage token
    budget with the default model's own tokenizer, loaded vocabulary only); ``texts`` and
    ``fitted_texts`` are their texts."""
    import llama_cpp

    from core.bundled import resolve_llm
    from core.embedder import create_embedder
    from core.knowledge import KnowledgeBase
    from core.settings import load_settings
    from service.answering import retrieval as answering
    from service.answering.orchestration import further_hops, with_turns_around

    settings = load_settings()
    kb = KnowledgeBase(settings)
    vocab = llama_cpp.Llama(
        str(resolve_llm(settings.llm.model, settings.models_dir)), vocab_only=True, verbose=False
    )

    def count_tokens(text: str) -> int:
        return len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    try:
        retriever = answering.Retriever(kb, create_embedder(settings.embedder))
        top_k = settings.retrieval.top_k
        with out.open("w") as fh:
            for i, question in enumerate(questions):
                found = retriever.retrieve(question)
                hopped = further_hops(retriever, question, found, top_k, answering.Filters())
                fitted = answering.fit_passages(
                    question,
                    answering.merge_identical(hopped),
                    retriever.embedder,
                    count_tokens,
                    settings.retrieval.passage_tokens,
                )
                fitted = with_turns_around(retriever, question, fitted, answering.Filters())
                row = {
                    "i": i,
                    "sources": [Path(p.path).name for p in found],
                    "texts": [p.text for p in found],
                    "fitted": [Path(p.path).name for p in fitted],
                    "fitted_texts": [p.text for p in fitted],
                }
                fh.write(json.dumps(row) + "\n")
    finally:
        kb.close()


if __name__ == "__main__":
    if sys.argv[1] == "--review":
        review_all(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1] == "--retrieve":
        retrieve_all(Path(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text()))
    else:
        answer_all(Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text()))
