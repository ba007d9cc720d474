"""The hard set's own files, made in code at run time (nothing of them is stored in the project).

Tables in XLSX, DOCX, PDF and HTML; a photographed-looking receipt (JPEG, tilted, noisy); a
two-speaker stereo recording (espeak-ng, a different speaker on each channel); a long report
with near-miss numbers and facts that need two passages. ``make_files(folder)`` writes them and
copies the shared documents, image and recording the questions also use.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np

from bench.common import SHARED
from samples.images import write_receipt
from samples.tables import write_docx, write_html, write_pdf_table, write_xlsx

LEFT_SPEECH = (
    "Good morning. This is Oliver from facilities. The roof repair on the east wing is booked "
    "for the fourteenth of March. The scaffolding company is Brightline."
)
RIGHT_SPEECH = (
    "Hello, Grace from finance here. The budget for the roof repair is eighteen thousand "
    "pounds. Invoices go to the Swindon office."
)


def _read_wav(path: Path) -> tuple[np.ndarray, int]:
    """A mono 16-bit WAV's samples and rate."""
    with wave.open(str(path), "rb") as f:
        return np.frombuffer(f.readframes(f.getnframes()), dtype="<i2"), f.getframerate()


def _stereo(path: Path) -> None:
    """Oliver on the left channel, Grace (another voice) on the right, 3 s later; their speech
    overlaps. Mixed with numpy (sox is not on every machine), at espeak-ng's own rate."""
    with tempfile.TemporaryDirectory() as tmp:
        left, right = Path(tmp, "l.wav"), Path(tmp, "r.wav")
        subprocess.run(
            ["espeak-ng", "-v", "en-gb", "-s", "150", "-w", str(left), LEFT_SPEECH], check=True
        )
        subprocess.run(
            ["espeak-ng", "-v", "en-us+f3", "-s", "150", "-w", str(right), RIGHT_SPEECH], check=True
        )
        a, rate = _read_wav(left)
        b, _ = _read_wav(right)
        b = np.concatenate([np.zeros(3 * rate, dtype="<i2"), b])
        n = max(len(a), len(b))
        frames = np.zeros((n, 2), dtype="<i2")
        frames[: len(a), 0], frames[: len(b), 1] = a, b
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames.tobytes())


def make_files(folder: Path) -> list[Path]:
    """Write the generated files and copy the shared ones into ``folder``; their paths."""
    from bench.hardreport import write_report

    folder.mkdir(parents=True, exist_ok=True)
    makers = {
        "prices.xlsx": write_xlsx,
        "staff.docx": write_docx,
        "water_quality.pdf": write_pdf_table,
        "departures.html": write_html,
        "receipt.jpg": write_receipt,
        "site_meeting.wav": _stereo,
        "annual_report.md": write_report,
    }
    for name, make in makers.items():
        make(folder / name)
    for rel in (
        "docs/pdf/multi_page.pdf",
        "docs/html/wiki_duck.html",
        "docs/md/wiki.md",
        "images/phototest.png",
        "audio/jfk.flac",
    ):
        shutil.copy(SHARED / rel, folder / Path(rel).name)
    return sorted(folder.iterdir())
