"""Real files of every supported kind, each written with its format's own library, each holding
one known fact among distractors. Shared by the format tests and ``bench/formats.py``."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

FILLER = [
    "Quarterly planning covers hiring, travel and the office move.",
    "The cafeteria menu changes every Monday and lists vegetarian dishes.",
    "Printer toner is ordered through the facilities desk on the second floor.",
]


def minimal_pdf(lines: list[str]) -> bytes:
    """A valid one-page PDF with a text layer, written by hand (no PDF library needed)."""
    text = " ".join(
        f"({line.replace(chr(92), '').replace('(', '').replace(')', '')}) Tj T*" for line in lines
    )
    stream = f"BT /F1 11 Tf 14 TL 50 780 Td {text} ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def make_pptx(path: Path) -> None:
    """Three slides; slide 2 holds the fact and speaker notes."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    layout = deck.slide_layouts[1]
    bodies = [
        ("Welcome", FILLER[0]),
        ("Migration plan", "The Falcon project moves to the Lisbon data centre in March."),
        ("Questions", FILLER[1]),
    ]
    for title, body in bodies:
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        if title == "Migration plan":
            slide.notes_slide.notes_text_frame.text = (
                "The budget approved for the move is 42,000 euros."
            )
            box = slide.shapes.add_textbox(Inches(1), Inches(6), Inches(4), Inches(1))
            box.text_frame.text = "Owner: infrastructure team"
    deck.save(str(path))


INVENTORY_ROW = ("Copper widget", "Oslo", 1375)
ITEMS = ["Steel bolt", "Brass hinge", "Oak plank", "Glass pane", "Rubber seal", "Iron nail"]
TOWNS = ["Bergen", "Turku", "Aarhus", "Malmö", "Tampere"]


def make_xlsx(path: Path) -> int:
    """Sheet "Inventory" of 40 rows (the fact row among them) and a sheet "Staff"; returns the
    spreadsheet row number of the fact row."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Inventory"
    sheet.append(["Item", "Warehouse", "Quantity"])
    fact_row = 0
    for i in range(40):
        if i == 23:
            sheet.append(list(INVENTORY_ROW))
            fact_row = sheet.max_row
        else:
            sheet.append([ITEMS[i % len(ITEMS)], TOWNS[i % len(TOWNS)], 100 + 7 * i])
    staff = book.create_sheet("Staff")
    staff.append(["Name", "Role"])
    staff.append(["Ingrid Berg", "Accountant"])
    book.save(str(path))
    return fact_row


def make_csv(path: Path) -> int:
    """30 cities; returns the line number of the fact row (header = 1)."""
    rows = [["City", "Country", "Population"]]
    for i in range(30):
        rows.append([f"{TOWNS[i % 5]} {i}", "Elsewhere", str(10000 + 313 * i)])
    rows.insert(18, ["Tromsø", "Norway", "77544"])
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return 18 + 1


def make_epub(path: Path) -> None:
    """An e-book of three chapters; "The Storm" holds the fact."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("hearth-test-book")
    book.set_title("The Lighthouse Keeper")
    book.set_language("en")
    chapters = []
    texts = [
        ("Arrival", FILLER[0]),
        ("The Storm", "During the storm of 1887 the keeper Elias rescued eleven fishermen."),
        ("Departure", FILLER[2]),
    ]
    for n, (title, text) in enumerate(texts, start=1):
        ch = epub.EpubHtml(title=title, file_name=f"chap_{n}.xhtml", lang="en")
        ch.content = f"<html><body><h1>{title}</h1><p>{text}</p></body></html>"
        book.add_item(ch)
        chapters.append(ch)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    epub.write_epub(str(path), book)


