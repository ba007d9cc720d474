"""Fitting scores a line under a short label line with it (service/answering/retrieval/
_passages.py ``under_label``): "2025 Objectives" over "Revenue Target: $12M" (held-out batch 4
dev h428), but never an e-mail header's "field: value" (dev h179, h081), a sentence or a row."""

from __future__ import annotations

from service.answering.retrieval import under_label


def test_a_label_line_is_read_with_the_line_under_it() -> None:
    pieces = ["2025 Objectives", "Revenue Target: $12M (400% growth)"]
    assert under_label(pieces, 1) == "2025 Objectives\nRevenue Target: $12M (400% growth)"
    assert under_label(pieces, 0) == "2025 Objectives"


def test_headers_sentences_and_rows_are_no_labels() -> None:
    for above in (
        "Subject: RE: exam",  # an e-mail header: a field and its value
        "It rained.",  # a sentence
        "Name | Total",  # a table's row
        "A line of more than four words",
    ):
        pieces = [above, "Sent: Friday, July 11, 2008 12:52 AM"]
        assert under_label(pieces, 1) == "Sent: Friday, July 11, 2008 12:52 AM", above
