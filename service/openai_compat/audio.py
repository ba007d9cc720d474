"""OpenAI-compatible audio: ``POST /v1/audio/speech`` and ``POST /v1/audio/transcriptions``.

Speech reads ``input`` aloud with the configured voice (``core.tts``) as WAV, streamed sentence by
sentence (the header says "length unknown", as OpenAI's streamed WAV does). Transcriptions run the
same faster-whisper model as recordings and voice questions (``core.speech``). Field names and
response shapes follow OpenAI's API reference (platform.openai.com/docs/api-reference/audio);
what Hearth cannot honour (mp3/opus/aac/flac/pcm output, SSE streaming, ``instructions``, word
timestamps, srt/vtt) is a 400 naming the field.
"""

from __future__ import annotations

import io
from typing import Annotated, Any

from anyio import to_thread
from litestar import Controller, MediaType, Response, post
from litestar.datastructures import State, UploadFile
from litestar.enums import RequestEncodingType
from litestar.params import Body
from litestar.response import Stream
from pydantic import BaseModel, ConfigDict, Field

from core.errors import InvalidInputError, LoaderError
from core.speech import Transcript, decode
from service.openai_compat.errors import OPENAI_ERROR_HANDLERS
from service.openai_compat.schemas import parse, unknown_model
from service.readaloud.service import ReadAloud
from service.state import Hearth

#: Model names accepted for speech besides the configured voice (they all use that voice).
SPEECH_MODELS = ("hearth-tts", "tts-1", "tts-1-hd", "gpt-4o-mini-tts")
#: OpenAI's voice names; Hearth has one voice per process, so each of them reads with it.
OPENAI_VOICES = (
    "alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer",
    "verse", "marin", "cedar",
)  # fmt: skip
TRANSCRIBE_MODELS = ("whisper-1", "hearth-whisper")
TRANSCRIPT_FORMATS = ("json", "text", "verbose_json")


class SpeechRequest(BaseModel):
    """The body of ``POST /v1/audio/speech``."""

    model_config = ConfigDict(extra="forbid")

    model: str
    input: str = Field(min_length=1)
    voice: str
    response_format: str = "wav"
    speed: float = Field(1.0, ge=0.25, le=4.0)
    instructions: str | None = None
    stream_format: str | None = None


def check_speech(req: SpeechRequest, hearth: Hearth) -> None:
    """400 (or 404 for the model) naming the first field Hearth cannot honour."""
    voice = hearth.settings.tts.voice
    if req.model not in (*SPEECH_MODELS, voice):
        raise unknown_model(req.model, [*SPEECH_MODELS, voice])
    if req.voice not in (voice, "default", *OPENAI_VOICES):
        raise InvalidInputError(
            f"voice: {req.voice!r} is not installed; use {voice!r} (OpenAI's voice names are "
            "read with it too)",
            field="voice",
        )
    if req.response_format != "wav":
        raise InvalidInputError(
            f"response_format: {req.response_format!r} is not supported; supported: wav",
            field="response_format",
        )
    if req.stream_format not in (None, "audio"):
        raise InvalidInputError(
            f"stream_format: {req.stream_format!r} is not supported; supported: audio",
            field="stream_format",
        )
    if req.instructions:
        raise InvalidInputError(
            "instructions: voice instructions are not supported by the offline voice",
            field="instructions",
        )


def transcript_body(transcript: Transcript, fmt: str, language: str) -> dict[str, Any]:
    """OpenAI's ``json`` or ``verbose_json`` transcription body."""
    if fmt == "json":
        return {"text": transcript.text}
    return {
        "task": "transcribe",
        "language": language,
        "duration": round(transcript.duration, 2),
        "text": transcript.text,
        "segments": [
            {
                "id": i,
                "seek": s.seek,
                "start": s.start,
                "end": s.end,
                "text": s.text,
                "tokens": list(s.tokens),
                "temperature": s.temperature,
                "avg_logprob": s.avg_logprob,
                "compression_ratio": s.compression_ratio,
                "no_speech_prob": s.no_speech_prob,
            }
            for i, s in enumerate(transcript.segments)
        ],
    }


