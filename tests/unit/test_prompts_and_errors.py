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
from service.errors import error_body, status_for
from service.prompts import build_messages, cited_numbers, clean_for_prompt
from service.retrieval import Passage


def passage(n: int, text: str, **prov: object) -> Passage:
    return Passage(n, n, 1, f"/docs/f{n}.pdf", "pdf", dict(prov), 0.5, text)


def test_cited_numbers_in_order_without_repeats() -> None:
    assert cited_numbers("A [2], B [1][2], C [12].") == [2, 1, 12]
    assert cited_numbers("no citations") == []


def test_prompt_text_drops_reference_markers_and_soft_breaks() -> None:
    assert clean_for_prompt("patented in\n1868 by Sholes.[17]\nNext") == (
        "patented in 1868 by Sholes.\nNext"
    )


def test_messages_number_every_source_with_its_place() -> None:
    msgs = build_messages("Who?", [passage(1, "alpha", page=2), passage(2, "beta")])
    assert msgs[0]["role"] == "system" and msgs[-1]["role"] == "user"
    assert "[1] (f1.pdf, page 2) alpha" in msgs[-1]["content"]
    assert "[2] (f2.pdf) beta" in msgs[-1]["content"]
    assert msgs[-1]["content"].endswith("Question: Who?")


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
