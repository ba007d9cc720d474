"""Whole-document modes against today's top-k answer to the same request, on generated gold
sets, and the map-reduce's time against the raw model's prompt evaluation, in one run.

The sets (written to a scratch folder, ingested into a fresh data directory with the bundled
embedder; the gold lists come from the same code, so they are complete by construction):

- ``report.md``: ``--sections`` sections of a report, each with filler and one key finding (a
  name and a number); summary key-fact recall = findings whose number is in the summary.
- ``invoices/``: ``--invoices`` invoices, one in three from Acme Ltd; ``extract`` "invoices from
  Acme" recall = Acme invoice numbers found, precision = items that hold one.
- ``lease.md``: ``--planted`` deadlines spread through filler clauses; ``extract`` "deadlines".
- ``policy-2022.md`` / ``policy-2023.md``: 12 rules, 5 known changes (3 changed, 1 removed,
  1 added); compare changes found = gold changes among the changed / added / removed items.

Per mode: the whole-document figure, the top-k answer's (the same request as a question to
AnswerService, which does not route to a mode), and names/numbers in the output that no cited
chunk holds. Time: the summary's map-reduce against raw prompt evaluation of the same prompts
(1 token generated each, a first line of its own so no KV state is reused), split into prompt
evaluation, generation (the rest of the model calls) and everything else; the second, cached
request; and a document changed in one section read again with the other groups' replies reused.

    .venv/bin/python bench/wholedoc.py [--model qwen2.5-coder-1.5b] [--sections 8] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.settings import load_settings
from service.answering.orchestration import AskOptions
from service.llm.base import SamplingParams
from service.state import Hearth
from service.wholedoc import mapreduce, prompts
from service.wholedoc.service import WholeDocService, WholeRequest
from service.wholedoc.support import facts, fold

FILLER = (
    "The warehouse on Harbour Street stores grain for the cooperative. The building has a slate "
    "roof and a loading bay that faces the quay. Deliveries are logged in the front office."
)
NAMES = ["Ines Varga", "Tomas Kerr", "Aled Morgan", "Rhea Patel", "Owen Lusk", "Mira Sand"]
PLACES = ["Kelby", "Harwick", "Dunmore", "Felling", "Astley", "Brora", "Carrow", "Denby"]
MONTHS = ["January", "March", "May", "July", "September", "November"]


def report(sections: int) -> tuple[str, list[str]]:
    """A report of ``sections`` sections and the number each one's finding states."""
    parts, gold = [], []
    for i in range(sections):
        place = PLACES[i % len(PLACES)]
        amount = f"{(i + 3) * 1117:,}"
        finding = (
            f"The {place} depot handled {amount} tonnes of grain in 2026, "
            f"reported by {NAMES[i % len(NAMES)]}."
        )
        body = " ".join([FILLER] * 3)
        parts.append(f"## {i + 1}. The {place} depot\n{body} {finding} {FILLER}")
        gold.append(amount)
    return "# Grain depots: annual report 2026\n\n" + "\n\n".join(parts), gold


def invoices(count: int) -> tuple[dict[str, str], list[str]]:
    """``count`` invoices by file name, and the numbers of those from Acme Ltd."""
    files, gold = {}, []
    for i in range(count):
        number = str(4100 + 7 * i)
        seller = "Acme Ltd" if i % 3 == 0 else ["Birch & Co", "Corran Supplies"][i % 2]
        date = f"{i % 27 + 1} {MONTHS[i % 6]} 2027"
        files[f"invoice-{number}.md"] = (
            f"# Invoice {number}\nInvoice {number} from {seller}, dated {date}. "
            f"Amount due: {(i + 2) * 95} pounds for {['rope', 'paint', 'timber'][i % 3]}. "
            "Payment within thirty days to the account on file."
        )
        if seller == "Acme Ltd":
            gold.append(number)
    return files, gold


def lease(sections: int, planted: int) -> tuple[str, list[str]]:
    """The lease text and the dates of its planted deadlines (the last in the last section)."""
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


RULES = [
    "Staff may work from home on two days each week.",
    "The notice period for leaving is thirty days.",
    "Travel claims are paid within fourteen days of approval.",
    "The office closes at six in the evening on Fridays.",
    "Each employee has twenty five days of annual leave.",
    "Parking permits are issued by the facilities desk.",
    "Laptops are replaced every four years.",
    "Visitors sign in at the front desk and wear a badge.",
    "Overtime is paid at one and a half times the hourly rate.",
    "The canteen serves lunch from noon until two.",
    "Training budgets are set at 900 pounds a year.",
    "Fire drills take place every six months.",
]


#: A word or number of each change that an answer naming the change must hold.
CHANGE_MARKERS = ["sixty", "twenty eight", "1,200", "laptop", "bicycle"]