def _field(form: dict[str, Any], name: str, default: str | None = None) -> str | None:
    value = form.get(name, default)
    if value is None or isinstance(value, str):
        return value
    raise InvalidInputError(f"{name}: must be a text field", field=name)


def check_transcription(form: dict[str, Any], hearth: Hearth) -> tuple[str, str | None]:
    """The response format and language of a transcription form; 4xx naming the field."""
    model = _field(form, "model") or ""
    own = hearth.settings.speech.model
    if model not in (*TRANSCRIBE_MODELS, own):
        raise unknown_model(model, [*TRANSCRIBE_MODELS, own])
    fmt = _field(form, "response_format", "json") or "json"
    if fmt not in TRANSCRIPT_FORMATS:
        raise InvalidInputError(
            f"response_format: {fmt!r} is not supported; supported: "
            + ", ".join(TRANSCRIPT_FORMATS),
            field="response_format",
        )
    language = _field(form, "language")
    if language and own.endswith(".en") and language != "en":
        raise InvalidInputError(
            f"language: {own} understands English only, not {language!r}", field="language"
        )
    for key in ("timestamp_granularities[]", "timestamp_granularities"):
        if _field(form, key) not in (None, "segment"):
            raise InvalidInputError(f"{key}: only 'segment' is supported", field=key)
    if _field(form, "stream") not in (None, "false", "False"):
        raise InvalidInputError("stream: streamed transcription is not supported", field="stream")
    return fmt, language


class OpenAIAudioController(Controller):
    """Audio in and out for OpenAI clients (``client.audio.speech``/``.transcriptions``)."""

    path = "/v1/audio"
    tags = ["openai"]
    exception_handlers = OPENAI_ERROR_HANDLERS

    @post("/speech", status_code=200)
    async def speech(self, data: dict[str, Any], state: State) -> Stream:
        """Read ``input`` aloud (WAV, 16-bit mono at the voice's rate, streamed by sentence);
        ``speed`` 0.25-4.0. Unsupported formats, voices or options are a 400 naming the field."""
        hearth: Hearth = state.hearth
        req = parse(SpeechRequest, data)
        check_speech(req, hearth)
        reader = ReadAloud(hearth.tts)
        pieces = await to_thread.run_sync(reader.wav_stream, req.input, req.speed)
        return Stream(pieces, media_type="audio/wav")

    @post("/transcriptions", status_code=200)
    async def transcriptions(
        self,
        data: Annotated[dict[str, Any], Body(media_type=RequestEncodingType.MULTI_PART)],
        state: State,
    ) -> Response[Any]:
        """Transcribe the uploaded ``file`` (any format PyAV reads) with the bundled Whisper;
        ``response_format`` json (default), text or verbose_json (with segments)."""
        hearth: Hearth = state.hearth
        fmt, language = check_transcription(data, hearth)
        upload = data.get("file")
        if not isinstance(upload, UploadFile):
            raise InvalidInputError("file: must be an uploaded audio file", field="file")
        content = await upload.read()
        name = upload.filename or "audio"
        if not content:
            raise InvalidInputError(f"file: {name} is empty", field="file")
        transcript = await to_thread.run_sync(_transcribe, hearth, content, name, language)
        if fmt == "text":
            return Response(transcript.text + "\n", media_type=MediaType.TEXT)
        body = transcript_body(transcript, fmt, language or hearth.settings.speech.language or "en")
        return Response(body, media_type=MediaType.JSON)


def _transcribe(hearth: Hearth, content: bytes, name: str, language: str | None) -> Transcript:
    try:
        samples = decode(io.BytesIO(content), name)
    except LoaderError as exc:
        raise LoaderError(exc.message, field="file") from exc
    return hearth.speech.transcribe_samples(samples, language)
