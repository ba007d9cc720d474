"""The precision of ``grounding.polarity`` on yes/no questions nobody here wrote (BoolQ).

    .venv/bin/python bench/polarity.py                 # the dev half (tune on it)
    .venv/bin/python bench/polarity.py --split test    # the test half (run once, report)
    .venv/bin/python bench/polarity.py --show 20       # and the first 20 firings

The check replaces a reply that says "Yes" by "No" with the passage sentence that negates the
question. For every BoolQ question (bench/boolq/README.md) it is given the reply "Yes [1]." and
the question's Wikipedia passage as passage 1: when it fires, it is right when BoolQ's answer is
"no" (precision), and it caught that share of all the "no" questions (recall). Neither depends on
the model: the check reads only the question, the passage and the reply's first word. Printed:
questions, gold "no", fired, precision (with a Wilson 95% interval), recall, and the time per
question.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import time
from pathlib import Path
from typing import Any

from service.answering.grounding import polarity

DATA = Path(__file__).resolve().parent / "boolq"


def load(split: str) -> list[dict[str, Any]]:
    """The BoolQ rows of ``split`` (``dev`` or ``test``): question, title, answer, passage."""
    with gzip.open(DATA / f"{split}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def as_question(text: str) -> str:
    """BoolQ writes questions in lower case without a mark: "is x y" -> "Is x y?"."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith("?") else "?")


def wilson(right: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``right``/``n`` (Wilson 1927)."""
    if n == 0:
        return (0.0, 1.0)
    p = right / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def run(split: str, show: int = 0) -> dict[str, Any]:
    """Fire the check on every row of ``split``; return the counts (and print ``show`` firings)."""
    rows = load(split)
    fired = right = 0
    start = time.perf_counter()
    for row in rows:
        question = as_question(row["question"])
        found = polarity(question, "Yes [1].", {1: row["passage"]})
        if found is None:
            continue
        fired += 1
        right += not row["answer"]
        if fired <= show:
            mark = "right" if not row["answer"] else "WRONG"
            print(f"{mark:5s} {question} || {found.sentence[:160]}")
    seconds = time.perf_counter() - start
    return {
        "split": split,
        "questions": len(rows),
        "gold_no": sum(not r["answer"] for r in rows),
        "fired": fired,
        "right": right,
        "ms_per_question": 1000 * seconds / max(1, len(rows)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--show", type=int, default=0, help="print the first N firings")
    args = parser.parse_args()
    r = run(args.split, args.show)
    low, high = wilson(r["right"], r["fired"])
    precision = r["right"] / r["fired"] if r["fired"] else float("nan")
    print(
        f"BoolQ {r['split']}: {r['questions']} questions, {r['gold_no']} answered no; "
        f"grounding.polarity fired {r['fired']} ({r['fired'] / r['questions']:.1%}), "
        f"right {r['right']}/{r['fired']} = precision {precision:.2f} "
        f"(95% {low:.2f}-{high:.2f}), recall of the no answers {r['right'] / r['gold_no']:.3f}, "
        f"{r['ms_per_question']:.1f} ms a question"
    )


if __name__ == "__main__":
    main()
