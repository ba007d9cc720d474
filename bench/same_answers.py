"""The same answers before and after a change: a fixed set of ``bench/answers.py``'s questions
answered at temperature 0 by bundled models, written to one JSON file (answer text, citations,
grounding, the passages given; no timings), so two runs compare byte for byte.

    .venv/bin/python bench/same_answers.py --out /tmp/before.json
    .venv/bin/python bench/same_answers.py --out /tmp/after.json \
        --compare /tmp/before.json

Default set: 6 answerable SQuAD questions, 4 on the shared docs and 2 unanswerable with
smollm2-135m, then the first 4 of that set with the default model (``--models`` changes it:
``name:count`` pairs, ``default`` for the configured model). ``--compare`` prints one line per
answer that differs and exits 1 when any does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.answers import build_base, interleave, load_items, parse_with_data


def answer_record(service: Any, item: Any, max_tokens: int) -> dict[str, Any]:
    """One answer's deterministic parts: text, citations, grounding, sources (no timings)."""
    from service.answering.orchestration import AskOptions
    from service.llm.base import SamplingParams

    cfg = service.settings.llm
    options = AskOptions(
        collection=item.collection,
        record=False,
        sampling=SamplingParams(0.0, cfg.top_p, max_tokens, cfg.seed),
    )
    answer = service.answer(item.question, options=options)
    return {
        "id": item.id,
        "question": item.question,
        "answer": answer.answer,
        "citations": answer.citations,
        "grounding": answer.grounding,
        "sources": answer.sources,
    }


def run(models: list[tuple[str, int]], data: Path, max_tokens: int) -> dict[str, Any]:
    """``{model: [record, ...]}`` for each ``(model, count)``."""
    from core.knowledge import KnowledgeBase
    from service.answering.orchestration import AnswerService
    from service.answering.retrieval import Retriever
    from service.evaluation.runner import load_model, settings_for_model

    scratch, embedder, collection = build_base(data)
    items = interleave(load_items(6, 4, 2, collection))
    out: dict[str, Any] = {}
    kb = KnowledgeBase(scratch.settings)
    try:
        retriever = Retriever(kb, embedder)
        for model, count in models:
            settings = settings_for_model(scratch.settings, None if model == "default" else model)
            settings.llm.request_timeout_s = 3600.0
            runtime = load_model(settings)
            service = AnswerService(settings, retriever, runtime)
            records = []
            for item in items[:count]:
                records.append(answer_record(service, item, max_tokens))
                print(f"{model} {item.id}: {records[-1]['answer'][:70]!r}", flush=True)
            out[f"{model} ({settings.llm.model})"] = records
            runtime.close()
    finally:
        kb.close()
    return out


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """One line per model or answer whose JSON differs."""
    lines: list[str] = []
    for model in sorted(set(before) | set(after)):
        b, a = before.get(model), after.get(model)
        if b is None or a is None:
            lines.append(f"{model}: only in {'after' if b is None else 'before'}")
            continue
        for i, (rb, ra) in enumerate(zip(b, a, strict=False)):
            for key in rb:
                if json.dumps(rb[key], sort_keys=True) != json.dumps(ra.get(key), sort_keys=True):
                    lines.append(f"{model} #{i} {rb['id']}: {key} differs")
        if len(b) != len(a):
            lines.append(f"{model}: {len(b)} answers before, {len(a)} after")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file written")
    parser.add_argument("--compare", type=Path, default=None, help="earlier run to compare with")
    parser.add_argument("--models", default="smollm2-135m:12,default:4")
    parser.add_argument("--max-tokens", type=int, default=96)
    args = parse_with_data(parser, "/tmp/hearth-bench-same-answers")
    models = [(m, int(n)) for m, n in (pair.rsplit(":", 1) for pair in args.models.split(","))]
    result = run(models, args.data, args.max_tokens)
    text = json.dumps(result, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    args.out.write_text(text)
    print(f"wrote {args.out} ({len(text)} bytes)")
    if args.compare is not None:
        before_text = args.compare.read_text()
        if before_text == text:
            print(f"byte-identical to {args.compare}")
            return
        for line in compare(json.loads(before_text), result) or ["differs in layout only"]:
            print(line)
        sys.exit(1)


if __name__ == "__main__":
    main()
