"""Tables made in code, shared by the table tests and the hard set (bench/hardfiles.py): prices
per quarter (XLSX), a staff directory (DOCX), water samples (PDF, each cell its own text object)
and train departures (HTML). Neighbouring rows and columns hold near-miss values, so a cell is
only found by its row and column words."""

from __future__ import annotations

from pathlib import Path

from samples.pdf import write_pdf

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


def write_xlsx(path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Prices"
    for row in PRICES:
        ws.append(list(row))
    wb.save(path)


def write_docx(path: Path) -> None:
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


def write_pdf_table(path: Path) -> None:
    """A one-page PDF whose table cells are placed as separate text objects (as PDF tables are)."""
    ops = ["BT /F1 14 Tf 72 740 Td (Water quality results, autumn survey) Tj ET"]
    for r, row in enumerate(SAMPLES):
        for c, cell in enumerate(row):
            ops.append(f"BT /F1 11 Tf {72 + c * 110} {700 - r * 20} Td ({cell}) Tj ET")
    ops.append("BT /F1 11 Tf 72 560 Td (Samples were taken from the river Wend.) Tj ET")
    write_pdf(path, ["\n".join(ops).encode()])


def write_html(path: Path) -> None:
    head = "".join(f"<th>{h}</th>" for h in TRAINS[0])
    rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in TRAINS[1:])
    path.write_text(
        "<html><body><main><h1>Departures from Bristol Temple Meads</h1>"
        "<p>Weekday morning departures.</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        "</main></body></html>",
        encoding="utf-8",
    )