def mail(subject: str, body: str, sender: str = "Ana Silva <ana@example.org>") -> EmailMessage:
    """A plain-text message."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "team@example.org"
    msg["Subject"] = subject
    msg["Date"] = "Tue, 05 May 2026 09:30:00 +0000"
    msg.set_content(body)
    return msg


def make_eml(path: Path) -> None:
    """A message with a one-page PDF attachment; body and attachment hold different facts."""
    msg = mail(
        "Quarterly review",
        "Hi team,\n\nthe quarterly review meeting moves to Thursday in the Aurora room.\n",
    )
    pdf = minimal_pdf(["Invoice for the Pelican account.", "The invoice total is 9,870 dollars."])
    msg.add_attachment(pdf, maintype="application", subtype="pdf", filename="invoice.pdf")
    path.write_bytes(msg.as_bytes())


def make_mbox(path: Path) -> None:
    """Three messages; the second holds the fact."""
    import mailbox

    box = mailbox.mbox(str(path))
    box.add(mail("Parking", FILLER[1]))
    box.add(mail("Garden party", "The garden party starts at five at the old water mill."))
    box.add(mail("Toner", FILLER[2]))
    box.flush()
    box.close()


def make_odt(path: Path) -> None:
    """Two headed sections; "Safety rules" holds the fact."""
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    doc = OpenDocumentText()
    doc.text.addElement(H(outlinelevel=1, text="Site handbook"))
    doc.text.addElement(P(text=FILLER[0]))
    doc.text.addElement(H(outlinelevel=2, text="Safety rules"))
    doc.text.addElement(P(text="Hard hats must be worn in zone C at all times."))
    doc.save(str(path))


def make_rtf(path: Path) -> None:
    """RTF written by hand (RTF is a text format; striprtf only reads it)."""
    path.write_text(
        r"{\rtf1\ansi\deff0{\fonttbl{\f0 Times;}}\f0\fs24 "
        r"{\b Recipes}\par " + FILLER[1] + r"\par "
        r"The secret ingredient of the fish soup is smoked paprika.\par }",
        encoding="ascii",
    )


def make_json(path: Path) -> None:
    """Servers and an owner; the fact is the atlas server's region."""
    data = {
        "owner": {"team": "platform", "pager": "+47 555 0100"},
        "servers": [
            {"name": "atlas", "region": "eu-north-7", "role": "database"},
            {"name": "boreas", "region": "us-west-2", "role": "cache"},
        ],
    }
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def make_yaml(path: Path) -> None:
    """A configuration; the fact is the database port."""
    import yaml

    data = {
        "logging": {"level": "warning", "file": "/var/log/app.log"},
        "database": {"host": "pg.internal", "port": 5433, "name": "orders"},
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")


def make_code(path: Path) -> tuple[int, int]:
    """A Python module; returns the line range of the function holding the fact."""
    head = ['"""Order utilities."""', "", "import math", ""]
    filler = []
    for i in range(12):
        filler += [
            f"def helper_{i}(value):",
            f'    """Round value to {i} places."""',
            f"    return round(value, {i})",
            "",
        ]
    fact = [
        "def shipping_cost(weight_kg):",
        '    """Shipping costs 4 euros per kilogram plus a 7 euro handling fee."""',
        "    return 4 * math.ceil(weight_kg) + 7",
        "",
    ]
    lines = head + filler[:24] + fact + filler[24:]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    first = len(head) + 24 + 1
    return first, first + 2


MAKERS: dict[str, tuple[str, Callable[[Path], object]]] = {
    "pptx": ("deck.pptx", make_pptx),
    "xlsx": ("stock.xlsx", make_xlsx),
    "csv": ("cities.csv", make_csv),
    "epub": ("keeper.epub", make_epub),
    "eml": ("review.eml", make_eml),
    "mbox": ("club.mbox", make_mbox),
    "odt": ("handbook.odt", make_odt),
    "rtf": ("recipes.rtf", make_rtf),
    "json": ("servers.json", make_json),
    "yaml": ("config.yaml", make_yaml),
    "code": ("orders.py", make_code),
}


def make_all(folder: Path) -> dict[str, Path]:
    """One file of each kind in ``folder``: kind -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for kind, (name, maker) in MAKERS.items():
        maker(folder / name)
        out[kind] = folder / name
    return out
