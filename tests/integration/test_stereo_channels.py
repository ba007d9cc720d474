"""A stereo recording with a different speaker on each channel (issue 21): the real Whisper
transcribes the channels apart, so no chunk mixes what the two people said, and each chunk's
provenance names its channel."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select

from core.db.models import Chunk
from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from core.settings import HearthSettings
from core.tts import TextToSpeech
from ingest.pipeline import IngestPipeline

pytestmark = pytest.mark.embedded_only("Whisper per channel is the subject: one pass")


LEFT = "The roof repair on the east wing is booked for the fourteenth of March."
RIGHT = "The budget for the roof repair is eighteen thousand pounds."


def test_each_channel_is_transcribed_on_its_own(
    settings: HearthSettings, kb: KnowledgeBase, embedder: Embedder, tmp_path: Path
) -> None:
    tts = TextToSpeech(settings.tts)  # the bundled voice (or espeak-ng) as two speakers
    left, right = tts.synthesize(LEFT), tts.synthesize(RIGHT)
    assert left.sample_rate == right.sample_rate
    a = np.frombuffer(left.pcm, dtype=np.int16)
    b = np.concatenate([np.zeros(left.sample_rate, np.int16), np.frombuffer(right.pcm, np.int16)])
    n = max(len(a), len(b))  # the right speaker starts 1 s in: the two overlap
    stereo = np.zeros((n, 2), np.int16)
    stereo[: len(a), 0], stereo[: len(b), 1] = a, b
    path = tmp_path / "site_meeting.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(left.sample_rate)
        w.writeframes(stereo.tobytes())

    assert not IngestPipeline(kb, embedder).ingest([path]).failures
    with kb.db.session() as s:
        chunks = [(c.text.lower(), c.provenance) for c in s.scalars(select(Chunk))]
    by_channel = {p.get("channel"): t for t, p in chunks}
    assert set(by_channel) == {"left", "right"}, chunks
    assert "march" in by_channel["left"] and "budget" not in by_channel["left"], chunks
    assert "budget" in by_channel["right"] and "march" not in by_channel["right"], chunks
