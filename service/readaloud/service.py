"""What is read aloud: an answer's words without its citation markers, as WAV audio."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from core.errors import ConfigError
from core.text import CITATION_RUN
from core.tts import TextToSpeech, wav_header

#: Players tried by ``play``, first found wins (each reads a WAV file path).
PLAYERS = (
    ("pw-play",),
    ("paplay",),
    ("aplay", "-q"),
    ("ffplay", "-nodisp", "-autoexit", "-v", "0"),
)


def speakable(answer: str) -> str:
    """The answer as read aloud: citation markers and markdown emphasis dropped."""
    text = CITATION_RUN.sub("", answer)  # [1], [2, 3], [1][2]
    text = re.sub(r"[*_`#]+", "", text)
    return " ".join(text.split())


class ReadAloud:
    """Turns text into WAV audio with the process's voice (loaded lazily, freed when idle)."""

    def __init__(self, tts: TextToSpeech) -> None:
        self.tts = tts

    def wav(self, text: str, speed: float | None = None) -> bytes:
        """The whole text as one WAV file (16-bit mono PCM)."""
        return self.tts.synthesize(text, speed).wav()

    def wav_stream(self, text: str, speed: float | None = None) -> Iterator[bytes]:
        """A streamed WAV: the header (length unknown), then PCM sentence by sentence. Input
        and load errors raise before the first byte."""
        rate, pieces = self.tts.stream(text, speed)
        return _prefixed(wav_header(rate), pieces)

    def save(self, text: str, out: Path, speed: float | None = None) -> float:
        """Write the text read aloud to ``out`` (WAV); returns the audio length in seconds."""
        speech = self.tts.synthesize(text, speed)
        out.write_bytes(speech.wav())
        return speech.seconds


def _prefixed(head: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield head
    yield from rest


def play(path: Path) -> str:
    """Play a WAV file with the first audio player found; ``ConfigError`` when there is none."""
    for command in PLAYERS:
        program = shutil.which(command[0])
        if program:
            subprocess.run([program, *command[1:], str(path)], check=False)
            return command[0]
    names = ", ".join(c[0] for c in PLAYERS)
    raise ConfigError(f"no audio player found ({names}): write the audio with --speak-to FILE")
