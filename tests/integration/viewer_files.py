"""The files the citation-viewer tests ingest: a three-page PDF whose answer is on page 3, a
scanned (image-only) PDF page, a photo of text, a spreadsheet, an e-mail, a text file and,
where ``../shared/data`` has it, a recording."""

from __future__ import annotations

from pathlib import Path

from samples.pdf import write_pdf
from tests.conftest import SHARED_DATA
from tests.integration.media import RATE, text_image, write_wav

PAGE3 = [
    ("", "Harbour notes, third page."),
    ("", "The lighthouse on Skerry Island"),
    ("", "is painted green and white"),
    ("", "and was first lit in 1871."),
]
PASSAGE_WORDS = ["lighthouse", "Skerry", "Island", "painted", "green", "white", "1871"]
QUESTION = "What colours is the lighthouse on Skerry Island painted?"
SCAN_LINES = ["Scanned memo", "The boiler room key", "hangs behind the blue door"]
PHOTO_LINES = ["CORNER SHOP", "Oat milk 1.85", "Rye bread 2.40"]
SHEET = [
    ("Name", "Office", "Start year"),
    ("Ann Hale", "Leeds", 2019),
    ("Rafael Costa", "York", 2021),
    ("Mina Osei", "Bath", 2015),
]
RECORDING = SHARED_DATA / "audio" / "jfk.flac"


def write_corpus(folder: Path) -> dict[str, Path]:
    """Write every file into ``folder``; returns them by kind."""
    import openpyxl

    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "pdf": folder / "harbour.pdf",
        "scan": folder / "memo-scan.pdf",
        "photo": folder / "receipt.png",
        "xlsx": folder / "staff.xlsx",
        "eml": folder / "note.eml",
        "text": folder / "notes.txt",
    }
    write_pdf(
        files["pdf"],
        [
            "Harbour notes, first page: the tide tables for the spring.",
            "Harbour notes, second page: the moorings were repainted.",
            PAGE3,
        ],
    )
    text_image(SCAN_LINES).save(files["scan"], "PDF", resolution=150)  # type: ignore[attr-defined]
    text_image(PHOTO_LINES, width=900, height=700, size=48).save(files["photo"])  # type: ignore[attr-defined]
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Staff"
    for row in SHEET:
        ws.append(list(row))
    book.save(files["xlsx"])
    files["eml"].write_text(
        "From: Dana Reyes <dana@example.org>\nTo: team@example.org\n"
        "Subject: Kiln schedule\nDate: Tue, 03 Mar 2026 09:00:00 +0000\n"
        "Content-Type: text/plain; charset=utf-8\n\n"
        "The kiln is fired on Thursdays after the glaze class.\n"
    )
    files["text"].write_text(
        "Garden notes.\n\nThe compost bins are turned every second Sunday.\n\n"
        "Tomatoes go in the east bed this year.\n"
    )
    if RECORDING.is_file():
        files["audio"] = speech_thrice(folder / "speech.wav")
    return files


def speech_thrice(path: Path, gap_s: float = 10.0) -> Path:
    """The recording three times with pauses between (16 kHz mono, about 53 s: longer than one
    audio section may span), so a later passage is cited from a start well after 0 s."""
    import numpy as np
    from faster_whisper.audio import decode_audio

    clip = decode_audio(str(RECORDING), sampling_rate=RATE)
    gap = np.zeros(int(gap_s * RATE), dtype=np.float32)
    return write_wav(path, np.concatenate([clip, gap, clip, gap, clip]))
