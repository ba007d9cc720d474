"""Voice questions: a recording is transcribed, then answered like a typed question."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from core.errors import InvalidInputError, LoaderError, PayloadTooLargeError
from core.speech import SAMPLE_RATE, SpeechModel, Transcript, decode
from service.answering.orchestration._service import Answer, AnswerService

log = logging.getLogger(__name__)


@dataclass
class VoiceAnswer:
    """The transcript of a voice question and the answer to it."""

    transcript: Transcript
    answer: Answer
    transcribe_s: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form: the answer's fields plus the transcript and its timing."""
        body = self.answer.as_dict()
        body["transcript"] = self.transcript.text
        body["audio_seconds"] = round(self.transcript.duration, 2)
        body["timings"] = {**body["timings"], "transcribe_s": round(self.transcribe_s, 4)}
        return body


class VoiceService:
    """Transcribes a recorded question and hands it to the :class:`AnswerService`."""

    def __init__(self, speech: SpeechModel, answers: AnswerService) -> None:
        self.speech = speech
        self.answers = answers

    def transcribe_question(self, source: Path | BinaryIO, name: str) -> Transcript:
        """The question's transcript; 4xx-mapped errors for empty, unreadable, long or silent."""
        if isinstance(source, Path):
            size = source.stat().st_size
        else:
            size = source.seek(0, 2)
            source.seek(0)
        if size == 0:
            raise InvalidInputError(f"file: {name} is empty", field="file")
        try:
            samples = decode(source, name)
        except LoaderError as exc:
            raise LoaderError(exc.message, field="file") from exc
        seconds = len(samples) / SAMPLE_RATE
        limit = self.speech.settings.max_voice_seconds
        if seconds > limit:
            raise PayloadTooLargeError(
                f"file: {name} is {seconds:.0f} s long, over the {limit:.0f} s limit for a voice "
                "question (setting speech.max_voice_seconds)",
                field="file",
            )
        transcript = self.speech.transcribe_samples(samples)
        if not transcript.text:
            raise InvalidInputError(f"file: no speech was recognised in {name}", field="file")
        log.debug("voice question transcribed as %r", transcript.text)
        return transcript

    def answer(
        self, source: Path | BinaryIO, name: str, stop: threading.Event | None = None
    ) -> VoiceAnswer:
        """Transcribe the recording, then answer the transcript (``Abandoned`` when ``stop`` is
        set before the answer's end)."""
        started = time.perf_counter()
        transcript = self.transcribe_question(source, name)
        transcribed = time.perf_counter() - started
        answer = self.answers.answer(transcript.text, stop=stop)
        return VoiceAnswer(transcript, answer, transcribed)
