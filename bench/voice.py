"""Word error rate and real-time factor of Hearth's transcription, next to raw faster-whisper;
then read-aloud (text to speech): Hearth's real-time factor next to raw piper on the same text.

    .venv/bin/python bench/voice.py [--repeats 3] [--audio-dir ../shared/data/audio] [--json P]
    .venv/bin/python bench/voice.py --tts-only   # read-aloud only (no recordings needed)

Both use the same model folder, compute type, threads, beam size and VAD, in the same process; the
files are transcribed alternately (Hearth, raw, Hearth, ...) so machine load hits both alike. Times
exclude model loading (reported apart). WER is on normalised text (lower case, no punctuation)
against transcripts.tsv. Goal: Hearth's time at most 1.05 x raw.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

# The repository first: run as a script, bench/ingest.py would shadow the ingest package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core  # noqa: F401 - offline before any model library loads
from bench._metrics import edit_distance, normalise, rss_bytes
from bench.figures import Figure, add_json_option, write_json
from core.resident import model_resident_bytes
from core.settings import load_settings
from core.speech import SpeechModel, whisper_path

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "audio"


def parser() -> argparse.ArgumentParser:
    """The command line of this bench."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--audio-dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tts-only", action="store_true", help="Only the read-aloud comparison.")
    add_json_option(parser)
    return parser


TTS_TEXT = (
    "Hearth answers questions from your own files, entirely on this machine. "
    "It reads documents, recordings and scanned pages, and cites the passages it used. "
    "Nothing you ask ever leaves the computer, and the models ship with the program."
)


def run_tts(args: argparse.Namespace) -> list[Figure]:
    """Hearth's read-aloud against raw piper (same voice file, same text, alternately, in this
    process; load times apart). Real-time factor = synthesis seconds per second of audio."""
    from piper import PiperVoice

    from core.tts import TextToSpeech, voice_path

    settings = load_settings()
    settings.tts.resident = True
    t = time.perf_counter()
    hearth = TextToSpeech(settings.tts)
    with hearth.holder.use():
        pass
    hearth_load = time.perf_counter() - t
    t = time.perf_counter()
    raw = PiperVoice.load(voice_path(settings.tts.voice, verify=False))
    raw_load = time.perf_counter() - t
    hearth.synthesize(TTS_TEXT)  # warm-up of both
    list(raw.synthesize(TTS_TEXT))
    totals = {"hearth": 0.0, "raw": 0.0}
    audio_s = 0.0
    for _ in range(args.repeats):
        t = time.perf_counter()
        speech = hearth.synthesize(TTS_TEXT)
        totals["hearth"] += time.perf_counter() - t
        t = time.perf_counter()
        chunks = list(raw.synthesize(TTS_TEXT))
        totals["raw"] += time.perf_counter() - t
        audio_s += speech.seconds
        raw_s = sum(len(c.audio_int16_bytes) for c in chunks) / 2 / chunks[0].sample_rate
    rtf = {who: totals[who] / audio_s for who in totals}
    print(
        f"read-aloud ({hearth.backend}, {settings.tts.voice}, {len(TTS_TEXT)} characters, "
        f"{speech.seconds:.1f} s of audio (raw {raw_s:.1f} s), {args.repeats} repeats)"
    )
    print(f"real-time factor  hearth {rtf['hearth']:.4f}   raw piper {rtf['raw']:.4f}")
    print(f"time ratio hearth/raw {totals['hearth'] / totals['raw']:.3f}")
    print(f"voice load        hearth {hearth_load:.2f} s (sha256 check)   raw {raw_load:.2f} s")
    print(f"load average {os.getloadavg()} (2 cores shared: figures vary with it)")
    note = f"{settings.tts.voice}, {speech.seconds:.1f} s of audio; raw = piper synthesize"
    return [
        Figure("voice", "TTS real-time factor", rtf["hearth"], "s per s of audio", rtf["raw"],
               better="lower", note=note),
        Figure("voice", "voice load", hearth_load, "s", raw_load, better="lower",
               note="Hearth's includes the sha256 check of the bundled voice"),
    ]  # fmt: skip


