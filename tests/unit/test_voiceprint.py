"""The GE2E encoder rebuilt in torch (core/voiceprint.py) and the clustering logic of
ingest/speakers/diarize.py, on small inputs."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from core import bundled
from core.errors import ModelError
from core.settings import DiarizationSettings
from core.speech import Segment
from core.voiceprint import EMBEDDING_SIZE, SpeakerEncoder, mel_filters
from ingest.speakers.diarize import Turn, assign, cluster, split_at_turns


def test_mel_filters_match_faster_whispers_librosa_copy() -> None:
    from faster_whisper.feature_extractor import FeatureExtractor

    ours = mel_filters()
    theirs = FeatureExtractor.get_mel_filters(16_000, 400, 40)
    assert ours.shape == (40, 201) and np.allclose(ours, theirs, atol=1e-7)


def test_embeddings_are_unit_vectors_and_tell_a_tone_from_noise() -> None:
    t = np.arange(3 * 16_000) / 16_000
    tone = (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    noise = np.random.default_rng(0).normal(0, 0.1, len(t)).astype(np.float32)
    enc = SpeakerEncoder(DiarizationSettings())
    a = enc.embed(tone, [0, 50, 100])
    b = enc.embed(noise, [0])
    assert a.shape == (3, EMBEDDING_SIZE) and np.allclose(np.linalg.norm(a, axis=1), 1, atol=1e-5)
    assert float(a[0] @ a[1]) > float(a[0] @ b[0])


def test_altered_weights_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = bundled.packaged_path("ge2e-speaker-encoder")
    fake = tmp_path / "resemblyzer"
    fake.mkdir()
    shutil.copy(real, fake / "pretrained.pt")
    with (fake / "pretrained.pt").open("r+b") as fh:
        fh.seek(1000)
        fh.write(b"\x00\x01\x02")
    monkeypatch.setattr(bundled, "package_dir", lambda name: fake)
    with pytest.raises(ModelError, match="does not match its published sha256"):
        SpeakerEncoder(DiarizationSettings()).embed(np.zeros(32_000, np.float32), [0])


def _voices(n: int, per: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n, 16))
    rows = [c + rng.normal(scale=0.2, size=(per, 16)) for c in centres]
    out = np.concatenate(rows)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_cluster_estimates_the_count_and_a_setting_fixes_it() -> None:
    three = _voices(3, 12)
    assert sorted(set(cluster(three, 0, 0.33))) == [0, 1, 2]
    assert cluster(three, 0, 0.33)[:12] == [0] * 12  # numbered in order of first appearance
    assert len(set(cluster(three, 2, 0.33))) == 2
    assert set(cluster(_voices(1, 20), 0, 0.33)) == {0}
    assert cluster(three[:1], 0, 0.33) == [0]


def test_a_lone_window_is_smoothed_inside_a_turn_but_a_reply_of_its_own_stays() -> None:
    """Two voices of 12 windows each; one window of B amid A's: inside A's speech region it is
    noise and takes A's label, between pauses (its own region) it is B's short reply
    ("Absolutely." in a two-voice call)."""
    two = _voices(2, 12)
    a, b = two[:12], two[12:]
    order = np.concatenate([a[:6], b[:1], a[6:], b[1:]])
    together = [0] * 13 + [1] * 11  # the lone window inside A's one region
    assert cluster(order, 0, 0.33, together)[6] == 0
    apart = [0] * 6 + [1] + [2] * 6 + [3] * 11  # a region of its own
    labels = cluster(order, 0, 0.33, apart)
    assert labels[6] == 1 and labels[5] == labels[7] == 0 and set(labels[13:]) == {1}


def test_a_segment_goes_to_who_talks_most_in_it() -> None:
    turns = [Turn(0.0, 4.0, 1), Turn(4.2, 9.0, 2), Turn(9.5, 12.0, 1)]
    segs = [Segment(0.5, 3.0, "a"), Segment(3.5, 8.0, "b"), Segment(9.3, 9.45, "c")]
    assert assign(segs, turns) == [1, 2, 1]
    assert assign(segs, []) == [1, 1, 1]


def _directions(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random unit voiceprint and a unit direction at right angles to it (16 dimensions)."""
    base = rng.normal(size=16)
    base /= np.linalg.norm(base)
    away = rng.normal(size=16)
    away -= (away @ base) * base
    return base, away / np.linalg.norm(away)


