"""What decides a recording is read again by the multilingual model: seconds of speech the first
model left out or read with low confidence (no model)."""

from __future__ import annotations

from core.speech import LOW_LOGPROB, Segment, unread_seconds


def _segment(start: float, end: float, logprob: float = -0.3) -> Segment:
    return Segment(start, end, "words", avg_logprob=logprob)


def test_speech_left_out_is_unread() -> None:
    """multilingual.mp3 with tiny.en: English read to 30 s, the German half not at all."""
    speech = [(0.7, 59.5)]
    assert abs(unread_seconds([_segment(0.0, 30.0)], speech) - 29.0) < 0.6


def test_speech_read_with_low_confidence_is_unread() -> None:
    """A German clip tiny.en garbled at a mean log-probability of -1.86."""
    speech = [(0.7, 29.9)]
    garbled = [_segment(0.7, 16.4, -1.86), _segment(16.4, 29.8, -1.86)]
    assert unread_seconds(garbled, speech) > 28.0
    assert unread_seconds([_segment(0.7, 29.8, LOW_LOGPROB)], speech) < 1.0


def test_speech_read_whole_leaves_nothing_unread() -> None:
    """Word timings and voice-activity edges differ by a little: no second look for that."""
    speech = [(0.2, 5.0), (6.1, 11.0)]
    read = [_segment(0.5, 4.8), _segment(6.3, 10.7)]
    assert unread_seconds(read, speech) == 0.0
    assert unread_seconds([], []) == 0.0


def test_the_stretches_left_unread_are_what_is_read_again() -> None:
    from core.speech import unread_stretches

    english = [Segment(0.0, 14.5, "Permission is hereby granted", -0.11),
               Segment(15.0, 29.9, "shall be included", -0.22)]  # fmt: skip
    speech = [(0.2, 14.6), (15.0, 30.1), (31.0, 45.0), (45.8, 59.5)]  # the German half unread
    assert unread_stretches(english, speech) == [(31.0, 59.5)]  # joined across a short pause
    garbled = [*english, Segment(31.0, 45.0, "Yiden, they are the software", -1.86)]
    assert unread_stretches(garbled, speech) == [(31.0, 59.5)]  # read with low confidence
    assert unread_stretches(english, [(0.2, 14.6), (30.2, 30.8)]) == []  # a cough, no more
