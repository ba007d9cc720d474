"""Every registered audio format decodes (PyAV inside faster-whisper; no system ffmpeg)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.speech import SAMPLE_RATE, decode
from ingest.loaders import LoaderContext, Loaders, file_type_of
from ingest.loaders.base import detect_type
from tests.integration.media import encode

pytestmark = pytest.mark.embedded_only(
    "decoding only (PyAV); no catalogue, store or model backend is involved: one pass"
)


FORMATS = [
    ("jfk.mp3", "mp3"),
    ("jfk.m4a", "aac"),
    ("jfk.ogg", "libopus"),
    ("jfk.opus", "libopus"),
    ("jfk.webm", "libopus"),
]


@pytest.mark.parametrize(("name", "codec"), FORMATS)
def test_format_decodes_to_the_whole_recording(
    tmp_path: Path, shared_data: Path, name: str, codec: str
) -> None:
    path = encode(shared_data / "audio" / "jfk.flac", tmp_path / name, codec)
    assert file_type_of(path) == "audio"
    assert detect_type(path) == "audio"  # by content too, as ingest reads it (.webm was refused)
    samples = decode(path, path.name)
    assert abs(len(samples) / SAMPLE_RATE - 11.0) < 0.2


def test_mp3_transcribes_like_the_flac(tmp_path: Path, shared_data: Path) -> None:
    path = encode(shared_data / "audio" / "jfk.flac", tmp_path / "jfk.mp3", "mp3")
    sections = Loaders(LoaderContext.create()).for_path(path).load(path)
    text = " ".join(s.text for s in sections).lower()
    assert "ask not what your country can do for you" in text.replace(",", "")
