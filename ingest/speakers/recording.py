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
from ingest.speakers.diarize import assign, diarize

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


def segment_speakers(path: Path, segments: list[Segment], encoder: SpeakerEncoder) -> list[int]:
    """The speaker (from 1) of each segment of ``path``'s transcript; ``LoaderError`` naming the
    file when it cannot be decoded."""
    if not segments:
        return []
    settings = encoder.settings
    left, right = decode(path, path.name, split_stereo=True)
    raw: list[tuple[str, int]]
    if any(s.channel for s in segments) and channels_differ(left, right):
        found: dict[int, tuple[str, int]] = {}
        for channel, samples in zip(CHANNEL_NAMES, (left, right), strict=True):
            idx = [i for i, s in enumerate(segments) if s.channel == channel]
            turns = diarize(samples, encoder, settings)
            for i, who in zip(idx, assign([segments[i] for i in idx], turns), strict=True):
                found[i] = (channel, who)
        raw = [found.get(i, ("", 1)) for i in range(len(segments))]
    else:
        turns = diarize((left + right) / 2, encoder, settings)
        raw = [("", who) for who in assign(segments, turns)]
    order: dict[tuple[str, int], int] = {}
    for key in raw:
        order.setdefault(key, len(order) + 1)
    return [order[key] for key in raw]
