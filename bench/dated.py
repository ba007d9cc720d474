"""The precision of ``grounding.dated`` on "when" questions nobody here wrote (SQuAD 2.0 dev).

    .venv/bin/python bench/dated.py             # figures
    .venv/bin/python bench/dated.py --show 20   # and the first 20 firings

The check replaces a reply to a "when" question that states another date than the one whose
clause in the passages holds the question's words best. Every SQuAD 2.0 dev question it
reads as a "when" question (``DATE_QUESTION``) is given the reply "It was on 1 January 1900
[1]." (a date no paragraph holds: the check fires whenever it reads a date) and its Wikipedia
paragraph as passage 1:

- answerable questions: a firing is right when the date read is one of SQuAD's answers (the same
  day, or one answer's text within it, or it within one answer);
- unanswerable ones: a firing answers a question the paragraph does not answer. In use it fires
  only on a reply that already answered it with another date (a wrong answer either way): a
  reply that declines or states no date is never replaced.

Neither depends on the model. Needs ``../shared/data/qa`` (skips with a message without it).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

from core.text import dates, fold
from service.answering.grounding import DATE_QUESTION, dated

QA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qa"
REPLY = "It was on 1 January 1900 [1]."


def wilson(right: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``right / n`` (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = right / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def matches(written: str, answers: list[str]) -> bool:
    """The date read is one of the gold answers: the same day, or one text within the other."""
    w = fold(written)
    days = {d for _, d, _ in dates(written)}
    for answer in answers:
        a = fold(answer)
        if a and (a in w or w in a):
            return True
        if days & {d for _, d, _ in dates(answer)}:
            return True
    return False


def load(name: str) -> list[dict[str, Any]]:
    with (QA / name).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=0, help="print the first N firings")
    args = parser.parse_args()
    if not QA.is_dir():
        print(f"skipped: {QA} is not here (a clone outside this workplace has no ../shared)")
        return
    contexts = {r["context_id"]: r["context"] for r in load("squad2_dev_answerable.jsonl")}
    shown = 0
    started = time.perf_counter()
    asked = 0
    for name, answerable in (
        ("squad2_dev_answerable.jsonl", True),
        ("squad2_dev_unanswerable.jsonl", False),
    ):
        # an unanswerable question's paragraph is an answerable one's (by ``context_id``)
        rows = [
            r
            for r in load(name)
            if DATE_QUESTION.match(r["question"]) and r["context_id"] in contexts
        ]
        asked += len(rows)
        fired = right = 0
        for row in rows:
            read = dated(row["question"], REPLY, {1: contexts[row["context_id"]]})
            if read is None:
                continue
            fired += 1
            good = answerable and matches(read.written, row["answers"])
            right += good
            if shown < args.show:
                shown += 1
                mark = "right" if good else "WRONG"
                print(f"{mark}: {row['question']} -> {read.written} (gold {row['answers']})")
        if answerable:
            low, high = wilson(right, fired)
            print(
                f"answerable 'when' questions {len(rows)}: fired {fired} "
                f"({fired / max(1, len(rows)):.1%}), right {right}/{fired} "
                f"(precision {right / max(1, fired):.2f}, 95% interval {low:.2f}-{high:.2f})"
            )
        else:
            print(
                f"unanswerable 'when' questions {len(rows)}: fired {fired} "
                f"({fired / max(1, len(rows)):.1%}; in use only where the reply answered the "
                "trap with another date)"
            )
    per = (time.perf_counter() - started) / max(1, asked) * 1000
    print(f"{per:.2f} ms per question")


if __name__ == "__main__":
    main()
