"""Speakers in retrieval (issue 32): a question about one speaker gets that speaker's turn about
what it asks first, by its words (stems, British and American spellings as one), not by cosine
alone; a filter by speaker keeps only those speakers' turns, and an unknown one is refused by
name, in the retriever and through a real server's /api/ask. A turn reaches the model with the
turns around it, each line labelled with its speaker (issue 35: a dialogue's answer is in the
reply). The catalogue, stores and embedder are real; the recording's turns are committed the
way the pipeline commits them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.catalogue import chunks_of
from core.embedder import Embedder
from core.errors import InvalidInputError
from core.filters import Filters
from core.knowledge import KnowledgeBase
from core.settings import HearthSettings
from core.text import american, content_stems
from service.answering.retrieval import Passage, Retriever, check_speakers, with_exchanges
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


#: Held-out dev h1154/h1155's sales call (commercial_mono.wav, as Whisper and diarization wrote
#: it): the caller's choices are the replies to the agent's questions.
CALL = [
    (1, "Okay, I'm here."),
    (2, "Hi, I'd like to buy a Chromecast, and I was wondering whether you could help me."),
    (1, "Certainly, which color would you like? We have blue, black, and red."),
    (2, "Let's get the black one."),
    (1, "Okay, great. Would you like the new Chromecast Ultra model or the regular Chromecast?"),
    (2, "Regular Chromecast is fine."),
    (1, "Okay, sure. Would you like to ship it regular or express?"),
    (2, "Express, please."),
    (1, "Terrific. It's on the way. Thank you very much."),
    (2, "Thank you."),
    (1, "Bye."),
]


def _passages(kb: KnowledgeBase, doc: int, ordinals: list[int], path: str) -> list[Passage]:
    """The chunks ``ordinals`` of document ``doc`` as fitted passages, numbered from 1."""
    with kb.db.session() as s:
        chunks = {c.ordinal: c for c in chunks_of(s, doc)}
        return [
            Passage(
                i, chunks[n].id, doc, path, "audio", dict(chunks[n].provenance), 0.5, chunks[n].text
            )
            for i, n in enumerate(ordinals, start=1)
        ]


def test_a_turn_is_given_the_turns_around_it_with_their_speakers(kb: KnowledgeBase) -> None:
    doc = commit_talk(kb, "/rec/call.wav", CALL)
    note = commit_talk(kb, "/rec/note.wav", [(1, "Only one voice here.")])
    (asking,) = _passages(kb, doc, [2], "/rec/call.wav")
    (alone,) = _passages(kb, note, [0], "/rec/note.wav")
    alone = replace(alone, number=2, provenance={"start": 0.0, "end": 4.0})  # no speakers
    found = with_exchanges([asking, alone], kb.db)
    assert [p.number for p in found] == [1, 2]
    # two turns before and after, each labelled with its speaker
    assert found[0].text.split("\n") == [f"Speaker {who}: {said}" for who, said in CALL[:5]]
    assert "speaker" not in found[0].provenance  # several speak: the lines say who
    assert found[0].label == "call.wav, 0:00–0:24"
    assert found[1] == alone  # not a turn of a dialogue: as it was

    # the turn asking about shipping, found second, joins the first exchange: nothing twice
    (both,) = with_exchanges(_passages(kb, doc, [2, 6], "/rec/call.wav"), kb.db)
    assert both.text.split("\n") == [f"Speaker {who}: {said}" for who, said in CALL[:9]]
    assert both.number == 1 and both.label == "call.wav, 0:00–0:44"


def test_ask_takes_a_speakers_filter_and_refuses_an_unknown_speaker(
    kb: KnowledgeBase, settings: HearthSettings, embedder: Embedder
) -> None:
    doc = commit_talk(kb, "/rec/street.wav", TALK, embedder)
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
            # without a filter, a turn comes with the turns around it, each line its speaker's
            talk = c.post("/api/ask", json={"question": "What about the roof?"})
            assert talk.status_code == 200, talk.text
            sources = talk.json()["sources"]
            assert sources and "speaker" not in sources[0]["provenance"], sources
            lines = sources[0]["text"].split("\n")
            assert "Speaker 1: The builder can start on the roof in March." in lines, lines
            assert any(line.startswith("Maria: The budget") for line in lines), lines
            # a question about one speaker keeps that speaker's turns, labelled with them
            hers = c.post("/api/ask", json={"question": "What did Maria say about the roof?"})
            assert hers.status_code == 200, hers.text
            sources = hers.json()["sources"]
            assert sources and sources[0]["label"].startswith("street.wav, Maria, "), sources
            assert "\n" not in sources[0]["text"], sources
    finally:
        server.stop()
