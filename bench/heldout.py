"""The held-out set (issue 35): questions over real public files written by others (bench/heldout/,
its README names each file's source and licence), split once at random into a ``dev`` half (look
at it, tune on it) and a ``test`` half (run at the end of a change and reported, never tuned on).

    .venv/bin/python bench/heldout.py                    # the dev half, this checkout
    .venv/bin/python bench/heldout.py --split test       # the test half (once, at the end)
    .venv/bin/python bench/heldout.py --split test --batch 3   # one batch's test half
    .venv/bin/python bench/heldout.py --before ../old    # another checkout first, same run
    .venv/bin/python bench/heldout.py --score DIR/answers.jsonl   # score a (partial) run again
    .venv/bin/python bench/heldout.py --review DIR/answers.jsonl [--before ../old]
        # the grounding review of this checkout (and of --before) run again on the replies that
        # run kept: the checks before/after on the very same replies, no model loaded
    .venv/bin/python bench/heldout.py --retrieval --data DIR/data [--before ../old]
        # retrieval only, on an ingested data directory: the answering file among the passages
        # and first, per kind (no model loaded)

Every file is ingested with ``hearth ingest`` into a scratch data directory and every question is
asked through ``AnswerService`` as ``hearth serve`` builds it for ``/api/ask``
(bench/heldout_worker.py, default bundled model; each row keeps the raw reply and the passages
its review read, for ``--review``). Printed per kind: right (every gold group contained, not
declined, not replaced), declined, wrong, right file cited; unanswerable questions declined; and
for every check that declines or replaces an answer (the ``grounding`` verdict's reasons, and
declines with no passage or by the model itself) its precision (it fired on an unanswerable
question or one whose gold answer was in no passage given to the model) and recall (of the
answers that should have been declined, the share it caught).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from core.evalmetrics import answer_contains, is_abstention  # noqa: E402

HERE = REPO / "bench" / "heldout"
FILES = HERE / "files"
QUESTIONS = HERE / "questions.jsonl"

#: Markers a reply replaced by its passages starts with (service/answering: NOT_VERIFIED and
#: FOLLOWED_INSTRUCTION); copied so that an older checkout can be scored.
REPLACED = (
    "I can't answer that from your documents",
    "The reply followed an instruction written inside one of your documents",
)
#: Verdict fields that decline or replace an answer (service/answering/grounding).
CHECKS = (
    "unmentioned",
    "unlinked",
    "unbound",
    "invented",
    "incomplete",
    "echoed_example",
    "injection",
)
#: Verdict fields of checks that answer instead of the model (Hearth's arithmetic, a "Yes" the
#: passage negates): right when fired is the answer shown being right.
ANSWERING_CHECKS = ("computed", "polarity", "dated")


def load_questions(split: str, batch: int | None = None) -> list[dict[str, Any]]:
    """The questions of ``split`` (``dev``, ``test`` or ``all``), of one ``batch`` (each batch's
    files and questions were written together and split on their own; None: every batch), in
    file order."""
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    return [
        q for q in rows if (split == "all" or q["split"] == split) and batch in (None, q["batch"])
    ]


def is_right(answer: str, q: dict[str, Any]) -> bool:
    """Every gold group (alternatives) is contained in the answer as whole words, normalised."""
    return all(answer_contains(answer, group) for group in q["answers"])


def replaced(answer: str) -> bool:
    """The model's reply was not shown: Hearth showed the passages instead."""
    return answer.startswith(REPLACED)


def fired(row: dict[str, Any]) -> list[str]:
    """The checks that declined or replaced this answer (empty when it was shown as written)."""
    answer = row["answer"]
    if not (is_abstention(answer) or replaced(answer)):
        return []
    g = row.get("grounding") or {}
    names = [f"grounding.{c}" for c in CHECKS if c != "injection" and g.get(c)]
    if any(str(u).startswith("injection") for u in g.get("unsupported") or []):
        names.append("grounding.injection")
    if names:
        return names
    if not row["sources"]:
        return ["retrieval (no passage)"]
    if replaced(answer):
        return ["grounding.on_fail"]
    return ["model declined"]


def should_decline(q: dict[str, Any], row: dict[str, Any]) -> bool:
    """A decline is right: the question is unanswerable, or no passage given holds its answer."""
    if q.get("unanswerable"):
        return True
    return not any(is_right(t, q) for t in row["source_texts"])


