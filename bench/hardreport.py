"""A long annual report (Markdown) for the hard set: facts spread over many sections, numbers with
near-miss neighbours, and facts that only answer a question together (two steps)."""

from __future__ import annotations

import random
from pathlib import Path

FACTS = {
    "Revenue": (
        "Group revenue for 2025 was 4.82 million pounds, up from 4.28 million pounds in 2024. "
        "The board expects revenue of 5.1 million pounds in 2026."
    ),
    "Floor space": (
        "The Ashford warehouse has a floor area of 1,240 square metres. The head office in "
        "Swindon has a floor area of 1,420 square metres."
    ),
    "Projects": (
        "The Harbour project, which rebuilt the loading docks, was led by Imogen Clarke. "
        "The Meadow project installed solar panels on the warehouse roof."
    ),
    "People": (
        "Imogen Clarke joined the company in 2014 after six years at Vantra Logistics. "
        "Rafael Costa, who runs procurement, joined in 2017."
    ),
    "Regions": (
        "The Northern region had the highest sales of the four regions in 2025. The Coastal "
        "region grew fastest, by 12 per cent."
    ),
    "Management": (
        "The Northern region is managed by Declan Murphy from the Leeds office. The Coastal "
        "region is managed by Sofia Reyes."
    ),
    "Safety": (
        "There were 3 reportable accidents in 2025, against 7 in 2024. Staff completed 1,150 "
        "hours of safety training."
    ),
    "Energy": (
        "Electricity use fell to 318 megawatt hours in 2025 from 381 megawatt hours in 2024, "
        "mostly thanks to the solar panels."
    ),
    "Fleet": (
        "The delivery fleet has 26 vans, of which 9 are electric. Vans drove 412,000 miles in 2025."
    ),
    "Customers": (
        "Customer satisfaction was 87 per cent in the autumn survey; the spring survey gave "
        "78 per cent."
    ),
}
_SUBJECTS = ["The team", "Our staff", "The board", "Each site", "The company", "Management"]
_VERBS = ["reviewed", "improved", "discussed", "monitored", "planned", "documented"]
_OBJECTS = [
    "its working practices",
    "the supplier contracts",
    "the training plan",
    "stock levels",
    "the maintenance schedule",
    "quality checks",
    "the customer service process",
    "internal communication",
    "the recruitment process",
    "the year's objectives",
]
_TAILS = [
    "throughout the year.",
    "with help from outside advisers.",
    "at the quarterly meetings.",
    "as agreed in the previous report.",
    "in line with the group's policies.",
]


def _filler(rng: random.Random, sentences: int) -> str:
    return " ".join(
        f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_TAILS)}"
        for _ in range(sentences)
    )


def write_report(path: Path) -> None:
    """Write the report: each fact in its own section among sections of filler, so that the two
    halves of a two-step question are far apart."""
    rng = random.Random(21)
    parts = ["# Northgate Supplies annual report 2025\n"]
    for i, (title, fact) in enumerate(FACTS.items(), start=1):
        parts.append(f"## {i}. {title}\n\n{_filler(rng, 6)}\n\n{fact} {_filler(rng, 3)}\n")
        parts.append(f"### Notes on {title.lower()}\n\n{_filler(rng, 8)}\n")
    path.write_text("\n".join(parts), encoding="utf-8")
