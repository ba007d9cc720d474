"""Speech to text with faster-whisper: the bundled tiny.en or any CTranslate2 Whisper folder.

Audio is decoded with PyAV (inside faster-whisper; no system ffmpeg), mixed down to 16 kHz mono,
then transcribed with voice-activity filtering. For a document (``per_channel=True``), a stereo
recording whose two channels differ (a different speaker on each: their correlation is below
:data:`SAME_CHANNELS`) is transcribed channel by channel, each segment carrying its channel, so
two people talking at once are not read as one garbled mix. The model lives in a
:class:`ModelHolder`, so it loads on first use and is freed after the configured idle time.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from core.bundled import PACKAGED, SPLIT_FOLDERS, packaged_path, resolve_folder
from core.errors import LoaderError, ModelError
from core.holder import ModelHolder
from core.offline import enforce_offline
from core.threads import budget

if TYPE_CHECKING:
    import numpy as np

    from core.settings import SpeechSettings

log = logging.getLogger(__name__)

SAMPLE_RATE = 16_000
#: Measured (tiny.en, int8, 2 threads): RSS rose 36 MiB importing faster-whisper, 81 MiB loading
#: the model (72 MiB model.bin), and peaked 339 MiB above the start after an 85 s stereo file
#: (beam 5, VAD); 152 MiB stayed after unloading (libraries, the cached VAD session). Estimate:
#: the weights file plus this working set, for any model.
WORKING_BYTES = 272 * 1024 * 1024
#: A segment read below this mean token log-probability is not read (see ``unread_seconds``).
LOW_LOGPROB = -1.0
#: Seconds a segment's span is widened by on each side when it covers speech: word timings and
#: voice-activity edges differ by a few hundred milliseconds.
READ_SLACK = 0.5
#: A recording with at least this many seconds of speech the first model did not read is read
#: again with the second (``SpeechSettings.second_model``).
UNREAD_SECONDS = 4.0
#: Unread stretches closer than this (seconds) are read again as one; shorter than
#: ``MIN_STRETCH`` are not read again (a cough, a word cut at an edge).
JOIN_GAP = 2.0
MIN_STRETCH = 1.0
#: Channels whose samples correlate at least this much are one signal (mono saved as stereo, or
#: one room on two microphones): mixed. Measured: jfk.flac and mono files 1.0; two espeak-ng
#: voices on the two channels of one file -0.004.
SAME_CHANNELS = 0.5
CHANNEL_NAMES = ("left", "right")


@dataclass(frozen=True)
class Segment:
    """A stretch of recognised speech, with its start and end in seconds, and Whisper's own
    figures for it (mean token log-probability, gzip compression ratio, no-speech probability,
    token ids, the 10 ms frame it was decoded from and the decoding temperature)."""

    start: float
    end: float
    text: str
    avg_logprob: float = 0.0
    compression_ratio: float = 0.0
    no_speech_prob: float = 0.0
    tokens: tuple[int, ...] = ()
    seek: int = 0
    temperature: float = 0.0
    channel: str | None = None  # "left"/"right" when the channels were transcribed apart


@dataclass(frozen=True)
class Transcript:
    """Every segment of a recording, and the recording's length in seconds."""

    segments: list[Segment]
    duration: float

    @property
    def text(self) -> str:
        """The whole transcript as one line."""
        return " ".join(s.text for s in self.segments).strip()


def whisper_path(name: str, models_dir: Path | None = None) -> Path:
    """The folder of a bundled Whisper model name (a split one is assembled into
    ``models_dir``, default the data folder's ``models``), or a configured folder with a
    model.bin."""
    if name in SPLIT_FOLDERS:
        from core.settings import default_data_dir

        return resolve_folder(name, models_dir or default_data_dir() / "models")
    path = packaged_path(name) if name in PACKAGED else Path(name).expanduser()
    if not (path / "model.bin").is_file():
        raise ModelError(
            f"speech model {name!r} is neither a bundled model (whisper-tiny.en, whisper-base) "
            "nor a folder holding a CTranslate2 Whisper model (model.bin)"
        )
    return path


def _weights_bytes(name: str) -> int:
    """Size of a Whisper model's model.bin (a split bundled one: its published size); 0 when
    the model is not found."""
    if name in SPLIT_FOLDERS:
        return SPLIT_FOLDERS[name].size
    try:
        return (whisper_path(name) / "model.bin").stat().st_size
    except ModelError:
        return 0


def estimate_resident_bytes(settings: SpeechSettings) -> int:
    """Bytes the loaded models keep resident: their weights files (the first model's, and the
    second's, loaded beside it for a recording the first cannot read) plus one measured
    working set (they run one after the other)."""
    weights = _weights_bytes(settings.model)
    if not weights:
        return 0
    second = _weights_bytes(settings.second_model) if settings.second_model else 0
    return weights + second + WORKING_BYTES


