"""Text to speech: a piper voice (the bundled en_US-joe-medium or any by path), or espeak-ng.

Backends sit behind the :class:`Synthesizer` protocol in :data:`VOICES` (registered by plugins,
core/plugins.py; Hearth's own in :func:`register_voices`): ``piper`` runs the
voice's ONNX model with onnxruntime on the CPU (piper-tts phonemizes with its embedded espeak-ng
and yields one chunk per sentence); ``espeak-ng`` runs Debian's ``espeak-ng`` program and is the
fallback when piper-tts (an optional, GPL-3.0-or-later extra) is not installed. The voice lives in
a :class:`ModelHolder`, so it loads on first use and is freed after the configured idle time.
Audio is 16-bit mono PCM at the voice's sample rate (22,050 Hz for the bundled voice).
"""

from __future__ import annotations

import importlib.util
import io
import json
import shutil
import struct
import subprocess
import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from core.bundled import PACKAGED_SHA256, packaged_path, verified_packaged_path
from core.errors import InvalidInputError, ModelError
from core.holder import ModelHolder
from core.offline import enforce_offline
from core.plugins import Register, Registry, hookimpl
from core.threads import ORT_NO_SPIN, budget

if TYPE_CHECKING:
    from core.settings import TtsSettings

#: Measured (en_US-joe-medium, 2 threads): RSS rose 22 MiB importing piper, 90 MiB loading the
#: 60 MiB model and 60 MiB more while synthesizing 22 s of speech in one call. Estimate: the
#: weights file plus this working set.
WORKING_BYTES = 112 * 1024 * 1024
ESPEAK_BYTES = 16 * 1024 * 1024  # espeak-ng runs as a child process with its own small memory
SAMPLE_WIDTH = 2  # bytes: 16-bit PCM


class Synthesizer(Protocol):
    """A loaded voice: sentences of text in, 16-bit mono PCM out."""

    sample_rate: int

    def pcm(self, text: str, speed: float) -> Iterator[bytes]:
        """16-bit little-endian mono PCM, one piece per sentence (or one for all)."""
        ...


@dataclass(frozen=True)
class Speech:
    """Synthesized audio: 16-bit mono PCM bytes at ``sample_rate`` Hz."""

    pcm: bytes
    sample_rate: int

    @property
    def seconds(self) -> float:
        """Length of the audio in seconds."""
        return len(self.pcm) / SAMPLE_WIDTH / self.sample_rate

    def wav(self) -> bytes:
        """The audio as a complete WAV file."""
        return wav_header(self.sample_rate, len(self.pcm)) + self.pcm


def wav_header(sample_rate: int, data_bytes: int | None = None) -> bytes:
    """A 44-byte RIFF/WAVE header for 16-bit mono PCM; ``None``: unknown length (streaming),
    written as 0xFFFFFFFF as OpenAI's streamed WAV does (readers take the data up to EOF)."""
    size = 0xFFFFFFFF if data_bytes is None else data_bytes
    riff = 0xFFFFFFFF if data_bytes is None else 36 + data_bytes
    return (
        b"RIFF" + struct.pack("<I", riff) + b"WAVE"
        + b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, sample_rate, sample_rate * 2, 2, 16)
        + b"data" + struct.pack("<I", size)
    )  # fmt: skip


def voice_path(name: str, *, verify: bool = True) -> Path:
    """The .onnx file of a bundled voice (sha256 checked unless ``verify`` is False) or of a
    voice given by path; ``ModelError`` when neither."""
    if name in PACKAGED_SHA256:
        return verified_packaged_path(name) if verify else packaged_path(name)
    path = Path(name).expanduser()
    if not path.is_file() or not Path(f"{path}.json").is_file():
        raise ModelError(
            f"voice {name!r} is neither the bundled voice (en_US-joe-medium) nor a piper .onnx "
            "file with its .onnx.json beside it"
        )
    return path


class PiperSynthesizer:
    """A piper voice on onnxruntime's CPU provider (piper-tts 1.8)."""

    def __init__(self, settings: TtsSettings) -> None:
        import onnxruntime
        from piper import PiperVoice
        from piper.config import PiperConfig

        path = voice_path(settings.voice)
        config = PiperConfig.from_dict(json.loads(Path(f"{path}.json").read_text("utf-8")))
        options = onnxruntime.SessionOptions()
        # The cores other programs leave free when the voice loads; its threads sleep while
        # they wait rather than spin (core/threads.py).
        options.intra_op_num_threads = settings.n_threads or budget().load().free
        options.add_session_config_entry(*ORT_NO_SPIN)
        session = onnxruntime.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self.voice = PiperVoice(session=session, config=config)
        self.sample_rate = config.sample_rate

    def pcm(self, text: str, speed: float) -> Iterator[bytes]:
        """One PCM piece per sentence; ``speed`` divides the voice's phoneme length scale."""
        from piper.config import SynthesisConfig

        syn = SynthesisConfig(length_scale=self.voice.config.length_scale / speed)
        for chunk in self.voice.synthesize(text, syn_config=syn):
            yield chunk.audio_int16_bytes


