"""Prompt helpers, citation parsing and the HTTP error mapping."""

from __future__ import annotations

from core.errors import (
    HearthError,
    InvalidInputError,
    LoaderError,
    NotFoundError,
    OverloadedError,
    PayloadTooLargeError,
    UnsupportedTypeError,
)
from core.text import cited_numbers
from service.answering.prompting import clean_for_prompt
from service.errors import error_body, status_for


def test_cited_numbers_in_order_without_repeats() -> None:
    assert cited_numbers("A [2], B [1][2], C [12].") == [2, 1, 12]
    assert cited_numbers("no citations") == []


def test_prompt_text_drops_reference_markers_and_soft_breaks() -> None:
    assert clean_for_prompt("patented in\n1868 by Sholes.[17]\nNext") == (
        "patented in 1868 by Sholes.\nNext"
    )


def test_errors_map_to_4xx() -> None:
    assert status_for(InvalidInputError("x")) == 400
    assert status_for(PayloadTooLargeError("x")) == 413
    assert status_for(NotFoundError("x")) == 404
    assert status_for(UnsupportedTypeError("x")) == 415
    assert status_for(LoaderError("x")) == 422
    assert status_for(OverloadedError("x")) == 429
    assert status_for(HearthError("x")) == 400
    assert error_body(InvalidInputError("question: empty", field="question")) == {
        "error": "InvalidInputError",
        "detail": "question: empty",
        "field": "question",
    }
