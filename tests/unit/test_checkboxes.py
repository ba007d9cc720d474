"""Check boxes said in words (ingest/checkboxes.py): a 10-K cover's "Yes ☐ No ☑" was a line
the 1.5B could not answer "Is Galaxy Gaming a well-known seasoned issuer?" from (dev h053)."""

from __future__ import annotations

import re

from core.types import Section
from ingest.checkboxes import mark_checked
from ingest.chunker import Chunker


def test_checked_options_are_named_after_their_line() -> None:
    wksi = "Indicate by check mark if the registrant is a well-known seasoned issuer. Yes ☐ No ☑"
    assert mark_checked(wksi) == wksi + " (checked: No)"
    kinds = "Large accelerated filer ☐ Non-accelerated filer ☐ Smaller reporting company ☑"
    assert mark_checked(kinds).endswith("(checked: Smaller reporting company)")
    for boxes_first in ("Pets: ☑ Cat ☐ Dog ☒ Fish", "☑ Cat ☐ Dog ☒ Fish"):
        assert mark_checked(boxes_first).endswith(" (checked: Cat; Fish)"), boxes_first


def test_lines_without_a_choice_are_left_alone() -> None:
    for text in ("Done ☑", "☐ | TRANSITION REPORT", "Yes ☐ No ☐", "No boxes at all."):
        assert mark_checked(text) == text


def test_chunks_carry_the_words() -> None:
    def count(texts: list[str]) -> list[int]:
        return [len(t.split()) for t in texts]

    def offsets(text: str) -> list[tuple[int, int]]:
        return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]

    chunker = Chunker(count, offsets, chunk_tokens=200, overlap_tokens=0)
    text = "Is the registrant a shell company? Yes ☐ No ☒"
    (chunk,) = chunker.chunk([Section(text, {})])
    assert chunk.text == text + " (checked: No)"