def _alike_turns(seed: int, spread: float = 0.25) -> np.ndarray:
    """Windows of two voices too alike for the threshold (their centroids about 0.12 apart at
    ``spread`` 0.25, 0.11 at 0.23), taking turns of 10 windows: A, B, A, B."""
    rng = np.random.default_rng(seed)
    base, away = _directions(rng)
    turns = []
    for centre in (base + spread * away, base - spread * away) * 2:
        x = centre + rng.normal(scale=0.0875, size=(10, 16))
        turns.append(x / np.linalg.norm(x, axis=1, keepdims=True))
    return np.concatenate(turns)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_cluster_of_two_alike_voices_is_split_when_they_keep_to_their_turns(seed: int) -> None:
    from sklearn.cluster import AgglomerativeClustering

    windows = _alike_turns(seed)
    merged = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=0.33
    ).fit_predict(windows)
    assert len(set(merged)) == 1  # the threshold alone reads one speaker
    assert cluster(windows, 0, 0.33) == [0] * 10 + [1] * 10 + [0] * 10 + [1] * 10
    # The same windows in a random order: no two groups keep to turns, one speaker.
    shuffled = windows[np.random.default_rng(9).permutation(len(windows))]
    assert set(cluster(shuffled, 0, 0.33)) == {0}
    # Closer voices with the speech regions known: split when each turn is a region of its
    # own; not when the halves differ within regions (one voice saying different things).
    closer = _alike_turns(seed, 0.23)
    turns = [i // 10 for i in range(40)]
    assert cluster(closer, 0, 0.33, turns) == [0] * 10 + [1] * 10 + [0] * 10 + [1] * 10
    assert set(cluster(closer, 0, 0.33, [i // 20 for i in range(40)])) == {0}


def test_a_segment_across_two_turns_is_cut_where_the_speaker_changes() -> None:
    turns = [Turn(0.0, 4.0, 1), Turn(4.3, 10.0, 2), Turn(10.2, 12.0, 2)]
    seg = Segment(0.5, 9.5, "We fix the roof first. The budget says windows, and doors too.")
    cut = split_at_turns([seg], turns)
    assert [(s.start, s.end, s.text) for s in cut] == [
        (0.5, 4.0, "We fix the roof first."),
        (4.0, 9.5, "The budget says windows, and doors too."),
    ]
    assert assign(cut, turns) == [1, 2]
    # No change of speaker inside, or none far enough inside, or no punctuation: kept whole.
    inside_one = [Segment(4.5, 9.0, "The budget, and doors."), Segment(3.7, 8.0, "Roof. Budget.")]
    assert split_at_turns(inside_one, turns) == inside_one
    bare = [Segment(0.5, 9.5, "we fix the roof first the budget says windows")]
    assert split_at_turns(bare, turns) == bare


def _two_conditions(seed: int, shift: float) -> np.ndarray:
    """Nine windows of one voice and four (pieces 2 and 4) moved ``shift`` along another
    direction: another recording condition at 0.85 (mean distance 0.32-0.36 from the nine,
    past the threshold), another voice at 2.0 (0.58-0.61)."""
    rng = np.random.default_rng(seed)
    base, away = _directions(rng)
    a = base + rng.normal(scale=0.12, size=(9, 16))
    b = base + shift * away + rng.normal(scale=0.12, size=(4, 16))
    x = np.concatenate([a[:3], b[:2], a[3:], b[2:]])
    return np.asarray(x / np.linalg.norm(x, axis=1, keepdims=True))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_few_windows_apart_are_one_voice_unless_far(seed: int) -> None:
    from sklearn.cluster import AgglomerativeClustering

    near = _two_conditions(seed, 0.85)
    ahc = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=0.32
    )
    assert len(set(ahc.fit_predict(near))) == 2  # the threshold alone reads two speakers
    assert set(cluster(near, 0, 0.32)) == {0}
    far = _two_conditions(seed, 2.0)  # a second voice of 4 windows (3 s) stays one
    assert cluster(far, 0, 0.32) == [0] * 3 + [1] * 2 + [0] * 6 + [1] * 2


def _voiced(f0: float, seconds: float, seed: int) -> np.ndarray:
    """A buzzy voice at ``f0`` Hz (ten harmonics, a little noise), 16 kHz."""
    t = np.arange(int(seconds * 16000)) / 16000
    x = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 11))
    noise = np.random.default_rng(seed).normal(scale=0.05, size=len(t))
    return np.asarray(0.3 * x + noise, dtype=np.float32)


def test_pitch_is_read_per_window_and_missing_where_unvoiced() -> None:
    from ingest.speakers.pitch import window_pitch

    samples = np.concatenate(
        [_voiced(82, 2, 0), _voiced(98, 2, 1), np.random.default_rng(2).normal(size=32000) * 0.3]
    ).astype(np.float32)
    got = window_pitch(samples, [20, 220, 420])  # mel frames: 0.2 s, 2.2 s, 4.2 s
    assert abs(got[0] - np.log2(82)) < 0.03
    assert abs(got[1] - np.log2(98)) < 0.03
    assert np.isnan(got[2])  # noise has no pitch


def _one_timbre(seed: int, n: int = 40) -> np.ndarray:
    """``n`` windows of one timbre: the voiceprints alone read one speaker."""
    rng = np.random.default_rng(seed)
    base, _ = _directions(rng)
    x = base + rng.normal(scale=0.0875, size=(n, 16))
    return np.asarray(x / np.linalg.norm(x, axis=1, keepdims=True))


@pytest.mark.parametrize("seed", [0, 1])
def test_two_voices_of_one_timbre_are_split_by_pitch_when_they_keep_to_their_turns(
    seed: int,
) -> None:
    windows = _one_timbre(seed)
    assert set(cluster(windows, 0, 0.33)) == {0}
    rng = np.random.default_rng(seed + 5)
    turns = [i // 10 % 2 for i in range(40)]  # A, B, A, B: 10 windows each
    pitch = np.where(np.asarray(turns) == 1, 6.35, 6.6) + rng.normal(scale=0.03, size=40)
    pitch[[3, 15, 27]] = np.nan  # unvoiced windows go with their neighbours
    assert cluster(windows, 0, 0.33, pitch=pitch) == turns
    # The same pitches in a random order (one voice's intonation): one speaker.
    assert set(cluster(windows, 0, 0.33, pitch=pitch[rng.permutation(40)])) == {0}
    # Turns apart by under PITCH_APART octaves: one speaker.
    near = np.where(np.asarray(turns) == 1, 6.5, 6.6) + rng.normal(scale=0.01, size=40)
    assert set(cluster(windows, 0, 0.33, pitch=near)) == {0}
