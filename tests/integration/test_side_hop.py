"""An arithmetic question's two sides searched on their own (issue 35): "How many days after the
Lion Air Flight 610 accident did the Ethiopian Airlines Flight 302 accident happen?" over the
real Federal Register notice (bench/heldout/files, a dev-half file) found the Ethiopian
accident's date but not Lion Air's, and the 1.5B answered "157 days" (the Ethiopian crash's
fatalities). With each side's own search, both dates are in the passages and Hearth computes 132."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from service.answering.grounding import compute, sides
from service.answering.orchestration import further_hops
from service.answering.retrieval import Filters, Passage, Retriever, second_hop, side_hop

pytestmark = pytest.mark.embedded_only(
    "the second search and the arithmetic are the subject; test_rag covers answers over these "
    "backends: one pass"
)

NOTICE = (
    Path(__file__).parents[2] / "bench" / "heldout" / "files" / "federal-register-2020-17221.pdf"
)
QUESTION = (
    "How many days after the Lion Air Flight 610 accident did the Ethiopian Airlines Flight 302 "
    "accident happen?"
)


def _computed(passages: list[Passage]) -> str | None:
    got = compute(QUESTION, {p.number: p.text for p in passages})
    return None if got is None else got.formula()


@pytest.fixture
def retriever(kb: KnowledgeBase, embedder: Embedder, tmp_path: Path) -> Retriever:
    """A retriever over the notice alone, ingested for real."""
    shutil.copy(NOTICE, tmp_path / NOTICE.name)
    IngestPipeline(kb, embedder).ingest_paths([tmp_path])
    return Retriever(kb, embedder)


def test_each_side_of_a_days_between_question_is_searched(retriever: Retriever) -> None:
    asked = sides(QUESTION)
    assert asked == (
        "the Lion Air Flight 610 accident",
        "the Ethiopian Airlines Flight 302 accident happen",
    )
    ethiopian = [p for p in retriever.retrieve(QUESTION) if "March 10, 2019" in p.text][:1]
    assert ethiopian and _computed(ethiopian) is None  # one side's date alone: nothing computed
    both = side_hop(retriever, ethiopian, asked, lambda ps: _computed(ps) is not None)
    # numbered past the given passage, whatever its rank (2 on the scaled pass)
    assert len(both) == 2 and both[1].kept and both[1].number == ethiopian[0].number + 1
    assert "October 29, 2018" in both[1].text
    assert _computed(both) == "March 10, 2019 - October 29, 2018 = 132 days"
    # the hops an answer takes: whatever the first search found, the result is computed
    found = further_hops(retriever, QUESTION, retriever.retrieve(QUESTION), 5, Filters())
    assert _computed(found) == "March 10, 2019 - October 29, 2018 = 132 days"


def test_a_question_with_no_sides_keeps_its_passages(retriever: Retriever) -> None:
    question = "What caused the Lion Air Flight 610 accident?"
    assert sides(question) is None
    found = retriever.retrieve(question)
    hopped = second_hop(retriever, question, found, 5, Filters())
    assert further_hops(retriever, question, found, 5, Filters()) == hopped
    # sides no candidate completes: nothing appended
    moon = ("the moon landing", "the Rhine")
    assert side_hop(retriever, found[:1], moon, lambda ps: False) == found[:1]
