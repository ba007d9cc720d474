"""``hearth say`` and the read-aloud step of ``hearth ask --speak``."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click

from core.settings import HearthSettings
from core.tts import TextToSpeech
from service.readaloud.service import ReadAloud, play, speakable


def speak(settings: HearthSettings, text: str, out: Path | None, speed: float | None) -> None:
    """Read ``text`` aloud into ``out`` (WAV), or play it when ``out`` is None."""
    reader = ReadAloud(TextToSpeech(settings.tts))
    if out is not None:
        seconds = reader.save(text, out, speed)
        click.echo(f"wrote {out} ({seconds:.1f} s of audio)", err=True)
        return
    with tempfile.TemporaryDirectory(prefix="hearth-say-") as tmp:
        path = Path(tmp) / "speech.wav"
        reader.save(text, path, speed)
        play(path)


def speak_answer(settings: HearthSettings, answer: str, out: Path | None) -> None:
    """Read an answer aloud (its words only: no citation markers, no source list)."""
    speak(settings, speakable(answer), out, None)


@click.command("say")
@click.argument("text")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Write the speech to this WAV file (default: play it with pw-play/paplay/aplay/ffplay).",
)
@click.option("--speed", type=click.FloatRange(0.25, 4.0), default=None, help="1.0 is normal.")
@click.option("--voice", default=None, help="Bundled voice name or path of a piper .onnx voice.")
@click.pass_obj
def say_command(
    settings: HearthSettings, text: str, output: Path | None, speed: float | None, voice: str | None
) -> None:
    """Read TEXT aloud (``-`` reads it from stdin) with the offline voice."""
    if text == "-":
        text = sys.stdin.read()
    if voice:
        settings.tts.voice = voice
    speak(settings, text, output, speed)
