"""Passages a retrieval hop appends never take a number a given passage has: the scaled pass
(Postgres + a Chroma server) ranked the Ethiopian accident's passage second, the side hop
appended Lion Air's as number 2 too, and ``compute`` read one of them under both numbers."""

from __future__ import annotations

from typing import Any

from service.answering.retrieval import Passage, second_hop, side_hop


def _passage(number: int, chunk_id: int, text: str) -> Passage:
    return Passage(number, chunk_id, 1, "/notice.pdf", "pdf", {}, 0.5, text)


class Found:
    """A retriever finding the same passages for any query, numbered from 1 as found."""

    def __init__(self, *texts: str) -> None:
        self.passages = [_passage(i, 100 + i, t) for i, t in enumerate(texts, start=1)]

    def retrieve(self, question: str, **_: Any) -> list[Passage]:
        return list(self.passages)


def test_a_side_hop_numbers_past_the_highest_given() -> None:
    given = [_passage(2, 7, "On March 10, 2019, the Ethiopian Airlines Flight 302 crashed.")]
    found = Found("The Lion Air Flight 610 accident on October 29, 2018.")
    both = side_hop(found, given, ("the Lion Air accident",), lambda ps: len(ps) == 2)  # type: ignore[arg-type]
    assert [p.number for p in both] == [2, 3] and both[1].kept


def test_a_second_hop_numbers_past_the_highest_given() -> None:
    question = "When did the leader of the Harbour project join the company?"
    given = [_passage(4, 7, "The Harbour project was led by Imogen Clarke.")]
    found = Found("Imogen Clarke joined the company in 2011.")
    hopped = second_hop(found, question, given, 5)  # type: ignore[arg-type]
    assert [p.number for p in hopped] == [4, 5]


def test_a_hop_passage_is_named_only_when_the_question_named_its_document() -> None:
    """Held-out dev h142: the second hop's own query named the federal register notice, its
    passage came back ``named``, and fitting gave its sentences before the first passage's
    "resulting in 157 fatalities"."""
    from dataclasses import replace

    question = "When did the leader of the Harbour project join the company?"
    given = [_passage(1, 7, "The Harbour project was led by Imogen Clarke.")]
    found = Found("Imogen Clarke joined the company in 2011.")
    found.passages = [replace(p, document_id=2, named=True) for p in found.passages]
    assert not second_hop(found, question, given, 5)[1].named  # type: ignore[arg-type]
    given = [replace(given[0], document_id=2, named=True)]  # the question named that document
    assert second_hop(found, question, given, 5)[1].named  # type: ignore[arg-type]
