"""The hard set (issue 21): tables, text read from images, recordings, two-step questions,
near-miss numbers, paraphrased and unanswerable questions, answered through the real service
path (``AnswerService`` as ``hearth serve`` builds it) with the default model.

    .venv/bin/python bench/hard.py                       # this checkout
    .venv/bin/python bench/hard.py --before ../main      # another checkout first, same run

Each checkout ingests the same files (made in code, see bench/hardfiles.py) into its own scratch
data directory with ``hearth ingest`` and answers every question in a subprocess whose code is that
checkout's. Scored per kind: right (an accepted answer contained, not declined), right file cited,
declined when unanswerable, wrongly declined; each miss gets a cause (see ``cause``). Results are
written as JSON next to the printed table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.hardquestions import KINDS, QUESTIONS, HardQuestion  # noqa: E402
from core.evalmetrics import answer_contains, is_abstention  # noqa: E402


def _holds(texts: Iterable[str], q: HardQuestion) -> bool:
    return any(answer_contains(t, q.answers) for t in texts)


def cause(q: HardQuestion, row: dict[str, Any]) -> str:
    """Why an answerable question was missed, from what reached the model:
    ``retrieval missed`` (the file not in the top k), ``cut by threshold`` (in the top k but
    dropped by the relative margin or min_score), ``passage without answer`` (the file's
    passages reached the model without the answer's words: wrong chunk, or structure lost),
    ``declined with answer in prompt`` (prompt or model), ``model wrong with answer in prompt``."""
    if q.source not in row["sources"]:
        return "cut by threshold" if q.source in row["uncut"] else "retrieval missed"
    if not _holds(row["source_texts"], q):
        return "passage without answer"
    if is_abstention(row["answer"]):
        return "declined with answer in prompt"
    if shown_as_passages(row["answer"]):
        return "reply replaced by its passages"
    return "model wrong with answer in prompt"


def shown_as_passages(answer: str) -> bool:
    """The model's reply was not shown: Hearth showed the passages instead (an unverifiable,
    incomplete or instruction-following reply). Such an answer is never counted right."""
    from service.answering.grounding import FOLLOWED_INSTRUCTION, NOT_VERIFIED

    return answer.startswith((NOT_VERIFIED, FOLLOWED_INSTRUCTION))


def score(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per kind (and ``all``): asked, right, right file cited, declined, wrongly declined."""
    table: dict[str, dict[str, Any]] = {}
    for row in rows:
        q = QUESTIONS[row["i"]]
        declined = is_abstention(row["answer"])
        for kind in (q.kind, "answerable" if q.answerable else None, "all"):
            if kind is None:
                continue
            t = table.setdefault(
                kind,
                {
                    "asked": 0,
                    "right": 0,
                    "cited": 0,
                    "declined": 0,
                    "wrongly_declined": 0,
                    "causes": {},
                },
            )
            t["asked"] += 1
            if not q.answerable:
                t["declined"] += declined
                continue
            right = (
                not declined
                and not shown_as_passages(row["answer"])
                and answer_contains(row["answer"], q.answers)
            )
            t["right"] += right
            t["cited"] += q.source in row["cited"]
            t["wrongly_declined"] += declined
            if not right:
                c = cause(q, row)
                t["causes"][c] = t["causes"].get(c, 0) + 1
    return table


def run_checkout(code: Path, files: Path, work: Path, limit: int | None) -> list[dict[str, Any]]:
    """Ingest ``files`` and answer with the code in ``code`` (subprocesses)."""
    env = {**os.environ, "PYTHONPATH": str(code), "HEARTH_DATA_DIR": str(work / "data")}
    py = sys.executable
    ingest = subprocess.run(
        [py, "-m", "service.cli", "ingest", str(files)],
        env=env,
        capture_output=True,
        text=True,
        cwd=code,
    )
    print(f"[{code}] {ingest.stdout.strip()} {ingest.stderr.strip()[-300:]}", file=sys.stderr)
    out = work / "answers.jsonl"
    asked = work / "questions.json"
    asked.write_text(json.dumps([QUESTIONS[i].question for i in run_order()[:limit]]))
    # -P: the script's folder (bench/, whose ingest.py would shadow the package) not on sys.path
    args = [py, "-P", str(REPO / "bench" / "hardworker.py"), str(out), str(asked)]
    subprocess.run(args, env=env, check=True, cwd=code)
    return read_rows(out)


def run_order() -> list[int]:
    """Question indexes taking the kinds in turn, so that a run cut short covers every kind."""
    by_kind = [[i for i, q in enumerate(QUESTIONS) if q.kind == k] for k in KINDS]
    order: list[int] = []
    while any(by_kind):
        order += [group.pop(0) for group in by_kind if group]
    return order


def read_rows(out: Path) -> list[dict[str, Any]]:
    """A worker's answers (complete lines only), with ``i`` mapped back to ``QUESTIONS``."""
    order = run_order()
    rows = []
    for line in out.read_text().splitlines():
        row = json.loads(line)
        rows.append({**row, "i": order[row["i"]]})
    return rows


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "-"


def print_table(name: str, table: dict[str, dict[str, Any]]) -> None:
    """One row per kind."""
    print(
        f"\n{name}\n{'kind':14s} {'right':>12s} {'file cited':>12s} {'wrongly decl.':>14s} "
        f"{'declined (unans.)':>18s}  causes of misses"
    )
    for kind in (*KINDS, "answerable", "all"):
        t = table.get(kind)
        if not t:
            continue
        answerable = t["asked"] - (t["asked"] if kind == "unanswerable" else 0)
        unans = t["asked"] if kind in ("unanswerable",) else 0
        if kind == "all":
            unans = table.get("unanswerable", {}).get("asked", 0)
            answerable = t["asked"] - unans
        print(
            f"{kind:14s} {_pct(t['right'], answerable):>12s} {_pct(t['cited'], answerable):>12s} "
            f"{_pct(t['wrongly_declined'], answerable):>14s} {_pct(t['declined'], unans):>18s}"
            f"  {t['causes'] or ''}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="another checkout to run first (e.g. ../main)")
    ap.add_argument("--limit", type=int, help="only the first N questions")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "hearth-hard")
    ap.add_argument("--no-after", action="store_true", help="run only the --before checkout")
    ap.add_argument(
        "--score", nargs="+", type=Path, metavar="ANSWERS", help="only score answers.jsonl files"
    )
    args = ap.parse_args()
    if args.score:
        for path in args.score:
            print_table(str(path), score(read_rows(path)))
        return
    from bench.hardfiles import make_files

    if shutil.which("espeak-ng") is None:  # the stereo recording's two voices are spoken by it
        sys.exit(
            "bench/hard.py: its two-voice recording is spoken by Debian's espeak-ng, which is not "
            "installed here: apt-get install espeak-ng (scripts/test.sh does it when run as root)"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    files = args.out / "files"
    make_files(files)
    print(f"load average {os.getloadavg()}", file=sys.stderr)
    results: dict[str, Any] = {}
    for name, code in (("before", args.before), ("after", None if args.no_after else REPO)):
        if code is None:
            continue
        work = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=args.out))
        rows = run_checkout(code.resolve(), files, work, args.limit)
        results[name] = {"code": str(code), "rows": rows, "table": score(rows)}
        print_table(f"{name} ({code})", results[name]["table"])
    (args.out / "results.json").write_text(json.dumps(results, indent=1))
    print(f"\nload average {os.getloadavg()}; results in {args.out / 'results.json'}")


if __name__ == "__main__":
    main()