def run(args: argparse.Namespace) -> list[Figure]:
    """Run the comparison, print a table, return the figures."""
    if args.tts_only:
        return run_tts(args)
    with (args.audio_dir / "transcripts.tsv").open() as fh:
        refs = {row["file"]: row["reference"] for row in csv.DictReader(fh, delimiter="\t")}
    settings = load_settings()
    settings.speech.resident = True
    cfg = settings.speech
    threads = cfg.n_threads or os.cpu_count() or 1

    rss0 = rss_bytes()
    t = time.perf_counter()
    hearth = SpeechModel(cfg)
    with hearth.holder.use():
        pass
    hearth_load = time.perf_counter() - t
    first = hearth.transcribe(args.audio_dir / next(iter(refs)))  # warm-up, also measures RSS
    rss_hearth = rss_bytes() - rss0

    from faster_whisper import WhisperModel

    t = time.perf_counter()
    raw = WhisperModel(
        str(whisper_path(cfg.model)),
        device="cpu",
        compute_type=cfg.compute_type,
        cpu_threads=threads,
    )
    raw_load = time.perf_counter() - t
    del first

    def run_raw(path: Path) -> str:
        segments, _ = raw.transcribe(
            str(path), beam_size=cfg.beam_size, vad_filter=cfg.vad, language=cfg.language
        )
        return " ".join(s.text.strip() for s in segments)

    totals = {"hearth": 0.0, "raw": 0.0}
    errors = {"hearth": 0, "raw": 0}
    ref_words = 0
    audio_s = 0.0
    print(
        f"model {cfg.model}, {cfg.compute_type}, beam {cfg.beam_size}, vad {cfg.vad}, "
        f"{threads} threads, {args.repeats} repeats"
    )
    print(f"{'file':24} {'secs':>5} {'WER hearth':>10} {'WER raw':>8} {'t hearth':>9} {'t raw':>7}")
    for name, ref in refs.items():
        path = args.audio_dir / name
        ref_tokens = normalise(ref).split()
        times = {"hearth": 0.0, "raw": 0.0}
        texts = {}
        for _ in range(args.repeats):
            t = time.perf_counter()
            transcript = hearth.transcribe(path)
            times["hearth"] += time.perf_counter() - t
            t = time.perf_counter()
            texts["raw"] = run_raw(path)
            times["raw"] += time.perf_counter() - t
        texts["hearth"] = transcript.text
        wer = {}
        for who in ("hearth", "raw"):
            dist = edit_distance(normalise(texts[who]).split(), ref_tokens)
            errors[who] += dist
            wer[who] = dist / len(ref_tokens)
            totals[who] += times[who]
        ref_words += len(ref_tokens)
        audio_s += transcript.duration * args.repeats
        print(
            f"{name:24} {transcript.duration:5.1f} {wer['hearth']:10.3f} {wer['raw']:8.3f} "
            f"{times['hearth'] / args.repeats:9.3f} {times['raw'] / args.repeats:7.3f}"
        )
    print(
        f"WER (all words)   hearth {errors['hearth'] / ref_words:.3f}   "
        f"raw {errors['raw'] / ref_words:.3f}   ({ref_words} reference words)"
    )
    print(
        f"real-time factor  hearth {totals['hearth'] / audio_s:.4f}   "
        f"raw {totals['raw'] / audio_s:.4f}"
    )
    print(f"time ratio hearth/raw {totals['hearth'] / totals['raw']:.3f} (goal <= 1.05)")
    print(
        f"model load        hearth {hearth_load:.2f} s (with importing faster-whisper)   "
        f"raw {raw_load:.2f} s"
    )
    estimate = model_resident_bytes(settings)["whisper"]
    print(
        f"RSS growth after loading and one transcription (Hearth): "
        f"{rss_hearth / 2**20:.0f} MiB; estimate {estimate / 2**20:.0f} MiB"
    )
    note = f"{cfg.model}, {len(refs)} files, {audio_s / args.repeats:.0f} s of audio"
    return [
        Figure(
            "voice",
            "transcription real-time factor",
            totals["hearth"] / audio_s,
            "s per s of audio",
            totals["raw"] / audio_s,
            better="lower",
            note=note + "; raw = faster-whisper transcribe; goal ratio <= 1.05",
        ),
        Figure(
            "voice",
            "WER",
            errors["hearth"] / ref_words,
            "share",
            errors["raw"] / ref_words,
            better="lower",
            note=f"{ref_words} reference words",
        ),
        Figure(
            "voice",
            "model load",
            hearth_load,
            "s",
            raw_load,
            better="lower",
            note="Hearth's includes importing faster-whisper",
        ),
        Figure(
            "voice",
            "RSS growth (Hearth)",
            rss_hearth / 2**20,
            "MiB",
            note=f"estimate {estimate / 2**20:.0f} MiB",
        ),
        *run_tts(args),
    ]


def main() -> None:
    """Run the comparison and print a table."""
    args = parser().parse_args()
    write_json(args.json, run(args))


if __name__ == "__main__":
    main()