def policies() -> tuple[str, str, list[str]]:
    """Two versions of a policy and the sentences of their 5 changes (the new text, or the
    removed one), in the order of :data:`CHANGE_MARKERS`."""
    new = list(RULES)
    new[1] = "The notice period for leaving is sixty days."
    new[4] = "Each employee has twenty eight days of annual leave."
    new[10] = "Training budgets are set at 1,200 pounds a year."
    removed = new.pop(6)  # laptops
    added = "Bicycles may be kept in the basement store."
    new.insert(9, added)
    gold = [new[1], new[4], "Training budgets are set at 1,200 pounds a year.", removed, added]
    return "# Policy 2022\n" + "\n\n".join(RULES), "# Policy 2023\n" + "\n\n".join(new), gold


def unsupported(result: dict[str, Any]) -> int:
    """Names and numbers of the result's lines that none of their cited chunks holds."""
    texts = {s["number"]: fold(s["text"]) for s in result["sources"]}
    bad = 0
    for item in [*result["overview"], *result["items"]]:
        hay = " ".join(texts.get(n, "") for n in item["citations"])
        line = item.get("after") or item.get("before") or item["text"]
        bad += sum(1 for f in facts(line) if f not in hay and f.replace(",", "") not in hay)
    return bad


def found_in(texts: list[str], gold: list[str]) -> list[str]:
    """The gold strings that appear (case-folded) in any of ``texts``."""
    folded = [fold(t) for t in texts]
    return [g for g in gold if any(fold(g) in t for t in folded)]