class EspeakSynthesizer:
    """Debian's ``espeak-ng`` program (formant synthesis; lower quality, no model to load)."""

    WORDS_PER_MINUTE = 175

    def __init__(self, settings: TtsSettings) -> None:
        self.program = shutil.which("espeak-ng")
        if self.program is None:
            raise ModelError("read-aloud needs piper-tts (pip extra tts) or the espeak-ng program")
        self.sample_rate = 22_050

    def pcm(self, text: str, speed: float) -> Iterator[bytes]:
        """The whole text as one PCM piece (espeak-ng writes a WAV to stdout)."""
        wpm = str(round(self.WORDS_PER_MINUTE * speed))
        assert self.program is not None
        done = subprocess.run(
            [self.program, "--stdout", "-v", "en-us", "-s", wpm],
            input=text.encode("utf-8"),
            capture_output=True,
            check=False,
            timeout=600,
        )
        if done.returncode != 0:
            raise ModelError(f"espeak-ng failed: {done.stderr.decode(errors='replace').strip()}")
        with wave.open(io.BytesIO(done.stdout)) as wav:
            self.sample_rate = wav.getframerate()
            yield wav.readframes(wav.getnframes())


SynthesizerFactory = Callable[["TtsSettings"], Synthesizer]
#: Voice backends by ``tts.backend`` name, from every plugin's ``register_voices`` hook (this
#: module is Hearth's own plugin of that kind).
VOICES: Registry[SynthesizerFactory] = Registry("register_voices", "tts.backend", ("core.tts",))


@hookimpl
def register_voices(register: Register) -> None:
    """``piper`` (a piper voice on onnxruntime) and ``espeak-ng`` (Debian's program)."""
    register("piper", PiperSynthesizer)
    register("espeak-ng", EspeakSynthesizer)


def backend_name(settings: TtsSettings) -> str:
    """The configured backend; ``auto``: piper when piper-tts is installed, else espeak-ng.
    ``ModelError`` naming ``tts.backend`` and every known name for one not registered."""
    if settings.backend != "auto":
        if settings.backend not in VOICES:
            names = ", ".join(VOICES.names())
            raise ModelError(f"tts.backend {settings.backend!r}: one of auto, {names}")
        return settings.backend
    return "piper" if importlib.util.find_spec("piper") is not None else "espeak-ng"


def estimate_resident_bytes(settings: TtsSettings) -> int:
    """Bytes the loaded voice keeps resident: its weights file plus a measured working set."""
    try:
        if backend_name(settings) != "piper":
            return ESPEAK_BYTES
        return voice_path(settings.voice, verify=False).stat().st_size + WORKING_BYTES
    except ModelError:
        return 0


class TextToSpeech:
    """Reads text aloud; the voice loads lazily and frees itself when idle."""

    def __init__(self, settings: TtsSettings) -> None:
        self.settings = settings
        self.backend = backend_name(settings)
        self.holder: ModelHolder[Synthesizer] = ModelHolder(
            "voice",
            self._load,
            idle_seconds=settings.idle_seconds,
            resident=settings.resident,
            resident_bytes=estimate_resident_bytes(settings),
        )

    def _load(self) -> Synthesizer:
        enforce_offline()
        try:
            return VOICES.get(self.backend)(self.settings)
        except ModelError:
            raise
        except Exception as exc:
            raise ModelError(f"voice {self.settings.voice!r} failed to load: {exc}") from exc

    def check(self, text: str, speed: float | None = None) -> tuple[str, float]:
        """The text and speed to read, or ``InvalidInputError`` naming ``input`` or ``speed``."""
        text = " ".join((text or "").split())
        if not text:
            raise InvalidInputError("input: nothing to read aloud", field="input")
        if len(text) > self.settings.max_chars:
            raise InvalidInputError(
                f"input: {len(text)} characters is over the {self.settings.max_chars} limit "
                "(setting tts.max_chars)",
                field="input",
            )
        rate = self.settings.speed if speed is None else speed
        if not 0.25 <= rate <= 4.0:
            raise InvalidInputError(f"speed: {rate} is outside 0.25-4.0", field="speed")
        return text, rate

    def stream(self, text: str, speed: float | None = None) -> tuple[int, Iterator[bytes]]:
        """The sample rate and a generator of PCM pieces. The voice is loaded before this
        returns, so a load error raises here rather than halfway through a streamed response."""
        text, rate = self.check(text, speed)
        with self.holder.use() as voice:
            sample_rate = int(voice.sample_rate)

        def pieces() -> Iterator[bytes]:
            with self.holder.use() as loaded:
                yield from loaded.pcm(text, rate)

        return sample_rate, pieces()

    def synthesize(self, text: str, speed: float | None = None) -> Speech:
        """The whole text read aloud as one :class:`Speech`."""
        text, rate = self.check(text, speed)
        with self.holder.use() as voice:
            pcm = b"".join(voice.pcm(text, rate))
            return Speech(pcm, int(voice.sample_rate))