def reply_wrong(q: dict[str, Any], row: dict[str, Any]) -> bool | None:
    """The model's own reply (before any check) was not a right answer: the question is
    unanswerable, or the reply lacks a gold group or declines; None when the run kept no reply
    (an older worker)."""
    reply = (row.get("raw") or {}).get("reply")
    if reply is None:
        return None
    if q.get("unanswerable"):
        return True
    return is_abstention(reply) or not is_right(reply, q)


def score(questions: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kind: asked, right, declined, wrong, cited (answerable), declined (unanswerable); and
    per check: fired, right when fired (no passage held the answer, or the question has none),
    caught of those that should have been declined; and, where the run kept the model's reply,
    right when fired by the reply (``wrong``: the reply it declined or replaced was not a right
    answer) and caught of the wrong replies."""
    kinds: dict[str, dict[str, int]] = {}
    checks: dict[str, dict[str, int]] = {}
    answering: dict[str, dict[str, int]] = {}
    should = 0
    wrong_replies = 0
    for row in rows:
        q = questions[row["i"]]
        answer = row["answer"]
        declined = is_abstention(answer) or replaced(answer)
        names = fired(row)
        good_decline = should_decline(q, row)
        should += good_decline
        bad_reply = reply_wrong(q, row)
        wrong_replies += bool(bad_reply)
        for name in names:
            c = checks.setdefault(name, {"fired": 0, "right": 0, "wrong": 0})
            c["fired"] += 1
            c["right"] += good_decline
            c["wrong"] += bool(bad_reply)
        verdict = row.get("grounding") or {}
        for name in ANSWERING_CHECKS:
            if verdict.get(name):
                a = answering.setdefault(f"grounding.{name}", {"fired": 0, "right": 0, "wrong": 0})
                a["fired"] += 1
                a["right"] += not q.get("unanswerable") and is_right(answer, q)
                a["wrong"] += bool(bad_reply)
        groups = ["unanswerable"] if q.get("unanswerable") else [q["kind"], "answerable"]
        for kind in groups:
            t = kinds.setdefault(
                kind, {"asked": 0, "right": 0, "declined": 0, "wrong": 0, "cited": 0}
            )
            t["asked"] += 1
            if kind == "unanswerable":
                t["declined" if declined else "wrong"] += 1
                continue
            right = not declined and is_right(answer, q)
            t["right"] += right
            t["declined"] += declined
            t["wrong"] += not declined and not right
            t["cited"] += q["file"] in row["cited"]
    return {
        "kinds": kinds,
        "checks": checks,
        "answering": answering,
        "should_decline": should,
        "wrong_replies": wrong_replies,
    }


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "-"


def print_table(name: str, table: dict[str, Any]) -> None:
    """One row per kind, then one per check."""
    kinds = table["kinds"]
    order = sorted(k for k in kinds if k not in ("answerable", "unanswerable"))
    print(f"\n{name}")
    print(f"{'kind':16s} {'right':>13s} {'declined':>13s} {'wrong':>13s} {'file cited':>13s}")
    for kind in (*order, "answerable", "unanswerable"):
        t = kinds.get(kind)
        if not t:
            continue
        n = t["asked"]
        if kind == "unanswerable":
            print(f"{kind:16s} {'':>13s} {_pct(t['declined'], n):>13s} {_pct(t['wrong'], n):>13s}")
            continue
        print(
            f"{kind:16s} {_pct(t['right'], n):>13s} {_pct(t['declined'], n):>13s} "
            f"{_pct(t['wrong'], n):>13s} {_pct(t['cited'], n):>13s}"
        )
    should, wrong = table["should_decline"], table.get("wrong_replies", 0)
    print(
        f"\n{'check (declines/replaces)':28s} {'fired':>6s} {'precision':>14s} {'recall':>14s}"
        f" {'prec. (reply)':>14s} {'recall (reply)':>14s}"
    )
    for name, c in sorted(table["checks"].items()):
        print(
            f"{name:28s} {c['fired']:6d} {_pct(c['right'], c['fired']):>14s} "
            f"{_pct(c['right'], should):>14s} {_pct(c.get('wrong', 0), c['fired']):>14s} "
            f"{_pct(c.get('wrong', 0), wrong):>14s}"
        )
    print(
        f"(precision, recall: the answer was in no passage given, or the question has none:"
        f" {should}; (reply): the model's reply was not right: {wrong})"
    )
    if table.get("answering"):
        print(
            f"\n{'check (answers instead)':28s} {'fired':>6s} {'right shown':>14s} "
            f"{'reply wrong':>14s}"
        )
        for name, a in sorted(table["answering"].items()):
            print(
                f"{name:28s} {a['fired']:6d} {_pct(a['right'], a['fired']):>14s} "
                f"{_pct(a['wrong'], a['fired']):>14s}"
            )


def run_checkout(
    code: Path,
    work: Path,
    questions: list[dict[str, Any]],
    order: list[int],
    data: Path | None = None,
) -> list[dict[str, Any]]:
    """Ingest the files and answer ``questions`` (in ``order``) with the code in ``code``; with
    ``data``, a data directory this checkout's ingest already filled is used as it is."""
    data = data or work / "data"
    env = {**os.environ, "PYTHONPATH": str(code), "HEARTH_DATA_DIR": str(data)}
    py = sys.executable
    started = time.perf_counter()
    ingest = subprocess.run(
        [py, "-m", "service.cli", "ingest", str(FILES)]
        if not (data / "catalogue.db").exists()
        else [py, "-c", "print('data directory reused')"],
        env=env,
        capture_output=True,
        text=True,
        cwd=code,
    )
    print(
        f"[{code}] ingest {time.perf_counter() - started:.0f} s: {ingest.stdout.strip()[-300:]}"
        f" {ingest.stderr.strip()[-300:]}",
        file=sys.stderr,
    )
    out = work / "answers.jsonl"
    asked = work / "questions.json"
    asked.write_text(json.dumps([questions[i]["question"] for i in order]))
    (work / "order.json").write_text(json.dumps([questions[i]["id"] for i in order]))
    # -P: the script's folder (bench/, whose ingest.py would shadow the package) not on sys.path
    args = [py, "-P", str(REPO / "bench" / "heldout_worker.py"), str(out), str(asked)]
    subprocess.run(args, env=env, check=True, cwd=code)
    return read_rows(out, questions)


def read_rows(out: Path, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A worker's answers (complete lines), ``i`` mapped back to ``questions`` by id."""
    ids = json.loads((out.parent / "order.json").read_text())
    index = {q["id"]: i for i, q in enumerate(questions)}
    rows = []
    for line in out.read_text().splitlines():
        row = json.loads(line)
        if ids[row["i"]] in index:
            rows.append({**row, "i": index[ids[row["i"]]]})
    return rows


def review_again(code: Path, raw: Path, out: Path, questions: list[dict[str, Any]]) -> Any:
    """The review of the checkout ``code`` run on the replies ``raw`` kept, scored."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    args = [sys.executable, "-P", str(REPO / "bench" / "heldout_worker.py"), "--review"]
    subprocess.run([*args, str(raw), str(out)], env=env, check=True, cwd=code)
    rows = read_rows(out, questions)
    return rows, score(questions, rows)


def retrieval(code: Path, data: Path, work: Path, questions: list[dict[str, Any]]) -> None:
    """Retrieval alone with the checkout ``code`` on the ingested ``data``: per kind, the
    answering file among the passages, and first."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "questions.json").write_text(json.dumps([q["question"] for q in questions]))
    env = {**os.environ, "PYTHONPATH": str(code), "HEARTH_DATA_DIR": str(data)}
    args = [sys.executable, "-P", str(REPO / "bench" / "heldout_worker.py"), "--retrieve"]
    out = work / "retrieved.jsonl"
    subprocess.run([*args, str(out), str(work / "questions.json")], env=env, check=True, cwd=code)
    table: dict[str, list[int]] = {}
    for line in out.read_text().splitlines():
        row = json.loads(line)
        q = questions[row["i"]]
        answers = q.get("answers") or []
        for kind in (q["kind"], "all"):
            t = table.setdefault(kind, [0, 0, 0, 0, 0, 0])
            t[0] += 1
            t[1] += q["file"] in row["sources"]
            t[2] += bool(row["sources"]) and row["sources"][0] == q["file"]
            if answers:  # the gold answer in the passages found, and in those the model is given
                t[3] += 1
                t[4] += _holds(row.get("texts", []), answers)
                t[5] += _holds(row.get("fitted_texts", []), answers)
    print(
        f"\nretrieval ({code})\n{'kind':16s} {'file in passages':>18s} {'file first':>14s}"
        f" {'answer found':>14s} {'answer given':>14s}"
    )
    for kind in (*sorted(k for k in table if k != "all"), "all"):
        n, held, first, answerable, found, given = table[kind]
        print(
            f"{kind:16s} {_pct(held, n):>18s} {_pct(first, n):>14s}"
            f" {_pct(found, answerable):>14s} {_pct(given, answerable):>14s}"
        )
    print(
        "(answer found: every gold group in the passages retrieval found; given: in the passages"
        " left after the further hops and fitting to the token budget, as the model gets them)"
    )


def _holds(texts: list[str], answers: list[list[str]]) -> bool:
    joined = "\n".join(texts)
    return bool(texts) and all(answer_contains(joined, group) for group in answers)


def _ids(values: Iterable[str]) -> set[str]:
    return {v.strip() for v in values if v.strip()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    ap.add_argument("--batch", type=int, help="only this batch's questions (1-15; default all)")
    ap.add_argument("--before", type=Path, help="another checkout to run first, same run")
    ap.add_argument("--limit", type=int, help="only N questions (a seeded sample of the split)")
    ap.add_argument("--kinds", help="only these kinds, comma-separated")
    ap.add_argument("--ids", help="only these question ids, comma-separated")
    ap.add_argument("--data", type=Path, help="an ingested data directory to reuse (after only)")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "hearth-heldout")
    ap.add_argument("--score", nargs="+", type=Path, metavar="ANSWERS", help="only score runs")
    ap.add_argument("--review", type=Path, metavar="ANSWERS", help="review kept replies again")
    ap.add_argument("--retrieval", action="store_true", help="retrieval only (needs --data)")
    args = ap.parse_args()
    questions = load_questions(args.split, args.batch)
    chosen = [name for name in ("ids", "kinds", "limit") if getattr(args, name)]
    if chosen and (args.score or args.review):
        ap.error(
            f"--{', --'.join(chosen)} choose the questions to run; --score and --review read "
            "the questions of the run they are given"
        )
    order = list(range(len(questions)))
    if args.kinds:
        wanted = _ids(args.kinds.split(","))
        order = [i for i in order if questions[i]["kind"] in wanted]
    if args.ids:
        wanted = _ids(args.ids.split(","))
        order = [i for i in order if questions[i]["id"] in wanted]
    if args.limit:
        order = sorted(random.Random(35).sample(order, min(args.limit, len(order))))
    if args.retrieval:
        if not args.data:
            ap.error("--retrieval needs --data (an ingested data directory)")
        for name, code in (("before", args.before), ("after", REPO)):
            if code is not None:
                work = args.out / f"retrieval-{name}"
                retrieval(code.resolve(), args.data.resolve(), work, [questions[i] for i in order])
        return
    if args.review:
        again: dict[str, Any] = {}
        for name, code in (("before", args.before), ("after", REPO)):
            if code is None:
                continue
            out = args.review.parent / f"reviewed-{name}.jsonl"
            rows, table = review_again(code.resolve(), args.review, out, questions)
            again[name] = {"code": str(code), "rows": rows, "table": table}
            print_table(f"{name} review ({code}) of the replies in {args.review}", table)
        (args.review.parent / "reviewed.json").write_text(json.dumps(again, indent=1))
        return
    if args.score:
        for path in args.score:
            print_table(str(path), score(questions, read_rows(path, questions)))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"{len(order)} questions ({args.split}); load average {os.getloadavg()}", file=sys.stderr)
    results: dict[str, Any] = {}
    for name, code in (("before", args.before), ("after", REPO)):
        if code is None:
            continue
        work = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=args.out))
        data = args.data.resolve() if args.data and name == "after" else None
        rows = run_checkout(code.resolve(), work, questions, order, data)
        table = score(questions, rows)
        results[name] = {"code": str(code), "work": str(work), "rows": rows, "table": table}
        print_table(f"{name} ({code}, {args.split} half)", table)
    (args.out / "results.json").write_text(json.dumps(results, indent=1))
    print(f"\nload average {os.getloadavg()}; results in {args.out / 'results.json'}")


if __name__ == "__main__":
    main()
