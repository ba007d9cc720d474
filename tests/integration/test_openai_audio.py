"""/v1/audio/speech and /v1/audio/transcriptions through the real `openai` package, unchanged,
against a real `hearth serve` on loopback (bundled piper voice and Whisper tiny.en)."""

from __future__ import annotations

import io
import wave
from collections.abc import Iterator

import httpx
import openai
import pytest

from core.evalmetrics import word_error_rate
from tests.integration.conftest import Server, start_server

pytestmark = pytest.mark.embedded_only(
    "speech and transcription routes touch no catalogue, store or LLM backend: one pass"
)


SENTENCE = "Please bring the blue folder to the meeting on the second floor."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """An empty knowledge base served with SmolLM2; the voice stays loaded between tests."""
    srv = start_server(tmp_path_factory.mktemp("audio") / "data", HEARTH_TTS__RESIDENT="true")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def client(server: Server) -> openai.OpenAI:
    """The openai SDK pointed at Hearth."""
    return server.openai_client()


@pytest.fixture(scope="module")
def spoken(client: openai.OpenAI) -> bytes:
    """SENTENCE read aloud by /v1/audio/speech."""
    return client.audio.speech.create(
        model="tts-1", voice="alloy", input=SENTENCE, response_format="wav"
    ).content


def wav_seconds(data: bytes) -> float:
    """Length of a WAV whose header may say "unknown length" (counted from the bytes)."""
    with wave.open(io.BytesIO(data[:44] + b"")) as w:
        rate, width = w.getframerate(), w.getsampwidth()
    return (len(data) - 44) / width / rate


def test_speech_round_trips_through_transcriptions(client: openai.OpenAI, spoken: bytes) -> None:
    assert spoken[:4] == b"RIFF" and spoken[8:12] == b"WAVE"
    text = client.audio.transcriptions.create(model="whisper-1", file=("speech.wav", spoken))
    assert word_error_rate(SENTENCE, text.text) <= 0.1, text.text


def test_speech_streams_sentence_by_sentence(client: openai.OpenAI) -> None:
    two = "The first sentence is short. The second sentence follows it."
    with client.audio.speech.with_streaming_response.create(
        model="hearth-tts", voice="en_US-joe-medium", input=two, response_format="wav"
    ) as resp:
        assert resp.headers["content-type"].startswith("audio/wav")
        chunks = [c for c in resp.iter_bytes() if c]
    data = b"".join(chunks)
    assert len(chunks) >= 2
    assert 2.0 < wav_seconds(data) < 10.0


def test_speed_shortens_the_audio(client: openai.OpenAI, spoken: bytes) -> None:
    fast = client.audio.speech.create(
        model="tts-1", voice="alloy", input=SENTENCE, response_format="wav", speed=2.0
    ).content
    # piper draws each phoneme's length with noise, so the ratio moves run to run (0.61-0.70
    # seen); speed ignored gives ~1.0 (the same bound as test_tts.py)
    assert wav_seconds(fast) < 0.8 * wav_seconds(spoken)


def test_verbose_json_has_segments_and_text_is_plain(client: openai.OpenAI, spoken: bytes) -> None:
    verbose = client.audio.transcriptions.create(
        model="whisper-1", file=("s.wav", spoken), response_format="verbose_json", language="en"
    )
    assert verbose.language == "en"
    assert verbose.duration == pytest.approx(wav_seconds(spoken), abs=0.1)
    assert verbose.segments and verbose.segments[0].start >= 0.0
    assert verbose.segments[-1].end <= verbose.duration + 0.1
    assert word_error_rate(SENTENCE, " ".join(s.text for s in verbose.segments)) <= 0.1
    text = client.audio.transcriptions.create(
        model="whisper-1", file=("s.wav", spoken), response_format="text"
    )
    assert isinstance(text, str) and word_error_rate(SENTENCE, text) <= 0.1


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"response_format": "mp3"}, "response_format"),
        ({"voice": "nobody"}, "voice"),
        ({"speed": 9.0}, "speed"),
        ({"instructions": "whisper it"}, "instructions"),
        ({"input": ""}, "input"),
    ],
)
def test_unsupported_speech_options_are_400_naming_the_field(
    client: openai.OpenAI, options: dict[str, object], field: str
) -> None:
    args: dict[str, object] = {"model": "tts-1", "voice": "alloy", "input": "Hello there."}
    args.update(options)
    with pytest.raises(openai.BadRequestError) as err:
        client.audio.speech.create(**args)  # type: ignore[arg-type]
    assert err.value.status_code == 400
    assert field in str(err.value.message)
    assert err.value.body["param"] == field  # type: ignore[index]


def test_unknown_speech_model_is_404(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client.audio.speech.create(model="nope", voice="alloy", input="Hi.")


@pytest.mark.parametrize(
    ("options", "content", "status", "field"),
    [
        ({"response_format": "srt"}, None, 400, "response_format"),
        ({"language": "fr"}, None, 400, "language"),
        ({}, b"", 400, "file"),
        ({}, b"this is not audio at all", 422, "file"),
    ],
)
def test_bad_transcription_requests_are_4xx_naming_the_field(
    client: openai.OpenAI,
    spoken: bytes,
    options: dict[str, str],
    content: bytes | None,
    status: int,
    field: str,
) -> None:
    with pytest.raises(openai.APIStatusError) as err:
        client.audio.transcriptions.create(
            model="whisper-1",
            file=("a.wav", spoken if content is None else content),
            **options,  # type: ignore[arg-type]
        )
    assert err.value.status_code == status
    assert err.value.body["param"] == field  # type: ignore[index]


def test_transcription_without_file_is_400(server: Server) -> None:
    r = httpx.post(f"{server.url}/v1/audio/transcriptions", files={"model": (None, "whisper-1")})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == "file"
