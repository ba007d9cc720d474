"""Speakers of a transcribed recording: which speaker said each Whisper segment.

The file is decoded again (PyAV, a fraction of Whisper's time) and diarized the way it was
transcribed: mixed to mono, or, when its two channels differ, channel by channel, each channel's
speakers numbered apart. Speakers are numbered 1, 2, ... in the order they first speak in the
segments. The encoder is shared by the loaders of one :class:`LoaderContext`.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from core.speech import CHANNEL_NAMES, channels_differ, decode
from core.voiceprint import SpeakerEncoder
from ingest.speakers.diarize import Turn, assign, diarize, split_at_turns

if TYPE_CHECKING:
    from core.settings import HearthSettings
    from core.speech import Segment

_ENCODERS: weakref.WeakKeyDictionary[object, SpeakerEncoder] = weakref.WeakKeyDictionary()


def encoder_for(owner: object, settings: HearthSettings) -> SpeakerEncoder:
    """The speaker encoder kept for ``owner`` (a loader context's speech model, so one per
    context), made on first use."""
    encoder = _ENCODERS.get(owner)
    if encoder is None:
        encoder = _ENCODERS[owner] = SpeakerEncoder(settings.diarization)
    return encoder


def segment_speakers(
    path: Path, segments: list[Segment], encoder: SpeakerEncoder
) -> tuple[list[Segment], list[int]]:
    """The segments of ``path``'s transcript, each one spanning a change of speaker cut there
    (``split_at_turns``), and the speaker (from 1) of each; ``LoaderError`` naming the file
    when it cannot be decoded."""
    if not segments:
        return [], []
    settings = encoder.settings
    left, right = decode(path, path.name, split_stereo=True)
    mixed = not (any(s.channel for s in segments) and channels_differ(left, right))
    turns_of: dict[str | None, list[Turn]] = {}
    if mixed:
        turns_of[None] = diarize((left + right) / 2, encoder, settings)
    else:
        for channel, samples in zip(CHANNEL_NAMES, (left, right), strict=True):
            turns_of[channel] = diarize(samples, encoder, settings)
    out: list[Segment] = []
    raw: list[tuple[str, int]] = []
    for seg in segments:  # in their order, each cut where its channel's speaker changes
        key = None if mixed else seg.channel
        if key not in turns_of:  # a segment of no channel in a recording read per channel
            out.append(seg)
            raw.append(("", 1))
            continue
        turns = turns_of[key]
        pieces = split_at_turns([seg], turns)
        out += pieces
        raw += [(key or "", who) for who in assign(pieces, turns)]
    order: dict[tuple[str, int], int] = {}
    for speaker in raw:
        order.setdefault(speaker, len(order) + 1)
    return out, [order[speaker] for speaker in raw]
