"""Recordings (wav, flac, mp3, m4a, ogg, opus, webm): Whisper transcripts with time ranges.

Consecutive speech segments are grouped into sections of at most about half a chunk of words
(and 30 seconds), so
that a chunk's provenance ``{"start": s, "end": s}`` (seconds) is the time range it was spoken in.
A stereo recording with a different speaker on each channel is transcribed channel by channel
(core/speech.py); its sections never mix channels and carry ``"channel": "left"|"right"``.
With ``diarization.enabled`` (ingest/speakers/), each segment is assigned a speaker and a
section never holds two speakers' turns; its provenance carries ``"speaker": N`` (from 1) and,
once the person named that speaker, ``"speaker_name"`` (written by the catalogue's commit from
the names it keeps, core/catalogue/speakers.py); a name the recording itself says for the
speaker ("I'm Sheila", "Good morning, Steve") is ``"speaker_heard"``.
A recording without speech gives no sections (recorded as empty); an undecodable file is a
``LoaderError`` naming it.
"""

from __future__ import annotations

from pathlib import Path

from core.errors import LoaderError
from core.speech import Segment
from core.types import Section
from ingest.loaders.base import ContextLoader, LoaderContext, handles
from ingest.loaders.sections import word_runs
from ingest.speakers.heard import heard_names
from ingest.speakers.names import adopt_old_names
from ingest.speakers.recording import encoder_for, segment_speakers

#: A pause longer than this (seconds) between segments starts a new section.
MAX_PAUSE = 3.0
#: A section spans at most this many seconds, so a citation points at a short stretch.
MAX_SPAN = 30.0


def segment_sections(
    segments: list[Segment],
    max_words: int,
    speakers: list[int] | None = None,
    names: dict[int, str] | None = None,
    heard: dict[int, str] | None = None,
) -> list[Section]:
    """Group segments into sections of at most ``max_words`` words and ``MAX_SPAN`` seconds,
    cut at long pauses; segments of different channels are grouped apart, in time order.
    ``speakers`` (one per segment, from 1): a change of speaker starts a section, which records
    its ``speaker``, how many the recording has (``speakers``), ``speaker_name`` from
    ``names`` and ``speaker_heard`` from ``heard`` (the name the recording says,
    ingest/speakers/heard.py)."""
    if speakers is not None:
        named = names or {}
        said = heard or {}
        count = len(set(speakers))  # a label names the speaker only when there are several
        sections: list[Section] = []
        start = 0
        for i in range(1, len(segments) + 1):
            if i == len(segments) or speakers[i] != speakers[start]:
                who = speakers[start]
                extra: dict[str, object] = {"speaker": who, "speakers": count}
                if who in named:
                    extra["speaker_name"] = named[who]
                if who in said:
                    extra["speaker_heard"] = said[who]
                sections += [
                    Section(sec.text, {**sec.provenance, **extra})
                    for sec in segment_sections(segments[start:i], max_words)
                ]
                start = i
        return sections
    channels = sorted({s.channel for s in segments if s.channel})
    if channels:
        sections = [
            Section(sec.text, {**sec.provenance, "channel": ch})
            for ch in channels
            for sec in _group([s for s in segments if s.channel == ch], max_words)
        ]
        return sorted(sections, key=lambda sec: float(sec.provenance["start"]))
    return _group(segments, max_words)


def _group(segments: list[Segment], max_words: int) -> list[Section]:
    def cut(group: list[Segment], seg: Segment) -> bool:
        return seg.end - group[0].start > MAX_SPAN or seg.start - group[-1].end > MAX_PAUSE

    return [
        Section(" ".join(s.text for s in group), {"start": group[0].start, "end": group[-1].end})
        for group in word_runs(segments, max_words, cut)
    ]


def words_per_section(context: LoaderContext) -> int:
    """Words in a section so that it fits one chunk (about 1.3 tokens a word, with room)."""
    return max(16, context.settings.chunking.chunk_tokens // 2)


@handles("audio", (".wav", ".flac", ".mp3", ".m4a", ".ogg", ".opus", ".webm"))
class AudioLoader(ContextLoader):
    """Recordings transcribed by the configured Whisper model."""

    file_type = "audio"

    @property
    def library(self) -> str:
        """The speech models that read recordings (``hearth formats``)."""
        speech = self.context.settings.speech
        second = (
            f"; speech it cannot read (another language): {speech.second_model}, multilingual"
            if speech.second_model
            else ""
        )
        return f"faster-whisper, {speech.model}{second}"

    def load(self, path: Path) -> list[Section]:
        """Sections of the transcript, each with its start and end in seconds."""
        transcript = self.context.speech.transcribe(path, path.name, per_channel=True)
        if transcript.duration == 0:
            raise LoaderError(
                f"{path.name}: no audio could be decoded from it (0 seconds): the recording is "
                "empty or cut short"
            )
        settings = self.context.settings
        if not settings.diarization.enabled:
            return segment_sections(transcript.segments, words_per_section(self.context))
        encoder = encoder_for(self.context.speech, settings)
        segments, speakers = segment_speakers(path, transcript.segments, encoder)
        adopt_old_names(settings)  # names given before 0008; the commit writes them in
        heard = heard_names(segments, speakers)
        return segment_sections(segments, words_per_section(self.context), speakers, heard=heard)
