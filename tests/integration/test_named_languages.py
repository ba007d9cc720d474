"""A language a question names as the part of a text to read ("the Portuguese sentence of the
scan"), through the real OCR, embedder, stores and lingua: retrieval keeps the scan, fitting
narrows it to that sentence, and grounding takes the language as held by the sentence, not as
a word a passage must state. Held-out dev h162: given the whole six-language page, the 1.5B
answered "renard brun" (French), and ``unmentioned`` declined with "No passage mentions
Portuguese"."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from service.answering.grounding import check
from service.answering.retrieval import Retriever, fit_passages

pytestmark = pytest.mark.embedded_only(
    "OCR, language detection and passage fitting are the subject; test_rag covers answers over "
    "these backends: one pass"
)

HELDOUT = Path(__file__).resolve().parents[2] / "bench" / "heldout" / "files"
PORTUGUESE = "In the Portuguese sentence of the scan, what word is used for the dog?"
GERMAN = "In the German sentence of the scanned page, which adjective describes the fox?"
SWEDISH = "In the Swedish sentence of the scan, what word is used for the dog?"


def _library(kb: KnowledgeBase, embedder: Embedder, tmp_path: Path) -> Retriever:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("eurotext.tif", "phototest.png", "fake-email-attachment.eml", "family-day.eml"):
        (docs / name).write_bytes((HELDOUT / name).read_bytes())
    IngestPipeline(kb, embedder).ingest_paths([docs])
    return Retriever(kb, embedder)


def test_a_named_language_narrows_the_scan_to_its_sentence(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    retriever = _library(kb, embedder, tmp_path)
    for question, sentence, word in (
        (PORTUGUESE, "sobre o cão", "cão"),
        (GERMAN, "braune Fuchs springt", "schnelle"),
    ):
        found = retriever.retrieve(question)
        assert "eurotext.tif" in [Path(p.path).name for p in found], found
        fitted = fit_passages(question, found, embedder, lambda t: len(t.split()), 400)
        assert len(fitted) == 1 and Path(fitted[0].path).name == "eurotext.tif", fitted
        text = fitted[0].text
        assert sentence in text, text
        assert "renard" not in text and "zorro" not in text and "E-mail" not in text, text
        # the language is held by the sentence: an answer naming it is not declined for it
        reply = f"In the {question.split()[2]} sentence, the word is “{word}” [1]."
        grounding = check(reply, {1: text}, "", question)
        assert grounding.unmentioned == [] and grounding.grounded, grounding


def test_a_named_language_no_passage_is_in_stays_unmentioned(
    kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    """No sentence of the scan is Swedish: the passages are left as they are and an answer
    naming Swedish is declined as ``unmentioned``."""
    retriever = _library(kb, embedder, tmp_path)
    found = retriever.retrieve(SWEDISH)
    fitted = fit_passages(SWEDISH, found, embedder, lambda t: len(t.split()), 400)
    assert [p.text for p in fitted] == [p.text for p in found]
    passages = {p.number: p.text for p in fitted}
    grounding = check("In the Swedish sentence the dog is “cão” [1].", passages, "", SWEDISH)
    assert grounding.unmentioned == ["Swedish"], grounding
