"""Chunking logic with a whitespace tokenizer (the real tokenizer is exercised in integration)."""

from __future__ import annotations

import itertools
import re

import pytest

from core.types import Section
from ingest.chunker import Chunker


def count(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def offsets(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def words(n: int, tag: str) -> str:
    return " ".join(f"{tag}{i}" for i in range(n))


def test_chunks_never_exceed_the_limit_and_keep_provenance() -> None:
    chunker = Chunker(count, offsets, chunk_tokens=20, overlap_tokens=5)
    paragraphs = "\n\n".join(words(7, f"p{i}w") + "." for i in range(10))
    drafts = chunker.chunk([Section(paragraphs, {"page": 3})])
    assert len(drafts) > 3
    assert all(d.token_count <= 20 for d in drafts)
    assert all(d.provenance == {"page": 3} for d in drafts)
    assert [d.ordinal for d in drafts] == list(range(len(drafts)))


def test_neighbours_overlap_by_whole_units() -> None:
    chunker = Chunker(count, offsets, chunk_tokens=20, overlap_tokens=8)
    text = "\n\n".join(words(6, f"p{i}w") for i in range(8))
    drafts = chunker.chunk([Section(text)])
    for first, second in itertools.pairwise(drafts):
        last_para = first.text.split("\n")[-1]
        assert second.text.startswith(last_para)


def test_an_overlong_sentence_is_cut_into_token_windows() -> None:
    chunker = Chunker(count, offsets, chunk_tokens=10, overlap_tokens=2)
    drafts = chunker.chunk([Section(words(35, "w"))])
    assert all(d.token_count <= 10 for d in drafts)
    joined = " ".join(d.text for d in drafts)
    assert all(f"w{i}" in joined.split() for i in range(35))
    assert drafts[1].text.split()[0] == drafts[0].text.split()[-2]


def test_sections_are_not_merged_across_provenance() -> None:
    chunker = Chunker(count, offsets, chunk_tokens=50, overlap_tokens=5)
    drafts = chunker.chunk([Section("alpha beta", {"page": 1}), Section("gamma", {"page": 2})])
    assert [(d.text, d.provenance["page"]) for d in drafts] == [("alpha beta", 1), ("gamma", 2)]


def test_overlap_must_be_smaller_than_chunk() -> None:
    with pytest.raises(ValueError):
        Chunker(count, offsets, chunk_tokens=10, overlap_tokens=10)


def test_a_table_too_long_for_one_chunk_is_cut_between_rows_never_inside_one() -> None:
    # Rows carry their headers ("Item: Steel hinge | Q2 2026: 3.25"); the old sentence split cut
    # at every ": " and parted each value from its header and row.
    chunker = Chunker(count, offsets, chunk_tokens=30, overlap_tokens=5)
    rows = [
        f"Item: part{i} | Q1 2026: {i}.05 | Q2 2026: {i}.25 | Supplier: Calder" for i in range(8)
    ]
    drafts = chunker.chunk([Section("Prices\n" + "\n".join(rows))])
    assert len(drafts) > 1
    lines = [line for d in drafts for line in d.text.splitlines()]
    assert set(rows) <= set(lines)
    assert all(line in rows or line == "Prices" for line in lines)


def test_a_row_too_long_for_one_chunk_is_cut_between_cells() -> None:
    chunker = Chunker(count, offsets, chunk_tokens=6, overlap_tokens=1)
    row = " | ".join(f"Column {i}: value {i}" for i in range(6))
    drafts = chunker.chunk([Section(row)])
    cells = [cell for d in drafts for line in d.text.splitlines() for cell in line.split(" | ")]
    assert cells == [f"Column {i}: value {i}" for i in range(6)]


def test_a_chunk_starting_inside_a_long_row_opens_with_the_row_label() -> None:
    """Held-out batch 9 dev h905/h908: a GDP sheet's row of 40 quarters and a bond-yield CSV's
    row of 27 countries were cut between cells, and the chunks after the first said neither
    the sector nor the month their values are for."""
    chunker = Chunker(count, offsets, chunk_tokens=40, overlap_tokens=4)
    quarters = [f"Q{q} {y}: {y}{q}1" for y in range(2004, 2010) for q in range(1, 5)]
    row = " | ".join(["Descripción: A", "Sector: AGRICULTURA GANADERIA", *quarters])
    other = "Descripción: B | Sector: PESCA | Q1 2004: 17"
    drafts = chunker.chunk([Section(f"{row}\n{other}")])
    texts = [d.text for d in drafts]
    assert len(texts) > 2
    label = "Descripción: A | Sector: AGRICULTURA GANADERIA"
    assert all(t.startswith(label) for t in texts[:-1]), texts
    assert all(d.token_count <= 40 for d in drafts)
    cells = [c for t in texts for line in t.splitlines() for c in line.split(" | ")]
    assert all(q in cells for q in quarters)  # every cell kept, with its header
    assert texts[-1].splitlines()[-1] == other  # the next row is a row of its own
    assert "AGRICULTURA" not in texts[-1].splitlines()[-1]


def test_a_chunk_inside_a_captioned_table_opens_with_its_caption() -> None:
    """Held-out batch 4 dev h438: the Statistical Abstract's "Robbery" row was cut from "Table
    324. Arrests by Sex and Age: 2009", so no passage given held the year asked about."""
    rows = "\n".join(
        f"Offense charged: Offense {i} | Total: {i}.5 | Female Under 18 years: {i}.1"
        for i in range(12)
    )
    page = (
        "Some prose before the table.\n\nTable 324. Arrests by Sex and Age: 2009\n"
        "[In thousands]\nOffense charged | Total | Female Under 18 years\n"
        f"{rows}\n\nAfter the table, prose: a | b"
    )
    chunker = Chunker(count, offsets, chunk_tokens=30, overlap_tokens=5)
    texts = [d.text for d in chunker.chunk([Section(page, {"page": 1})])]
    in_table = [t for t in texts if "Offense charged: Offense" in t]
    assert len(in_table) >= 3
    assert all(t.startswith("Table 324. Arrests by Sex and Age: 2009\n") for t in in_table[1:])
    assert not [t for t in texts if "After the table" in t and "Table 324" in t]
