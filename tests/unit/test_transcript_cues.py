"""A transcript's timed cues read as turns (ingest/loaders/cues.py): the speaker's name on its
own line between two utterances went to the wrong one (held-out dev h099, Teams' Word export)."""

from __future__ import annotations

from pathlib import Path

from ingest.loaders import loader_for
from ingest.loaders.cues import speaker_turns

TEAMS = [
    "0:0:0.0 --> 0:0:1.510",
    "Some Body",
    "OK. Yeah.",
    "0:0:3.270 --> 0:0:4.250",
    "James Bond",
    "Umm.",
    "saved-by | Dennis Forsythe",
]


def test_a_teams_transcript_in_a_word_document_reads_as_turns(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    for line in TEAMS:
        document.add_paragraph(line)
    path = tmp_path / "standup.docx"
    document.save(str(path))
    (section,) = loader_for(path).load(path)
    assert section.text.splitlines() == [
        "Some Body (0:00–0:02): OK. Yeah.",
        "James Bond (0:03–0:04): Umm.",
        "saved-by | Dennis Forsythe",  # after the last cue: no longer than the cues before
    ]
    text = tmp_path / "standup.txt"
    text.write_text("\n".join(TEAMS), encoding="utf-8")
    assert loader_for(text).load(text)[0].text == section.text


def test_subrip_and_webvtt_cues_lose_their_numbers_and_keep_their_times() -> None:
    srt = (
        "1\n00:00:01,000 --> 00:00:04,000\nAnn Lee\nHello there.\n\n"
        "2\n00:01:05,000 --> 00:01:09,000\nBob\nHi.\n"
    )
    assert speaker_turns(srt).splitlines() == [
        "1",
        "Ann Lee (0:01–0:04): Hello there.",
        "Bob (1:05–1:09): Hi.",
    ]
    vtt = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nNever drink liquid nitrogen.\n\n"
        "00:00:05.000 --> 00:00:09.000\nIt will perforate your stomach.\nYou could die.\n"
    )
    assert speaker_turns(vtt).splitlines() == [
        "WEBVTT",
        "",
        "(0:01–0:04) Never drink liquid nitrogen.",
        "(0:05–0:09) It will perforate your stomach. You could die.",  # no name line
    ]


def test_text_with_one_arrow_or_none_is_left_alone() -> None:
    for text in ("The meeting ran 10:00 --> 11:00 as planned.", "No cues here.\nNone at all."):
        assert speaker_turns(text) == text
