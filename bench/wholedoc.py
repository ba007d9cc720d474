"""Whole-document extract against today's top-k answer, and the map-reduce's time against the
raw model's prompt evaluation of the same tokens, in one run.

A lease of ``--sections`` sections is generated with ``--planted`` deadlines spread through it
(the last in the last section); it is ingested into a fresh data directory with the bundled
embedder. Printed: planted deadlines found (recall) and items that are not planted deadlines
(precision) by ``extract`` and by the ordinary answer to "List every deadline in lease.md";
seconds per chunk; the map-reduce's total against the raw model evaluating each group's prompt
with one token generated; and the second, cached request.

    .venv/bin/python bench/wholedoc.py [--model smollm2-135m] [--sections 16] [--planted 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.settings import load_settings
from service.answering.orchestration import AskOptions
from service.llm.base import SamplingParams
from service.state import Hearth
from service.wholedoc import prompts
from service.wholedoc.service import WholeDocService, WholeRequest

FILLER = (
    "The warehouse on Harbour Street stores grain for the Kelby cooperative. Morwen Estates "
    "owns the building and maintains the slate roof. The loading bay faces the north quay."
)
MONTHS = ["January", "March", "May", "July", "September", "November"]


def lease(sections: int, planted: int) -> tuple[str, list[str]]:
    """The lease text and the dates of its planted deadlines."""
    at = {round(i * (sections - 1) / max(planted - 1, 1)) for i in range(planted)}
    parts, dates = [], []
    for i in range(sections):
        text = f"## Section {i + 1}\n{FILLER} Clause {i} applies to tenant number {i + 3}."
        if i in at:
            date = f"{i % 27 + 1} {MONTHS[i % 6]} 2027"
            text += f" Deadline: the permit for section {i + 1} must be filed by {date}."
            dates.append(date)
        parts.append(text)
    return "\n\n".join(parts), dates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--sections", type=int, default=16)
    parser.add_argument("--planted", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hearth-wholedoc-"))
    text, dates = lease(args.sections, args.planted)
    (root / "lease.md").write_text(text)
    settings = load_settings(data_dir=root / "data", llm={"model": args.model, "warmup": False})
    hearth = Hearth.start(settings)
    try:
        hearth.library.pipeline.ingest_file(root / "lease.md")
        service = WholeDocService(hearth.kb, hearth.pool, settings.data_dir / "wholedoc")
        request = WholeRequest("extract", ("lease.md",), what="deadlines")
        job = service.prepare(request)
        t0 = time.perf_counter()
        done = [e.data for e in service.stream(job, threading.Event(), service.admit(job))][-1]
        whole_s = time.perf_counter() - t0
        items = [i["text"] for i in done["items"]]
        found = [d for d in dates if any(d in i for i in items)]
        wrong = [i for i in items if not any(d in i for d in dates)]
        t1 = time.perf_counter()
        answer = hearth.answers.answer(
            "List every deadline in lease.md", options=AskOptions(record=False)
        ).answer
        topk_s = time.perf_counter() - t1
        topk = [d for d in dates if d in answer]
        llm = job.slot.runtime
        raw = 0.0
        for group in job.groups:
            messages = prompts.extract_messages([c.text for c in group], "deadlines")
            # A first line of its own, so no KV state of an earlier prompt is reused.
            messages[0]["content"] = f"Run {time.time_ns()}. " + messages[0]["content"]
            r0 = time.perf_counter()
            for _ in llm.stream_chat(messages, SamplingParams(max_tokens=1), threading.Event()):
                pass
            raw += time.perf_counter() - r0
        c0 = time.perf_counter()
        again = [e.data for e in service.stream(service.prepare(request), threading.Event())][-1]
        cached_s = time.perf_counter() - c0
    finally:
        hearth.close()
    chunks = done["chunks_read"]
    print(f"model {args.model}; {chunks} chunks in {done['groups']} groups; {len(dates)} planted")
    print(f"{'method':<24}{'recall':>8}{'precision':>11}{'seconds':>9}")
    print(f"{'top-k answer':<24}{len(topk) / len(dates):>8.2f}{'-':>11}{topk_s:>9.1f}")
    precision = (len(items) - len(wrong)) / max(len(items), 1)
    print(
        f"{'whole-document extract':<24}{len(found) / len(dates):>8.2f}{precision:>11.2f}"
        f"{whole_s:>9.1f}"
    )
    print(
        f"seconds per chunk {whole_s / chunks:.2f}; map-reduce {whole_s:.1f} s against raw "
        f"prompt evaluation (1 token each) {raw:.1f} s of the same groups: {whole_s / raw:.2f}x "
        f"(the rest is the map replies, {done['timings'].get('completion_tokens', 0)} tokens)"
    )
    print(f"second request (cache): {cached_s * 1000:.1f} ms, cached={again['cached']}")


if __name__ == "__main__":
    main()
