"""Voice questions on a real `hearth serve` (SmolLM2-135M) and through `hearth ask --audio`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.conftest import Server, run_hearth, start_server
from tests.integration.media import silent_wav

pytestmark = pytest.mark.embedded_only(
    "the voice path is the subject; test_rag covers answers on this pass: one pass"
)


@pytest.fixture(scope="module")
def voice_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose knowledge base holds the JFK speech."""
    from tests.conftest import SHARED_DATA

    if not (SHARED_DATA / "audio" / "jfk.flac").is_file():
        pytest.skip(f"real-data tier: {SHARED_DATA} is absent")
    data_dir = tmp_path_factory.mktemp("voice") / "data"
    done = run_hearth(data_dir, "ingest", "-q", str(SHARED_DATA / "audio" / "jfk.flac"))
    assert done.returncode == 0, done.stderr
    assert "added 1" in done.stdout
    server = start_server(data_dir, model="smollm2-135m")
    yield server
    server.stop()


def test_voice_question_returns_transcript_and_answer(
    voice_server: Server, shared_data: Path
) -> None:
    audio = (shared_data / "audio" / "jfk.flac").read_bytes()
    with voice_server.client() as client:
        r = client.post("/api/ask/voice", files={"file": ("jfk.flac", audio, "audio/flac")})
    assert r.status_code == 200, r.text
    body = r.json()
    assert "ask not what your country can do for you" in body["transcript"].lower()
    assert body["audio_seconds"] == pytest.approx(11.0, abs=0.1)
    assert body["answer"].strip()
    # the last word ends at 10.x s (word timestamps), the 11 s clip's segment at its end
    assert body["sources"][0]["label"] in ("jfk.flac, 0:00–0:10", "jfk.flac, 0:00–0:11")
    assert body["timings"]["transcribe_s"] > 0


@pytest.mark.parametrize(
    ("name", "content", "status", "detail"),
    [
        ("empty.wav", b"", 400, "empty.wav is empty"),
        ("noise.mp3", b"\x00\x01garbage" * 200, 422, "noise.mp3: not a readable audio file"),
    ],
)
def test_bad_uploads_are_4xx_with_a_reason(
    voice_server: Server, name: str, content: bytes, status: int, detail: str
) -> None:
    with voice_server.client() as client:
        r = client.post("/api/ask/voice", files={"file": (name, content, "audio/wav")})
    assert r.status_code == status, r.text
    assert detail in r.json()["detail"]
    assert r.json()["field"] == "file"


def test_silent_upload_and_missing_field_are_400(voice_server: Server, tmp_path: Path) -> None:
    quiet = silent_wav(tmp_path / "quiet.wav").read_bytes()
    with voice_server.client() as client:
        silent = client.post("/api/ask/voice", files={"file": ("quiet.wav", quiet, "audio/wav")})
        missing = client.post("/api/ask/voice", files={"other": ("q.wav", quiet, "audio/wav")})
    assert silent.status_code == 400, silent.text
    assert "no speech was recognised in quiet.wav" in silent.json()["detail"]
    assert missing.status_code == 400, missing.text


def test_cli_ask_audio_prints_transcript_and_answer(
    voice_server: Server, shared_data: Path
) -> None:
    done = run_hearth(
        voice_server.data_dir,
        "--model",
        "smollm2-135m",
        "ask",
        "--json",
        "--audio",
        str(shared_data / "audio" / "jfk.flac"),
    )
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert "your country" in body["transcript"].lower()
    assert body["answer"].strip() and body["sources"]
    usage = run_hearth(voice_server.data_dir, "ask")
    assert usage.returncode == 2 and "QUESTION or --audio" in usage.stderr


def test_openapi_documents_the_voice_endpoint(voice_server: Server) -> None:
    with voice_server.client() as client:
        r = client.get("/schema/openapi.json")
    assert r.status_code == 200
    op = r.json()["paths"]["/api/ask/voice"]["post"]
    assert "multipart/form-data" in op["requestBody"]["content"]
    assert "transcript" in str(r.json()["components"]["schemas"]["VoiceAskResponse"])
