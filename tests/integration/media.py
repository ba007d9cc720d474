"""Helpers that make test recordings and images (silence, long speech, text rendered to pixels)."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

RATE = 16_000


def write_wav(path: Path, samples: np.ndarray, rate: int = RATE, channels: int = 1) -> Path:
    """16-bit PCM wav from float samples in [-1, 1] (shape (n,) or (n, channels))."""
    pcm = (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return path


def silent_wav(path: Path, seconds: float = 3.0) -> Path:
    """A wav of digital silence."""
    return write_wav(path, np.zeros(int(seconds * RATE), dtype=np.float32))


def long_stereo_wav(path: Path, speech: Path, repeats: int, gap_s: float = 6.0) -> Path:
    """``speech`` repeated with pauses between, as a 16 kHz stereo wav."""
    from faster_whisper.audio import decode_audio

    clip = decode_audio(str(speech), sampling_rate=RATE)
    gap = np.zeros(int(gap_s * RATE), dtype=np.float32)
    mono = np.concatenate([part for _ in range(repeats) for part in (clip, gap)])
    return write_wav(path, np.stack([mono, mono * 0.8], axis=1), channels=2)


def text_image(lines: list[str], width: int = 1240, height: int = 1754, size: int = 40) -> object:
    """A white page with the lines drawn in black (a PIL image)."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=size)
    for i, line in enumerate(lines):
        draw.text((100, 150 + i * int(size * 1.6)), line, fill="black", font=font)
    return img


def dejavu_page(path: Path, cells: list[tuple[int, int, str]], size: tuple[int, int]) -> Path:
    """A white page of ``size`` pixels with each ``(x, y, text)`` drawn in black in matplotlib's
    DejaVu Sans at 30 px (Pillow's default font has no glyphs for "ü" or "é"), saved to ``path``."""
    import matplotlib
    from PIL import Image, ImageDraw, ImageFont

    font_file = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    font = ImageFont.truetype(str(font_file), 30)
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    for x, y, text in cells:
        draw.text((x, y), text, fill="black", font=font)
    img.save(path)
    return path


def encode(src: Path, dest: Path, codec: str, rate: int = 48_000) -> Path:
    """Re-encode ``src`` with PyAV into ``dest`` (container from its extension), stereo."""
    import av
    from faster_whisper.audio import decode_audio

    mono = decode_audio(str(src), sampling_rate=rate)
    stereo = np.stack([mono, mono]).astype(np.float32)  # planar (channels, samples)
    fmt = {".m4a": "mp4", ".opus": "ogg", ".ogg": "ogg", ".webm": "webm"}.get(dest.suffix)
    with av.open(str(dest), "w", format=fmt) as out:
        stream = out.add_stream(codec, rate=rate, layout="stereo")
        frame_size = 960
        for start in range(0, stereo.shape[1], frame_size):
            block = np.ascontiguousarray(stereo[:, start : start + frame_size])
            frame = av.AudioFrame.from_ndarray(block, format="fltp", layout="stereo")
            frame.sample_rate = rate
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return dest
