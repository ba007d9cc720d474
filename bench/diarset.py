"""A diarization set built here: conversations of 2-4 voices with known turns, and one-voice
recordings (used by bench/diarization.py and tests/integration/test_diarization.py).

Voices: espeak-ng variants (Debian's program; different voices, pitches and rates), the bundled
piper voice when piper-tts is installed, and real people: JFK (jfk.flac) and LibriSpeech speaker
1089 (two clips) from ../shared/data/audio, cut at their pauses into pieces. Turns last 2-20 s
(a turn is one or more sentences or pieces of one voice), separated by pauses of 0.2-0.9 s.
Every conversation is rebuilt from its seed, so the set is the same on every machine.
"""

from __future__ import annotations

import io
import random
import subprocess
import wave
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

SR = 16_000
SENTENCES = (
    "The budget for next year has to cover the new roof and the heating.",
    "I spoke to the builder on Monday and he can start in March.",
    "We should ask the bank about the loan before we sign anything.",
    "The garden needs a fence on the north side, where the wind comes in.",
    "My sister will visit in June, so the guest room must be ready by then.",
    "The train was late again this morning, the third time this week.",
    "Can we move the meeting with the accountant to Thursday afternoon?",
    "The old printer finally broke, and the new one is much quieter.",
    "Please send me the photos from the trip to the lake.",
    "The doctor said the knee will heal if I rest it for two weeks.",
    "Our neighbours are planting apple trees along the road.",
    "I think the kitchen should be painted a light shade of green.",
    "The library closes early on Saturdays during the summer.",
    "We found a cheaper flight that leaves at seven in the evening.",
    "The children want a dog, but nobody wants to walk it in the rain.",
    "The water bill doubled after the pipe in the cellar burst.",
    "I will bring the salad and the bread to the party on Friday.",
    "The car needs new tyres before the winter comes.",
    "Let us keep a list of every repair and what it cost.",
    "The concert tickets sold out within an hour of going on sale.",
)
#: espeak-ng voices: (voice, pitch 0-99, words a minute).
ESPEAK_VOICES = (
    ("en-us+m3", 40, 165),
    ("en-gb+f4", 70, 150),
    ("en-gb-scotland+m1", 25, 140),
    ("en-us+f2", 85, 175),
    ("en-gb-x-rp+m7", 50, 155),
)
REAL = {"jfk": ("jfk.flac",), "ls1089": ("1089-134686-0000.flac", "1089-134691-0001.flac")}


