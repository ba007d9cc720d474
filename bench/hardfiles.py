"""The hard set's own files, made in code at run time (nothing of them is stored in the project).

Tables in XLSX, DOCX, PDF and HTML; a photographed-looking receipt (JPEG, tilted, noisy); a
two-speaker stereo recording (espeak-ng + sox, a different speaker on each channel); a long report
with near-miss numbers and facts that need two passages. ``make_files(folder)`` writes them and
copies the shared documents, image and recording the questions also use.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench.common import SHARED
from tests.unit.pdfgen import write_pdf

# Prices per quarter (XLSX): neighbouring rows and columns hold near-miss values.
PRICES = [
    ("Item", "Q1 2026", "Q2 2026", "Q3 2026", "Supplier"),
    ("Brass hinge", 4.15, 4.35, 4.55, "Calder Hardware"),
    ("Steel hinge", 3.05, 3.25, 3.45, "Calder Hardware"),
    ("Oak shelf", 21.90, 22.40, 23.10, "Penrose Timber"),
    ("Pine shelf", 12.80, 13.20, 13.60, "Penrose Timber"),
    ("Wall anchor", 0.18, 0.21, 0.24, "Fixings Direct"),
    ("Wood screw", 0.07, 0.08, 0.09, "Fixings Direct"),
    ("Door handle", 8.75, 9.10, 9.45, "Marlow Fittings"),
    ("Cabinet knob", 2.60, 2.75, 2.95, "Marlow Fittings"),
]
# Staff (DOCX table).
STAFF = [
    ("Name", "Role", "Office", "Start year"),
    ("Priya Natarajan", "Data engineer", "Leeds", "2019"),
    ("Tomas Varga", "Accountant", "Bristol", "2016"),
    ("Helen Okafor", "Site manager", "Glasgow", "2021"),
    ("Marcus Lindqvist", "Buyer", "Leeds", "2018"),
    ("Amara Diallo", "Designer", "Cardiff", "2020"),
]
# Water samples (PDF table).
SAMPLES = [
    ("Sample", "pH", "Nitrate mg/L", "Lead ug/L"),
    ("W-01", "7.2", "11.4", "2.1"),
    ("W-02", "6.9", "14.1", "3.8"),
    ("W-03", "7.4", "9.7", "1.2"),
    ("W-04", "8.1", "22.6", "4.4"),
    ("W-05", "7.0", "12.9", "2.7"),
]
# Departures (HTML table).
TRAINS = [
    ("Departs", "Destination", "Platform", "Operator"),
    ("09:12", "Bath Spa", "2", "Great Western"),
    ("09:42", "Exeter St Davids", "4", "Great Western"),
    ("10:05", "Cardiff Central", "1", "Transport for Wales"),
    ("10:37", "Exeter St Davids", "3", "CrossCountry"),
]
RECEIPT = [
    "HOLLYBROOK GROCERS",
    "14 Mill Lane, Ashford",
    "Date: 12/10/2026  Till 3",
    "Oat milk 1L          1.85",
    "Sourdough loaf       3.20",
    "Free range eggs x6   2.95",
    "Cheddar 400g         4.10",
    "TOTAL               12.10",
    "Paid by card",
]
LEFT_SPEECH = (
    "Good morning. This is Oliver from facilities. The roof repair on the east wing is booked "
    "for the fourteenth of March. The scaffolding company is Brightline."
)
RIGHT_SPEECH = (
    "Hello, Grace from finance here. The budget for the roof repair is eighteen thousand "
    "pounds. Invoices go to the Swindon office."
)


def _xlsx(path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Prices"
    for row in PRICES:
        ws.append(list(row))
    wb.save(path)


def _docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_heading("Staff directory", level=1)
    d.add_paragraph("Everyone working for Northgate Supplies, with their office and start year.")
    table = d.add_table(rows=0, cols=len(STAFF[0]))
    for row in STAFF:
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
    d.add_paragraph("Office moves are agreed with the site manager of the office concerned.")
    d.save(str(path))


def _pdf_table(path: Path) -> None:
    """A one-page PDF whose table cells are placed as separate text objects (as PDF tables are)."""
    ops = ["BT /F1 14 Tf 72 740 Td (Water quality results, autumn survey) Tj ET"]
    for r, row in enumerate(SAMPLES):
        for c, cell in enumerate(row):
            ops.append(f"BT /F1 11 Tf {72 + c * 110} {700 - r * 20} Td ({cell}) Tj ET")
    ops.append("BT /F1 11 Tf 72 560 Td (Samples were taken from the river Wend.) Tj ET")
    write_pdf(path, ["\n".join(ops).encode()])


def _html(path: Path) -> None:
    head = "".join(f"<th>{h}</th>" for h in TRAINS[0])
    rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in TRAINS[1:])
    path.write_text(
        "<html><body><main><h1>Departures from Bristol Temple Meads</h1>"
        "<p>Weekday morning departures.</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        "</main></body></html>",
        encoding="utf-8",
    )


def _receipt(path: Path) -> None:
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    font = ImageFont.load_default(size=30)
    img = Image.new("L", (760, 60 + 52 * len(RECEIPT)), 236)
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(RECEIPT):
        draw.text((40, 30 + 52 * i), line, fill=30, font=font)
    rng = random.Random(7)
    for _ in range(img.width * img.height // 25):  # paper grain
        x, y = rng.randrange(img.width), rng.randrange(img.height)
        grey = int(img.getpixel((x, y)) or 0)  # type: ignore[arg-type]
        img.putpixel((x, y), max(0, min(255, grey + rng.randint(-60, 60))))
    img = img.rotate(2.5, expand=True, fillcolor=120).filter(ImageFilter.GaussianBlur(0.8))
    img.convert("RGB").save(path, quality=70)


def _stereo(path: Path) -> None:
    """Oliver on the left channel, Grace (another voice) on the right; their speech overlaps."""
    with tempfile.TemporaryDirectory() as tmp:
        left, right = Path(tmp, "l.wav"), Path(tmp, "r.wav")
        subprocess.run(
            ["espeak-ng", "-v", "en-gb", "-s", "150", "-w", str(left), LEFT_SPEECH], check=True
        )
        subprocess.run(
            ["espeak-ng", "-v", "en-us+f3", "-s", "150", "-w", str(right), RIGHT_SPEECH], check=True
        )
        delayed = Path(tmp, "r2.wav")
        subprocess.run(["sox", str(right), str(delayed), "pad", "3"], check=True)
        subprocess.run(["sox", "-M", str(left), str(delayed), "-r", "16000", str(path)], check=True)


def make_files(folder: Path) -> list[Path]:
    """Write the generated files and copy the shared ones into ``folder``; their paths."""
    from bench.hardreport import write_report

    folder.mkdir(parents=True, exist_ok=True)
    makers = {
        "prices.xlsx": _xlsx,
        "staff.docx": _docx,
        "water_quality.pdf": _pdf_table,
        "departures.html": _html,
        "receipt.jpg": _receipt,
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
