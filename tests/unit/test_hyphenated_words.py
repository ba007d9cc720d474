"""Words a typeset PDF hyphenated at a line's end are read whole (held-out dev h421: "the giant
component of the net-/work" lost to a sentence writing its words whole), and compounds keep
their hyphen where the document shows they are compounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.loaders.hyphens import join_hyphenated, vocabulary
from ingest.loaders.pdf import PdfLoader

HELDOUT = Path(__file__).resolve().parents[2] / "bench" / "heldout" / "files"

PAGE = """there is no guarantee that the observed genealogy network is a complete descrip-
tion of the mentorship network. The data are self-
reported, and self-reported data may be biased; we use a dual-
encoder, as the dual approach and its encoder are cheap; costs are con-
sidered
Rhein-
Main | Total: net-
work"""


def test_syllable_breaks_are_joined_and_compounds_keep_their_hyphen() -> None:
    joined = join_hyphenated(PAGE, vocabulary([PAGE]))
    assert "a complete description\nof the mentorship network." in joined
    assert "The data are self-reported,\nand" in joined  # written so elsewhere
    assert "we use a dual-encoder,\nas the dual" in joined  # both halves are words of it
    assert "costs are considered" in joined  # the second part alone ends its line
    assert "Rhein-\nMain" in joined  # a capital opens a name: not a break
    assert "Total: net-\nwork" in joined  # a table row is left as it is


def test_a_two_column_paper_reads_its_broken_words_whole() -> None:
    paper = HELDOUT / "two_column.pdf"
    if not paper.exists():
        pytest.skip(f"{paper} is not in this checkout")
    text = "\n".join(s.text for s in PdfLoader().load(paper))
    assert "giant component28 of the network;" in text
    assert "a complete description" in text
    assert "descrip-\ntion" not in text
    dense = "\n".join(s.text for s in PdfLoader().load(HELDOUT / "multi-column.pdf"))
    assert "dual-encoder" in dense and "dualencoder" not in dense