@dataclass(frozen=True, eq=False)
class Conversation:
    """16 kHz mono samples and the reference turns (start s, end s, speaker id)."""

    name: str
    samples: np.ndarray
    turns: list[tuple[float, float, str]]
    #: What was said in each turn (its sentences; "" for a real recording's pieces).
    said: tuple[str, ...] = ()

    @property
    def speakers(self) -> int:
        """The number of distinct voices."""
        return len({t[2] for t in self.turns})

    def wav_bytes(self) -> bytes:
        """The samples as a 16-bit mono WAV file."""
        buf = io.BytesIO()
        with wave.open(buf, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(SR)
            pcm = np.clip(self.samples, -1.0, 1.0) * 32767
            out.writeframes(pcm.astype("<i2").tobytes())
        return buf.getvalue()


def _resample(samples: np.ndarray, rate: int) -> np.ndarray:
    if rate == SR:
        return samples.astype(np.float32)
    from scipy.signal import resample_poly

    g = np.gcd(rate, SR)
    return np.asarray(resample_poly(samples, SR // g, rate // g), dtype=np.float32)


def _trim(samples: np.ndarray, level: float = 0.01) -> np.ndarray:
    """The samples without leading and trailing silence."""
    loud = np.flatnonzero(np.abs(samples) > level)
    out: np.ndarray = samples[loud[0] : loud[-1] + 1] if len(loud) else samples[:0]
    return out


@cache
def espeak(voice: str, pitch: int, rate: int, text: str) -> np.ndarray:
    """One sentence spoken by espeak-ng, trimmed, at 16 kHz."""
    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "-p", str(pitch), "-s", str(rate), "--stdout", text],
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout
    with wave.open(io.BytesIO(wav)) as w:
        rate_hz = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32)
    return _trim(_resample(pcm / 32768.0, rate_hz))


@cache
def real_pieces(audio_dir: Path, who: str) -> tuple[np.ndarray, ...]:
    """A real speaker's clips cut at pauses into pieces of 1.5-6 s (Silero VAD)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    from core.speech import decode

    pieces: list[np.ndarray] = []
    for name in REAL[who]:
        audio = decode(audio_dir / name, name)
        opts = VadOptions(min_silence_duration_ms=150, max_speech_duration_s=6.0)
        for r in get_speech_timestamps(audio, opts):
            piece = audio[r["start"] : r["end"]]
            if len(piece) >= 1.5 * SR:
                pieces.append(piece)
    return tuple(pieces)


def _utterances(voice: str, rng: random.Random, audio_dir: Path) -> list[tuple[np.ndarray, str]]:
    """(samples, text) of the pieces a voice says ("" for a real recording's pieces)."""
    if voice in REAL:
        return [(piece, "") for piece in real_pieces(audio_dir, voice)]
    if voice == "piper":
        return [(_piper(s), s) for s in rng.sample(SENTENCES, 6)]
    v, pitch, rate = next(e for e in ESPEAK_VOICES if e[0] == voice)
    return [(espeak(v, pitch, rate, s), s) for s in rng.sample(SENTENCES, 6)]


@cache
def _piper(text: str) -> np.ndarray:
    from core.settings import TtsSettings
    from core.tts import TextToSpeech

    speech = TextToSpeech(TtsSettings(backend="piper")).synthesize(text)  # type: ignore[call-arg]
    with wave.open(io.BytesIO(speech.wav())) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32)
    return _trim(_resample(pcm / 32768.0, rate))


def piper_available() -> bool:
    """True when piper-tts and the bundled voice are installed."""
    try:
        _piper("Hello.")
    except Exception:
        return False
    return True


def conversation(
    name: str, voices: list[str], seed: int, turns: int, audio_dir: Path
) -> Conversation:
    """Voices taking ``turns`` turns (never the same voice twice in a row) of 2-20 s each."""
    rng = random.Random(seed)
    pools = {v: _utterances(v, rng, audio_dir) for v in voices}
    cursor = {v: rng.randrange(len(pools[v])) for v in voices}
    parts: list[np.ndarray] = [np.zeros(int(0.5 * SR), np.float32)]
    ref: list[tuple[float, float, str]] = []
    said: list[str] = []
    t = 0.5
    last = None
    for _ in range(turns):
        voice = rng.choice([v for v in voices if v != last]) if len(voices) > 1 else voices[0]
        last = voice
        target = rng.uniform(2.0, 12.0)
        spoken = 0.0
        start = t
        words: list[str] = []
        while spoken < target and spoken < 18.0:
            u, text = pools[voice][cursor[voice] % len(pools[voice])]
            cursor[voice] += 1
            if spoken and spoken + len(u) / SR > 20.0:
                break
            if spoken:
                gap = np.zeros(int(0.15 * SR), np.float32)
                parts.append(gap)
                t += len(gap) / SR
            parts.append(u)
            words.append(text)
            t += len(u) / SR
            spoken = t - start
        ref.append((round(start, 3), round(t, 3), voice))
        said.append(" ".join(w for w in words if w))
        pause = np.zeros(int(rng.uniform(0.2, 0.9) * SR), np.float32)
        parts.append(pause)
        t += len(pause) / SR
    return Conversation(name, np.concatenate(parts), ref, tuple(said))


def single(name: str, voice: str, seed: int, audio_dir: Path) -> Conversation:
    """A one-voice recording: its utterances one after another."""
    return conversation(name, [voice], seed, 1 if voice in REAL else 3, audio_dir)
