"""Names a recording says for its speakers (ingest/speakers/heard.py) and how citations and
prompts show them (core/provenance.py)."""

from __future__ import annotations

from core.provenance import as_turn, describe
from core.speech import Segment
from ingest.loaders.audio import segment_sections
from ingest.speakers.heard import heard_names


def _said(*texts: str) -> list[Segment]:
    return [Segment(float(i), i + 0.9, t) for i, t in enumerate(texts)]


def test_a_greeting_names_the_other_voice_and_an_introduction_the_speaker() -> None:
    greeted = _said("Good morning, Steve.", "Good morning, Katie.", "Have you tried it?", "No.")
    assert heard_names(greeted, [1, 2, 1, 2]) == {1: "Katie", 2: "Steve"}
    introduced = _said("Hello.", "This is Diane in New Jersey.", "And I'm Sheila, in Texas.")
    assert heard_names(introduced, [1, 1, 2]) == {1: "Diane", 2: "Sheila"}
    assert heard_names(_said("Hi there.", "My name is Ana-Maria."), [1, 2]) == {2: "Ana-Maria"}


def test_doubtful_names_name_nobody() -> None:
    # one voice: nobody to tell apart
    assert heard_names(_said("Good morning, Steve.", "This is Diane."), [1, 1]) == {}
    # two names for one speaker, one name for two, a greeting among three voices
    assert heard_names(_said("I'm Sheila.", "Thanks, Diane."), [1, 2]) == {}
    assert heard_names(_said("I'm Sheila.", "I'm Sheila too."), [1, 2]) == {}
    assert heard_names(_said("Hello, Maria.", "Hi.", "Hey."), [1, 2, 3]) == {}
    # lower case is not a name; a greeting inside a turn names nobody
    assert heard_names(_said("I'm sorry, I am fine.", "So we said hello, Tom and I."), [1, 2]) == {}


def test_the_heard_name_stands_beside_the_number_and_a_given_name_instead() -> None:
    segments = _said("Good morning, Steve.", "Good morning, Katie.", "Absolutely.")
    sections = segment_sections(segments, 50, [1, 2, 1], heard={1: "Katie", 2: "Steve"})
    assert [s.provenance.get("speaker_heard") for s in sections] == ["Katie", "Steve", "Katie"]
    assert describe(sections[2].provenance).startswith("Speaker 1 (Katie), 0:02")
    assert as_turn(sections[1].provenance, "Good morning, Katie.").startswith("Speaker 2 (Steve): ")
    given = {**sections[1].provenance, "speaker_name": "Steven Miles"}
    assert as_turn(given, "Good morning, Katie.") == "Steven Miles: Good morning, Katie."