def unread_seconds(segments: list[Segment], speech: list[tuple[float, float]]) -> float:
    """Seconds of ``speech`` (voice-activity spans, seconds) that ``segments`` leave out or
    read with low confidence (mean token log-probability below ``LOW_LOGPROB``): what an
    English-only model does with another language. tiny.en wrote nothing for the German half
    of multilingual.mp3 and garbled a German clip ("Yiden, they are the software on te d'
    powerful ...") at -1.86; English clips read at -0.12 to -0.75."""
    read = sorted((s.start, s.end) for s in segments if s.avg_logprob >= LOW_LOGPROB)
    unread = 0.0
    for start, end in speech:
        covered = sum(
            max(0.0, min(end, b + READ_SLACK) - max(start, a - READ_SLACK)) for a, b in read
        )
        unread += max(0.0, (end - start) - covered)
    return unread


def unread_stretches(
    segments: list[Segment], speech: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """The stretches (seconds) of ``speech`` that ``segments`` leave unread (as
    ``unread_seconds`` counts them), neighbours less than ``JOIN_GAP`` apart joined, those of
    at least ``MIN_STRETCH`` seconds kept."""
    read = sorted((s.start - READ_SLACK, s.end + READ_SLACK) for s in segments
                  if s.avg_logprob >= LOW_LOGPROB)  # fmt: skip
    left: list[tuple[float, float]] = []
    for start, end in speech:
        pieces = [(start, end)]
        for a, b in read:
            pieces = [
                part
                for lo, hi in pieces
                for part in ((lo, min(hi, a)), (max(lo, b), hi))
                if part[1] > part[0]
            ]
        left += pieces
    joined: list[tuple[float, float]] = []
    for start, end in sorted(left):
        if joined and start - joined[-1][1] < JOIN_GAP:
            joined[-1] = (joined[-1][0], max(joined[-1][1], end))
        else:
            joined.append((start, end))
    return [(a, b) for a, b in joined if b - a >= MIN_STRETCH]


def channels_differ(left: np.ndarray, right: np.ndarray) -> bool:
    """True when two channels carry different signals (correlation below ``SAME_CHANNELS``)."""
    import numpy as np

    norm = float(np.linalg.norm(left) * np.linalg.norm(right))
    if norm == 0.0:  # one channel silent: the other holds everything, a mix loses nothing
        return False
    return float(left @ right) / norm < SAME_CHANNELS


def decode(source: Path | BinaryIO, name: str, split_stereo: bool = False) -> Any:
    """16 kHz mono float32 samples of any file PyAV reads (with ``split_stereo``: a (left,
    right) pair, mono duplicated); ``LoaderError`` naming ``name``."""
    from faster_whisper.audio import decode_audio

    try:
        samples = decode_audio(source, sampling_rate=SAMPLE_RATE, split_stereo=split_stereo)
    except MemoryError:
        raise
    except Exception as exc:  # PyAV raises many types (InvalidDataError, EOFError, ValueError)
        reason = str(exc).strip() or type(exc).__name__
        # PyAV's "[Errno 1094995529] Invalid data ...: '/full/path'": keep the words.
        reason = re.sub(r"^\[Errno -?\d+\] ", "", reason)
        reason = re.sub(r":\s*'[^']*'$", "", reason)
        raise LoaderError(f"{name}: not a readable audio file ({reason})") from exc
    return samples


class SpeechModel:
    """Transcribes recordings; the Whisper model loads lazily and frees itself when idle."""

    def __init__(self, settings: SpeechSettings, models_dir: Path | None = None) -> None:
        """``models_dir``: where a split bundled model is assembled (``HearthSettings.
        models_dir``; default the data folder's ``models``)."""
        self.settings = settings
        self.models_dir = models_dir
        self.holder: ModelHolder[Any] = ModelHolder(
            "whisper",
            lambda: self._load(settings.model),
            idle_seconds=settings.idle_seconds,
            resident=settings.resident,
            resident_bytes=_weights_bytes(settings.model) + WORKING_BYTES,
        )
        second = settings.second_model
        self.second: ModelHolder[Any] | None = None
        if second and second != settings.model:
            self.second = ModelHolder(
                "whisper (second look)",
                lambda: self._load(second),
                idle_seconds=settings.idle_seconds,
                resident=settings.resident,
                resident_bytes=_weights_bytes(second),
            )

    def _load(self, name: str) -> Any:
        enforce_offline()
        path = whisper_path(name, self.models_dir)
        from faster_whisper import WhisperModel

        # CTranslate2 fixes its threads at load: the share ingest keeps beside an answer.
        threads = self.settings.n_threads or budget().fixed_ingest_threads()
        try:
            return WhisperModel(
                str(path),
                device="cpu",
                compute_type=self.settings.compute_type,
                cpu_threads=threads,
                local_files_only=True,
            )
        except Exception as exc:
            raise ModelError(f"speech model at {path} failed to load: {exc}") from exc

    def transcribe_samples(self, audio: np.ndarray, language: str | None = None) -> Transcript:
        """Transcribe 16 kHz mono samples (``language``: ISO code, default the setting);
        silence gives a transcript with no segments.

        When the first model leaves ``UNREAD_SECONDS`` or more of the speech unread
        (``unread_seconds``: another language, for the English-only tiny.en), the recording is
        read again where it was left unread by the second model (``SpeechSettings.second_model``,
        multilingual: ``_read_again``), and the reading leaving less unread is kept."""
        if len(audio) == 0:
            return Transcript([], 0.0)
        first = self._read(self.holder, audio, language)
        if self.second is None or len(audio) < UNREAD_SECONDS * SAMPLE_RATE:
            return first
        from faster_whisper.vad import VadOptions, get_speech_timestamps

        speech = [
            (span["start"] / SAMPLE_RATE, span["end"] / SAMPLE_RATE)
            for span in get_speech_timestamps(audio, VadOptions())
        ]
        unread = unread_seconds(first.segments, speech)
        if unread < UNREAD_SECONDS:
            return first
        log.info("%.0f s of speech the first model did not read: reading it again", unread)
        again = self._read_again(audio, first, unread_stretches(first.segments, speech))
        return again if unread_seconds(again.segments, speech) < unread else first

    def _read_again(
        self, audio: np.ndarray, first: Transcript, stretches: list[tuple[float, float]]
    ) -> Transcript:
        """``first``'s confident segments and the second model's reading of each of the
        ``stretches`` (seconds) it left unread, in the language detected on that stretch
        alone: read whole with per-segment detection, the German half of multilingual.mp3 was
        written as an English paraphrase on one machine (the window it was detected on began
        in the English half)."""
        kept = [seg for seg in first.segments if seg.avg_logprob >= LOW_LOGPROB]
        assert self.second is not None
        for start, end in stretches:
            piece = audio[int(start * SAMPLE_RATE) : int(end * SAMPLE_RATE)]
            with self.second.use() as model, budget().ingesting():
                language, _, _ = model.detect_language(piece)
            read = self._read(self.second, piece, language)
            kept += [
                replace(seg, start=round(seg.start + start, 2), end=round(seg.end + start, 2))
                for seg in read.segments
            ]
        return Transcript(sorted(kept, key=lambda seg: seg.start), first.duration)

    def _read(
        self,
        holder: ModelHolder[Any],
        audio: np.ndarray,
        language: str | None,
        multilingual: bool = False,
    ) -> Transcript:
        """One model's reading of 16 kHz mono samples (``multilingual``: the language detected
        per segment, for a multilingual model with no language set)."""
        duration = float(len(audio)) / SAMPLE_RATE
        cfg = self.settings
        with holder.use() as model, budget().ingesting():
            # Word timestamps (cross-attention alignment, ~3% more time): a segment's start and
            # end are its first and last words' in the audio. Without them tiny.en's segment
            # times can lag the speech by 2-3 s (a repeated sentence dropped, the next ones
            # stretched), and a sentence went to the speaker before the one who said it.
            pieces, _info = model.transcribe(
                audio,
                beam_size=cfg.beam_size,
                vad_filter=cfg.vad,
                language=language or cfg.language,
                word_timestamps=True,
                multilingual=multilingual and not (language or cfg.language),
            )
            # Whisper predicts timestamps on its 30 s window, so the last segment of a short clip
            # can end after the audio does (4.18 s in a 3.63 s clip): clamped, so citations and
            # the API's segments never point past the recording.
            end_of_audio = round(duration, 2)
            segments = [
                Segment(
                    min(round(float(s.start), 2), end_of_audio),
                    min(round(float(s.end), 2), end_of_audio),
                    s.text.strip(),
                    float(s.avg_logprob),
                    float(s.compression_ratio),
                    float(s.no_speech_prob),
                    tuple(s.tokens),
                    int(s.seek),
                    float(s.temperature or 0.0),
                )
                for s in pieces
                if s.text.strip()
            ]
        return Transcript(segments, duration)

    def transcribe(
        self, source: Path | BinaryIO, name: str | None = None, per_channel: bool = False
    ) -> Transcript:
        """Decode and transcribe a file or file-like object; ``LoaderError`` if unreadable.

        ``per_channel``: a stereo file whose channels differ is transcribed channel by channel,
        segments in time order with their ``channel``; otherwise it is mixed to mono."""
        label = name or (source.name if isinstance(source, Path) else "recording")
        if not per_channel:
            return self.transcribe_samples(decode(source, label))
        left, right = decode(source, label, split_stereo=True)
        if not channels_differ(left, right):
            return self.transcribe_samples((left + right) / 2)
        parts = {
            name: self.transcribe_samples(ch)
            for name, ch in zip(CHANNEL_NAMES, (left, right), strict=True)
        }
        segments = [
            replace(s, channel=channel) for channel, part in parts.items() for s in part.segments
        ]
        segments.sort(key=lambda s: (s.start, s.channel or ""))
        return Transcript(segments, max(p.duration for p in parts.values()))
