"""The hard set's worker (see bench/hard.py): answers questions with the Hearth code on PYTHONPATH
(whichever checkout is measured), through ``AnswerService`` as ``hearth serve`` builds it.

    PYTHONPATH=CHECKOUT HEARTH_DATA_DIR=DIR python bench/hardworker.py OUT.jsonl QUESTIONS.json

It imports nothing from bench/, so an older checkout without the hard set can be measured.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def answer_all(out: Path, questions: list[str]) -> None:
    """Worker: answer every question with the code on PYTHONPATH; one JSON line each."""
    from core.settings import load_settings
    from service.state import Hearth

    try:  # the feature-folder layout (issue 16), or an older checkout measured as "before"
        from service.answering.orchestration import AskOptions
    except ImportError:
        from service.answers import AskOptions  # type: ignore[no-redef]

    settings = load_settings()
    settings.llm.warmup = False
    hearth = Hearth.start(settings)
    try:
        with out.open("w") as fh:
            for i, question in enumerate(questions):
                started = time.perf_counter()
                done: dict[str, Any] = {}
                for event in hearth.answers.stream(question, options=AskOptions(record=False)):
                    if event.kind == "done":
                        done = event.data
                uncut = hearth.answers.retriever.retrieve(question, cut=False)
                row = {
                    "i": i,
                    "answer": done.get("answer", ""),
                    "cited": [Path(c["path"]).name for c in done.get("citations", [])],
                    "sources": [Path(s["path"]).name for s in done.get("sources", [])],
                    "source_texts": [s["text"] for s in done.get("sources", [])],
                    "uncut": [Path(p.path).name for p in uncut],
                    "uncut_texts": [p.text for p in uncut],
                    "grounding": done.get("grounding", {}),
                    "seconds": round(time.perf_counter() - started, 1),
                }
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                print(
                    f"{i:3d} {row['seconds']:6.1f}s {row['answer'][:100]!r} {row['cited']}",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        hearth.close()


if __name__ == "__main__":
    answer_all(Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text()))
