"""Recordings become knowledge: real Whisper tiny.en, real stores, retrieval with time ranges."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from core.db.models import Chunk, Document
from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever
from tests.integration.media import long_stereo_wav, silent_wav

pytestmark = pytest.mark.embedded_only(
    "Whisper is the subject; other tests write the catalogue and stores here: one pass"
)


def test_jfk_speech_is_retrieved_with_its_time_range(
    shared_data: Path, pipeline: IngestPipeline, kb: KnowledgeBase, embedder: Embedder
) -> None:
    report = pipeline.ingest([shared_data / "audio" / "jfk.flac"])
    assert report.count("added") == 1, report.results
    passages = Retriever(kb, embedder).retrieve("What should you ask, according to the speech?")
    top = passages[0]
    assert top.path.endswith("jfk.flac") and top.file_type == "audio"
    assert "ask what you can do for your country" in top.text.lower()
    assert top.provenance["start"] == 0.0
    assert 10.0 <= top.provenance["end"] <= 11.5
    # the last word ends at 10.x s (word timestamps), the 11 s clip's segment at its end
    assert top.label in ("jfk.flac, 0:00–0:10", "jfk.flac, 0:00–0:11")


def test_silent_recording_is_empty_not_failed(tmp_path: Path, pipeline: IngestPipeline) -> None:
    result = pipeline.ingest([silent_wav(tmp_path / "quiet.wav")]).results[0]
    assert result.action == "empty" and result.chunks == 0
    with pipeline.kb.db.session() as s:
        doc = s.scalar(select(Document).where(Document.path.like("%quiet.wav")))
        assert doc is not None and doc.status == "empty" and doc.file_type == "audio"


def test_corrupt_recording_fails_clearly_and_the_batch_goes_on(
    tmp_path: Path, shared_data: Path, pipeline: IngestPipeline
) -> None:
    broken = tmp_path / "broken.mp3"
    broken.write_bytes(b"ID3\x03\x00" + bytes(range(256)) * 40)
    note = tmp_path / "note.txt"
    note.write_text("The boiler is serviced every October.")
    report = pipeline.ingest([broken, shared_data / "audio" / "jfk.flac", note])
    actions = {Path(r.path).name: r for r in report.results}
    assert actions["broken.mp3"].action == "failed"
    assert actions["broken.mp3"].error is not None
    assert actions["broken.mp3"].error.startswith("broken.mp3: not a readable audio file")
    assert actions["jfk.flac"].action == "added"
    assert actions["note.txt"].action == "added"


def test_long_stereo_recording_keeps_increasing_time_ranges(
    tmp_path: Path, shared_data: Path, pipeline: IngestPipeline
) -> None:
    path = long_stereo_wav(tmp_path / "long.wav", shared_data / "audio" / "jfk.flac", repeats=5)
    result = pipeline.ingest([path]).results[0]
    assert result.action == "added" and result.chunks >= 3, result
    with pipeline.kb.db.session() as s:
        chunks = s.scalars(select(Chunk).order_by(Chunk.ordinal)).all()
        ranges = [(c.provenance["start"], c.provenance["end"]) for c in chunks]
        texts = " ".join(c.text.lower() for c in chunks)
    starts = [a for a, _ in ranges]
    assert starts == sorted(starts) and all(a < b <= a + 30.0 for a, b in ranges)
    assert ranges[-1][1] > 70.0  # 5 x (11 s + 6 s pause): the last speech ends after 70 s
    assert texts.count("your country") >= 8