class Bench:
    """One Hearth on a scratch data directory, with the sets ingested."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.root = Path(tempfile.mkdtemp(prefix="hearth-wholedoc-"))
        settings = load_settings(
            data_dir=self.root / "data", llm={"model": args.model, "warmup": False}
        )
        self.hearth = Hearth.start(settings)
        self.service = WholeDocService(
            self.hearth.kb, self.hearth.pool, settings.data_dir / "wholedoc"
        )
        self.rows: list[dict[str, Any]] = []

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        self.hearth.library.pipeline.ingest_file(path)
        return path

    def whole(self, request: WholeRequest) -> tuple[dict[str, Any], float, Any]:
        job = self.service.prepare(request)
        t0 = time.perf_counter()
        events = list(self.service.stream(job, threading.Event(), self.service.admit(job)))
        return events[-1].data, time.perf_counter() - t0, job

    def topk(self, question: str) -> tuple[str, float]:
        t0 = time.perf_counter()
        answer = self.hearth.answers.answer(question, options=AskOptions(record=False)).answer
        return answer, time.perf_counter() - t0

    def row(self, mode: str, figure: str, whole: float, topk: float | None, **extra: Any) -> None:
        self.rows.append({"mode": mode, "figure": figure, "whole": whole, "topk": topk, **extra})

    def raw_seconds(self, job: Any, messages_of: Any) -> float:
        """Raw prompt evaluation of each group's prompt (1 token generated, no KV reuse)."""
        llm = job.slot.runtime
        raw = 0.0
        for group in job.groups:
            messages = messages_of([c.text for c in group])
            messages[0]["content"] = f"Run {time.time_ns()}. " + messages[0]["content"]
            r0 = time.perf_counter()
            for _ in llm.stream_chat(messages, SamplingParams(max_tokens=1), threading.Event()):
                pass
            raw += time.perf_counter() - r0
        return raw

    def run(self) -> dict[str, Any]:
        args = self.args
        text, key_facts = report(args.sections)
        report_path = self.write("report.md", text)
        bills, acme = invoices(args.invoices)
        for name, body in bills.items():
            self.write(f"invoices/{name}", body)
        lease_text, dates = lease(args.lease_sections, args.planted)
        self.write("lease.md", lease_text)
        old, new, changes = policies()
        self.write("policy-2022.md", old)
        self.write("policy-2023.md", new)

        # summarise: key facts, time against raw prompt evaluation, cache, one section changed
        summary, whole_s, job = self.whole(WholeRequest("summarise", ("report.md",)))
        answer, topk_s = self.topk("Summarise report.md")
        self.row(
            "summarise",
            "key-fact recall",
            len(found_in([summary["answer"]], key_facts)) / len(key_facts),
            len(found_in([answer], key_facts)) / len(key_facts),
            unsupported=unsupported(summary),
            seconds=round(whole_s, 1),
            topk_seconds=round(topk_s, 1),
        )
        raw = self.raw_seconds(
            job, lambda ex: prompts.summarise_messages(ex, mapreduce.MAP_SENTENCES)
        )
        t = summary["timings"]
        c0 = time.perf_counter()
        again = self.whole(WholeRequest("summarise", ("report.md",)))[0]
        cached_ms = (time.perf_counter() - c0) * 1000
        changed = text.replace(f"{(args.sections + 2) * 1117:,} tonnes", "999 tonnes")
        report_path.write_text(changed)
        self.hearth.library.pipeline.ingest_file(report_path)
        edited, edited_s, _ = self.whole(WholeRequest("summarise", ("report.md",)))
        timing = {
            "groups": summary["groups"],
            "chunks": summary["chunks_read"],
            "map_reduce_s": round(whole_s, 1),
            "raw_prompt_eval_s": round(raw, 1),
            "overhead": round(whole_s / raw, 2),
            "prompt_eval_s": round(t.get("prompt_eval_s", 0.0), 1),
            "generation_s": round(t.get("model_s", 0.0) - t.get("prompt_eval_s", 0.0), 1),
            "other_s": round(whole_s - t.get("model_s", 0.0), 2),
            "completion_tokens": int(t.get("completion_tokens", 0)),
            "prompt_new_tokens": int(t.get("prompt_new_tokens", 0)),
            "model_calls": summary["model_calls"],
            "cached_ms": round(cached_ms, 1),
            "cached": again["cached"],
            "edited_s": round(edited_s, 1),
            "edited_calls": edited["model_calls"],
            "edited_reused": edited["reused_calls"],
            "summary": summary["answer"],
        }

        # extract: invoices from Acme over a folder, deadlines in a lease
        for what, refs, gold, question in (
            (
                "invoices from Acme",
                (str(self.root / "invoices"),),
                acme,
                "List every invoice from Acme in the invoices folder",
            ),
            ("deadlines", ("lease.md",), dates, "List every deadline in lease.md"),
        ):
            result, seconds, _ = self.whole(WholeRequest("extract", refs, what=what))
            items = [i["text"] for i in result["items"]]
            hits = found_in(items, gold)
            right = [i for i in items if any(fold(g) in fold(i) for g in gold)]
            answer, topk_s = self.topk(question)
            self.row(
                f"extract {what}",
                "recall",
                len(hits) / len(gold),
                len(found_in([answer], gold)) / len(gold),
                precision=round(len(right) / max(len(items), 1), 2),
                items=len(items),
                unsupported=unsupported(result),
                seconds=round(seconds, 1),
                topk_seconds=round(topk_s, 1),
            )

        # compare: the 5 known changes
        result, seconds, _ = self.whole(
            WholeRequest("compare", ("policy-2022.md", "policy-2023.md"))
        )
        listed = [
            i.get("after") or i.get("before") or i["text"]
            for i in result["items"]
            if i.get("kind") in ("changed", "added", "removed")
        ]
        answer, topk_s = self.topk("What changed between policy-2022.md and policy-2023.md?")
        self.row(
            "compare",
            "changes found (of 5)",
            len(found_in(listed, changes)),
            len(found_in([answer], CHANGE_MARKERS)),
            unsupported=unsupported(result),
            listed=len(listed),
            seconds=round(seconds, 1),
            topk_seconds=round(topk_s, 1),
        )
        return {"model": args.model, "rows": self.rows, "time": timing}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--sections", type=int, default=8, help="report sections (key facts)")
    parser.add_argument("--invoices", type=int, default=9)
    parser.add_argument("--lease-sections", type=int, default=10)
    parser.add_argument("--planted", type=int, default=4)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    bench = Bench(args)
    try:
        out = bench.run()
    finally:
        bench.hearth.close()
    print(f"model {out['model']}")
    print(f"{'mode':<30}{'figure':<22}{'whole':>7}{'top-k':>7}  details")
    for r in out["rows"]:
        extra = {k: v for k, v in r.items() if k not in ("mode", "figure", "whole", "topk")}
        whole = f"{r['whole']:.2f}" if isinstance(r["whole"], float) else str(r["whole"])
        topk = f"{r['topk']:.2f}" if isinstance(r["topk"], float) else str(r["topk"])
        print(f"{r['mode']:<30}{r['figure']:<22}{whole:>7}{topk:>7}  {extra}")
    t = out["time"]
    print(
        f"summary of {t['chunks']} chunks in {t['groups']} groups: map-reduce "
        f"{t['map_reduce_s']} s against raw prompt evaluation {t['raw_prompt_eval_s']} s of "
        "the same prompts: "
        f"{t['overhead']}x (prompt evaluation {t['prompt_eval_s']} s, generation "
        f"{t['generation_s']} s for {t['completion_tokens']} tokens, other {t['other_s']} s; "
        f"{t['model_calls']} model calls)"
    )
    print(
        f"second request (cache): {t['cached_ms']} ms, cached={t['cached']}; one section "
        f"changed: {t['edited_s']} s, {t['edited_calls']} model calls, "
        f"{t['edited_reused']} replies reused"
    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
