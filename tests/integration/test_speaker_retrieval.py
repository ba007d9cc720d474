"""Speakers in retrieval (issue 32): a question about one speaker gets that speaker's turn about
what it asks first, by its words (stems, British and American spellings as one), not by cosine
alone; a filter by speaker keeps only those speakers' turns, and an unknown one is refused by
name, in the retriever and through a real server's /api/ask. The catalogue, stores and embedder
are real; the recording's turns are committed the way the pipeline commits them."""

from __future__ import annotations

import pytest

from core.embedder import Embedder
from core.errors import InvalidInputError
from core.filters import Filters
from core.knowledge import KnowledgeBase
from core.settings import HearthSettings
from core.text import american, content_stems
from service.answering.retrieval import Retriever, check_speakers
from service.speakers.service import rename
from tests.integration.conftest import start_server
from tests.integration.stored_talk import commit_talk

#: A talk whose speaker 2 says two things; the question's words pick one of them.
TALK = [
    (1, "The builder can start on the roof in March."),
    (2, "The budget for next year has to cover the new roof and the heating."),
    (1, "The train was late again this morning."),
    (2, "Our neighbors are planting apple trees along the road."),
    (1, "The car needs new tires before the winter comes."),
]


def test_spellings_and_inflections_read_as_one() -> None:
    assert american("neighbours") == "neighbors" and american("tyres") == "tires"
    assert american("organised") == "organized" and american("centre") == "center"
    assert american("hour") == "hour" and american("your") == "your"
    assert content_stems("Our neighbours' apple trees") == content_stems("the neighbor apple tree")
    assert "tire" in content_stems("new tyres")
    assert not content_stems("what did the of")


def test_the_asked_speakers_turn_about_it_comes_first(
    kb: KnowledgeBase, settings: HearthSettings, embedder: Embedder
) -> None:
    doc = commit_talk(kb, "/rec/street.wav", TALK)
    retriever = Retriever(kb, embedder)
    found = retriever.retrieve("What did the second speaker say about the neighbours?")
    assert found and "neighbors" in found[0].text, [p.text for p in found]
    assert {p.provenance["speaker"] for p in found} == {2}, [p.label for p in found]

    rename(kb.db, settings.data_dir, doc, 2, "Maria")
    found = retriever.retrieve("What did Maria say about the budget?")
    assert found and found[0].text.startswith("The budget"), [p.text for p in found]
    assert found[0].label == "street.wav, Maria, 0:05–0:09"
    # The first speaker's turn about tyres, spelt the other way in the transcript.
    found = retriever.retrieve("What did the first speaker say about the tyres?")
    assert found and "tires" in found[0].text and found[0].provenance["speaker"] == 1


def test_a_filter_by_speaker_keeps_their_turns_and_refuses_an_unknown_one(
    kb: KnowledgeBase, settings: HearthSettings, embedder: Embedder
) -> None:
    doc = commit_talk(kb, "/rec/street.wav", TALK)
    rename(kb.db, settings.data_dir, doc, 2, "Maria")
    retriever = Retriever(kb, embedder)
    maria = retriever.retrieve("What about the roof?", filters=Filters(speakers=("maria",)))
    assert maria and {p.provenance["speaker"] for p in maria} == {2}, [p.label for p in maria]
    assert maria[0].text.startswith("The budget")  # her turn that says "roof"
    one = retriever.retrieve("What about the roof?", filters=Filters(speakers=("Speaker 1",)))
    assert one and {p.provenance["speaker"] for p in one} == {1}
    assert one[0].text.startswith("The builder")
    other = Filters(collection="elsewhere", speakers=("Maria",))
    assert retriever.retrieve("What about the roof?", filters=other) == []

    assert check_speakers(kb.db, [" Maria ", "Speaker 1"], None) == ("Maria", "Speaker 1")
    with pytest.raises(InvalidInputError, match=r"'Mario'.*Maria") as bad:
        check_speakers(kb.db, ["Maria", "Mario"], None)
    assert bad.value.field == "speakers"
    with pytest.raises(InvalidInputError, match="'Speaker 3'"):
        check_speakers(kb.db, ["Speaker 3"], None)
    with pytest.raises(InvalidInputError, match="collection 'elsewhere'"):
        check_speakers(kb.db, ["Maria"], "elsewhere")


def test_ask_takes_a_speakers_filter_and_refuses_an_unknown_speaker(
    kb: KnowledgeBase, settings: HearthSettings
) -> None:
    doc = commit_talk(kb, "/rec/street.wav", TALK)
    rename(kb.db, settings.data_dir, doc, 2, "Maria")
    kb.close()
    server = start_server(settings.data_dir)
    try:
        with server.client() as c:
            bad = c.post("/api/ask", json={"question": "What about the roof?", "speakers": ["Mo"]})
            assert bad.status_code == 400, bad.text
            assert "speakers" in bad.text and "'Mo'" in bad.text and "Maria" in bad.text
            ok = c.post(
                "/api/ask", json={"question": "What about the roof?", "speakers": ["Maria"]}
            )
            assert ok.status_code == 200, ok.text
            sources = ok.json()["sources"]
            assert sources and {s["provenance"]["speaker"] for s in sources} == {2}, sources
            assert all(s["label"].startswith("street.wav, Maria, ") for s in sources)
    finally:
        server.stop()
