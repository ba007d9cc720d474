"""A recording in another language, through the real tiny.en, whisper-base and Silero VAD:
tiny.en (English only) wrote nothing for the German half of multilingual.mp3 (held-out dev
h207: "which German word is used for the permission"), so the speech it leaves unread sends the
recording to the bundled multilingual model, language detected per segment. An English
recording is read by tiny.en alone: the second model is not even loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.settings import load_settings
from core.speech import SpeechModel

pytestmark = pytest.mark.embedded_only("Whisper's languages are the subject: one pass")

HELDOUT = Path(__file__).resolve().parents[2] / "bench" / "heldout" / "files"


def test_the_german_half_of_a_recording_is_read_by_the_multilingual_model() -> None:
    settings = load_settings()
    speech = SpeechModel(settings.speech, settings.models_dir)
    english = speech.transcribe(HELDOUT / "jfk.flac", per_channel=True)
    assert "ask not what your country can do for you" in english.text, english.text
    assert speech.second is not None and speech.second.loads == 0
    both = speech.transcribe(HELDOUT / "multilingual.mp3", per_channel=True)
    assert "Permission is hereby granted" in both.text, both.text
    assert "Genehmigung" in both.text and "Software" in both.text, both.text
    assert both.segments[-1].end > 50.0, both.segments[-1]  # read to the end, not to 30 s
    assert speech.second.loads == 1


def test_no_second_model_keeps_the_first_reading() -> None:
    """``speech.second_model: null``: tiny.en's reading, the German half left out."""
    settings = load_settings()
    settings.speech.second_model = None
    speech = SpeechModel(settings.speech, settings.models_dir)
    assert speech.second is None
    text = speech.transcribe(HELDOUT / "multilingual.mp3", per_channel=True).text
    assert "Permission is hereby granted" in text and "Genehmigung" not in text, text
