"""The rules of ingest/loaders/ocr_tables.py on OCR lines laid out by hand (the boxes of real
receipts: 060.jpg of SROIE, Roller's and Hornbach's from the held-out set)."""

from __future__ import annotations

from core.ocr import OcrFragment, OcrLine
from ingest.loaders.ocr_tables import tabulate


def line(*pieces: tuple[str, int, int], y: int) -> OcrLine:
    """A line of fragments ``(text, x0, x1)`` at height ``y`` (40 pixels tall)."""
    frags = tuple(OcrFragment(t, (x0, y, x1, y + 40)) for t, x0, x1 in pieces)
    box = (pieces[0][1], y, pieces[-1][2], y + 40)
    return OcrLine(" ".join(t for t, _, _ in pieces), box, 0.9, frags)


def texts(lines: list[OcrLine]) -> list[str]:
    return [ln.text for ln in tabulate(lines)]


def test_a_receipts_tax_table_gets_its_column_names() -> None:
    lines = [
        line(("Change", 437, 540), ("22.80", 640, 721), y=1262),
        line(("GST Analysis", 29, 201), ("Goods", 262, 347), ("Tax Amount", 379, 540), y=1310),
        line(("S = 6%", 56, 164), ("50.47", 267, 346), ("3.03", 474, 538), y=1353),
        line(("%O_= Z", 56, 164), ("23.70", 266, 346), ("0.00", 473, 538), y=1398),
        line(("BIG.COM.MY", 299, 464), y=1468),
    ]
    assert texts(lines) == [
        "Change 22.80",
        "GST Analysis | Goods | Tax Amount",
        "GST Analysis: S = 6% | Goods: 50.47 | Tax Amount: 3.03",
        "GST Analysis: %O_= Z | Goods: 23.70 | Tax Amount: 0.00",
        "BIG.COM.MY",  # half outside any column: not the row's second line
    ]
    joined = tabulate(lines)[2]
    assert joined.box == (56, 1353, 538, 1393) and len(joined.fragments) == 3


def test_an_item_name_under_its_code_joins_the_row_and_a_sum_does_not() -> None:
    lines = [
        line(("Pos Artikel-Nr.", 58, 330), ("Menge", 354, 471), ("€/Stk", 516, 631), y=970),
        line(("1 23530028 03", 58, 330), ("2,00", 372, 472), ("14,99", 519, 632), y=1022),
        line(("Duschvorhang", 97, 350), y=1073),
        line(("Summe", 97, 214), ("59,96", 519, 630), y=1120),
        line(("DE 33104.", 60, 226), y=1170),
    ]
    assert texts(lines) == [
        "Pos Artikel-Nr. | Menge | €/Stk",
        "Pos Artikel-Nr.: 1 23530028 03 Duschvorhang | Menge: 2,00 | €/Stk: 14,99",
        "Summe 59,96",
        "DE 33104.",
    ]


def test_a_label_under_a_column_of_numbers_is_no_second_value() -> None:
    lines = [
        line(("Item", 118, 160), ("Description", 201, 289), ("Price", 614, 731),
             ("Total", 833, 934), y=550),
        line(("1", 118, 135), ("Garden work", 200, 298), ("CHF 120.00", 615, 701),
             ("CHF 3'360.00", 833, 933), y=582),
        line(("2", 119, 135), ("Disposal", 201, 344), ("CHF 307.35", 615, 700),
             ("CHF 307.35", 846, 933), y=615),
        line(("sum", 614, 651), ("CHF 3'667.35", 834, 933), y=649),
        line(("VAT rate", 614, 682), y=680),
    ]  # fmt: skip
    out = texts(lines)
    assert out[:3] == [
        "Item | Description | Price | Total",
        "Item: 1 | Description: Garden work | Price: CHF 120.00 | Total: CHF 3'360.00",
        "Item: 2 | Description: Disposal | Price: CHF 307.35 | Total: CHF 307.35",
    ]
    assert out[3:] == ["sum CHF 3'667.35", "VAT rate"]


def test_rows_without_names_above_and_prose_stay_lines() -> None:
    prose = [
        line(("Dear Ms. Rutschmann, we are billing you as follows:", 20, 900), y=500),
        line(("Bill no. 3139", 20, 200), y=545),
        line(("ART/EAN 4002245701618", 66, 477), y=805),
        line(("2 Rolle x", 141, 365), ("4,85", 543, 634), ("9,70 1", 695, 826), y=848),
        line(("PARKETTZUBEHÖR", 64, 344), ("9,70 1", 695, 826), y=893),
    ]
    assert texts(prose) == [ln.text for ln in prose]
    # Names over one column only, or over too few of them, make no header.
    thin = [
        line(("Amount", 300, 400), y=100),
        line(("A", 20, 60), ("12", 300, 400), ("13", 500, 560), ("14", 700, 760), y=150),
    ]
    assert texts(thin) == ["Amount", "A 12 13 14"]
    assert tabulate([]) == []
