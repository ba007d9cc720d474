"""Sheets as annual reports write them (issue 35): title rows, a caption row above the column
names, two tables of two years stacked in one sheet, values under a merged year label."""

from __future__ import annotations

from pathlib import Path

import openpyxl

from ingest.loaders.tables import (
    cell_text,
    combined_header,
    data_like,
    shared_parts,
    spread_merged,
    table_sections,
)
from ingest.loaders.xlsx import XlsxLoader

# The layout of a half-year segment report: three title rows, then per year a caption row
# ("In millions of CHF" ... the period in the last column), the column names under an empty
# first cell, the rows of values, and footnotes at the end.
REPORT = [
    ["3. Analyses by segment"],
    ["3.1 Operating segments"],
    ["Revenue and results"],
    ["In millions of CHF", "", "", "", "January–June 2023"],
    ["", "Sales", "Trading operating profit", "", "Restructuring costs"],
    ["Zone North", "12553", "2632", "", "-44"],
    ["Zone South", "9467", "1373", "", "-140"],
    ["Total", "22020", "4005", "", "-184"],
    ["In millions of CHF", "", "", "", "January–June 2022"],
    ["", "Sales", "Trading operating profit", "", "Restructuring costs"],
    ["Zone North", "12138", "1829", "", "-41"],
    ["Zone South", "9283", "1494", "", "-14"],
    ["Total", "21421", "3323", "", "-55"],
    ["(a) Inter-segment sales are not significant."],
]


def _rows(rows: list[list[str]]) -> list[tuple[int, list[str]]]:
    return list(enumerate(rows, start=1))


def _row_of(texts: list[str], label: str, year: str) -> str:
    """The line of the row ``label`` in the table of ``year``."""
    found = [
        line
        for text in texts
        for line in text.split("\n")[2:]
        if f": {label} |" in line and year in line
    ]
    assert len(found) == 1, found
    return found[0]


def test_two_stacked_tables_each_with_its_year_and_column_names() -> None:
    texts = [s.text for s in table_sections("Segments", _rows(REPORT))]
    # before: the first title row was the header, so every value was "column 2: 12553"
    north_2022 = _row_of(texts, "Zone North", "2022")
    assert "Trading operating profit, January–June 2022: 1829" in north_2022
    assert "2023" not in north_2022
    south_2023 = _row_of(texts, "Zone South", "2023")
    assert "Restructuring costs, January–June 2023: -140" in south_2023
    assert all("column 2" not in t for t in texts)
    assert texts[0].split("\n")[0].startswith("Segments: 3. Analyses by segment")
    assert any("Inter-segment sales" in t for t in texts)  # the footnote is kept


def test_rows_keep_their_numbers_in_provenance() -> None:
    sections = table_sections("Segments", _rows(REPORT))
    spans = [s.provenance["rows"] for s in sections]
    assert spans[0].startswith("6") and any(s.startswith("11") for s in spans)


def test_group_labels_go_to_the_nearest_columns() -> None:
    header = combined_header(
        [
            ["In millions of CHF", "", "January–June 2023", "", "", "January–June 2022"],
            ["", "Goodwill", "Intangibles", "", "Goodwill", "Intangibles"],
        ]
    )
    assert header == [
        "In millions of CHF",
        "Goodwill, January–June 2023",
        "Intangibles, January–June 2023",
        "column 4",
        "Goodwill, January–June 2022",
        "Intangibles, January–June 2022",
    ]


def test_a_title_row_above_a_plain_table() -> None:
    rows = [["Stanley Cups"], ["Team", "Location", "Cups"], ["Blues", "STL", "1"]]
    text = table_sections("Sheet", _rows(rows))[0].text
    assert text.split("\n")[1] == "Team | Location | Cups"
    assert "Team: Blues | Location: STL | Cups: 1" in text


def test_text_only_tables_and_year_headers_stay_as_they_were() -> None:
    rows = [["Name", "Office"], *[[f"P{i}", "Leeds"] for i in range(9)]]
    text = table_sections("Staff", _rows(rows))[0].text
    assert text.split("\n")[1] == "Name | Office" and "Name: P8 | Office: Leeds" in text
    assert not data_like(["", "2023", "2022"]) and data_like(["Zone", "2023"])
    assert data_like(["A", "1,234.5"]) and data_like(["A", "(12)"]) and not data_like(["Q1 2026"])


def test_an_xlsx_with_a_merged_year_label(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Results"
    for row in REPORT[3:8]:
        sheet.append([float(c) if c.lstrip("-").isdigit() else (c or None) for c in row])
    sheet.merge_cells("A1:D1")
    path = tmp_path / "results.xlsx"
    book.save(path)
    texts = [s.text for s in XlsxLoader().load(path)]
    assert "Sales, January–June 2023: 12553" in _row_of(texts, "Zone North", "2023")


def test_a_one_cell_row_between_tables_titles_the_next_one() -> None:
    """Held-out batch 4 dev h424: a census sheet stacks one table per subject ("Lectura",
    "Matemática", "Historía-Geografía y Economía"), each under a one-cell title row and its own
    header rows; every table was titled "Lectura" and the next subject's title was written as a
    row of the table above ("Año: Matemática")."""
    header = ["", "Año", "Resultados", "", "Medida promedio", "Nivel de logro"]
    rows = [
        (3, ["Resultado nacional"]),
        (7, ["Lectura"]),
        (8, header),
        (10, ["", "2016", "DRE", "Arequipa", "601", "25.4 %"]),
        (11, ["", "2016", "DRE", "Cusco", "540", "12.0 %"]),
        (20, ["Matemática"]),
        (21, header),
        (22, ["", "2016", "DRE", "Arequipa", "596", "22.8 %"]),
        (30, ["Historía-Geografía y Economía"]),
        (31, ["", "2016", "DRE", "Arequipa", "543", "26.8 %"]),
    ]
    texts = [s.text for s in table_sections("NACIONAL", rows)]
    by_score = {
        t.split("Medida promedio: ")[1][:3]: t.split("\n")[0] for t in texts if "Arequipa" in t
    }
    assert by_score == {
        "601": "NACIONAL: Resultado nacional Lectura (rows 10-11)",
        "596": "NACIONAL: Resultado nacional Matemática (row 22)",
        "543": "NACIONAL: Resultado nacional Historía-Geografía y Economía (row 31)",
    }, texts
    assert not [t for t in texts if "Año: Matemática" in t]


def test_notes_written_over_a_table_title_it_and_are_no_header() -> None:
    """Held-out batch 5 dev h521 (readxl's deaths.xlsx): four rows of words scattered over the
    columns above "Name | Profession | ..." were read as three more header rows, every column
    named "Profession, the, merging"; they are the table's title, its columns their own."""
    rows = [
        (1, ["Lots of people"]),
        (2, ["simply cannot resist writing", "", "", "", "", "some notes"]),
        (3, ["at", "the", "top", "", "of", "their spreadsheets"]),
        (4, ["or", "merging", "", "", "", "cells"]),
        (5, ["Name", "Profession", "Age", "Has kids", "Date of birth", "Date of death"]),
        (6, ["David Bowie", "musician", "69", "True", "1947-01-08", "2016-01-10"]),
        (7, ["Carrie Fisher", "actor", "60", "True", "1956-10-21", "2016-12-27"]),
    ]
    [section] = table_sections("arts", rows)
    lines = section.text.splitlines()
    assert lines[0] == (
        "arts: Lots of people simply cannot resist writing some notes at the top of their "
        "spreadsheets or merging cells (rows 6-7)"
    )
    assert lines[1] == "Name | Profession | Age | Has kids | Date of birth | Date of death"
    assert "Name: Carrie Fisher | Profession: actor | Age: 60" in lines[3]


def test_a_cell_in_a_percent_format_reads_as_a_percentage(tmp_path: Path) -> None:
    """A sheet shows 0.027 in the format "0.0%" as "2.7%", and a question asks for "2.7%"."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Year", "Share"])
    sheet.append([2006, 0.027])
    sheet["B2"].number_format = "0.0%"
    path = tmp_path / "share.xlsx"
    book.save(path)
    text = XlsxLoader().load(path)[0].text
    assert "Year: 2006 | Share: 2.7%" in text, text


# ONS's overseas-travel workbook (held-out ott.xls, Table 1): a numbered title row, four header
# rows whose merged cells the .xls reader gives to every column they span, the year written on
# January's row only, numbers stored unrounded under "#,##0".
TRAVEL = [
    ["1", "Overseas residents' visits to the UK by month"],
    ["", "", "", "", "", "", "", "", "", "", "thousands"],
    ["", "", "All Visits", "All Visits", "All Visits", "Area of residence", "Area of residence",
     "Area of residence", "Area of residence", "Area of residence", "Area of residence"],
    ["", "", "", "", "", "North America", "", "of which", "of which", "of which",
     "Other countries"],
    ["", "", "", "", "", "", "", "European Union", "", "EU15", ""],
    ["", "", "NSA", "", "SA", "NSA", "", "NSA", "", "NSA", "NSA"],
    ["2015", "Apr", "3140", "", "3040", "250", "", "2360", "", "2040", "340"],
    ["", "May", "3560", "", "3120", "430", "", "2460", "", "2010", "470"],
]  # fmt: skip


def test_a_four_row_header_keeps_each_label_over_its_own_columns() -> None:
    lines = [ln for s in table_sections("Table 1", _rows(TRAVEL)) for ln in s.text.split("\n")]
    assert lines[0].startswith("Table 1: 1 Overseas residents' visits to the UK by month")
    may = next(line for line in lines if "May" in line)
    assert may.startswith("column 1: 2015 | column 2: May")  # the year carried down its rows
    assert "NSA, All Visits: 3560" in may and "SA, All Visits: 3120" in may
    assert "NSA, Area of residence, North America: 430" in may
    assert "NSA, Area of residence, of which, European Union: 2460" in may
    assert "NSA, Area of residence, of which, EU15: 2010" in may
    assert "NSA, Area of residence, Other countries: 470" in may  # not "EU15" beside it
    header = combined_header(TRAVEL[2:6])
    assert "European Union" not in header[2] and "North America" not in header[2]


def test_a_code_list_is_not_a_numbered_title() -> None:
    rows = [["Code", "Description"], ["01", "PRIVATE LTD COMPANY"], ["02", "PUBLIC LTD COMPANY"]]
    text = table_sections("Company Type", _rows(rows))[0].text
    assert "Code: 01 | Description: PRIVATE LTD COMPANY" in text


def test_a_number_reads_as_its_format_shows_it() -> None:
    assert cell_text(2245.592954550293, '_-* #,##0_-;\\-* #,##0_-;_-* "-"_-;_-@_-') == "2246"
    assert cell_text(2245.5929, "0.00") == "2245.59" and cell_text(2245.5929, "General") == (
        "2245.5929"
    )
    assert cell_text(3140.0, "#,##0") == "3140" and cell_text(0.59, "0%") == "59%"


def test_a_labels_footnote_mark_is_not_part_of_its_word() -> None:
    # ott.xls: "May¹" (estimate rounded) held no "May" for "in May 2015"
    assert [cell_text(v) for v in ("May¹", "Jan†", "Total*", "km²", "a * b")] == [
        "May",
        "Jan",
        "Total",
        "km²",
        "a * b",
    ]


def test_a_sum_row_under_a_group_is_not_given_the_groups_name() -> None:
    rows = [["Year", "Month", "Visits"], ["2015", "Apr", "3140"], ["", "May", "3560"]]
    rows.append(["", "Total", "6700"])
    text = "\n".join(s.text for s in table_sections("Visits", _rows(rows)))
    assert "Year: 2015 | Month: May | Visits: 3560" in text
    assert "Month: Total | Visits: 6700" in text and "Year: 2015 | Month: Total" not in text


# ONS's balance of payments Table A (held-out batch 8 dev h816): title rows, a units cell, the
# years on one row over the quarters on the next, then row labels on rows of their own
# ("Seasonally adjusted", "Current account", ...) before the first values, and again before the
# not seasonally adjusted rows.
BALANCES = [
    (1, ["A", "Summary of balance of payments"]),
    (2, ["", "Balances (net transactions)"]),
    (3, ["", "", "", "", "", "£ million"]),
    (4, ["", "", "", "2019", "2019", "2020"]),
    (5, ["", "", "", "", "Q4", "Q1"]),
    (7, ["", "Seasonally adjusted"]),
    (9, ["", "Current account"]),
    (10, ["", "Trade in goods and services"]),
    (11, ["", "Trade in goods", "BOKI", "-129457", "-15431", "-29315"]),
    (12, ["", "Trade in services", "IKBD", "105470", "23782", "28114"]),
    (15, ["", "Primary income"]),
    (16, ["", "Compensation of employees", "IJAJ", "-749", "-216", "-42"]),
    (31, ["", "Not seasonally adjusted"]),
    (33, ["", "Current account"]),
    (34, ["", "Trade in goods and services"]),
    (35, ["", "Trade in goods", "LQCT", "-129457", "-15188", "-30036"]),
]


def test_years_over_quarters_with_row_labels_between_header_and_values() -> None:
    """The two header rows were read as plain rows and the title row as the header ("A |
    Summary of balance of payments | column 3 ..."): no value was under its year and quarter,
    and "Seasonally adjusted" was a row, not the title of the rows below it."""
    texts = [s.text for s in table_sections("Table A", BALANCES)]
    goods = [t for t in texts if "Trade in goods |" in t]
    assert len(goods) == 2, texts
    seasonal, unadjusted = goods
    assert seasonal.splitlines()[0] == (
        "Table A: A Summary of balance of payments Balances (net transactions) £ million "
        "Seasonally adjusted Current account Trade in goods and services (rows 11-12)"
    )
    assert seasonal.splitlines()[1] == "column 1 | column 2 | column 3 | 2019 | Q4, 2019 | Q1, 2020"
    assert "Q1, 2020: -29315" in seasonal and "Q4, 2019: -15431" in seasonal
    assert "Not seasonally adjusted Current account Trade in goods" in unadjusted.splitlines()[0]
    assert "Q1, 2020: -30036" in unadjusted
    primary = next(t for t in texts if "Compensation of employees" in t)
    assert "Seasonally adjusted Current account Primary income" in primary.splitlines()[0]


def test_a_year_merged_over_its_quarter_columns_names_each_of_them(tmp_path: Path) -> None:
    """Held-out batch 9 dev h900/h905 (an INDEC GDP workbook): each year is merged over its five
    columns (the year, then quarters I-IV) above "Año | Trimestre" (merged over I-IV) and the
    quarter numerals. openpyxl's read-only mode reads no merges, so the nearest year was taken:
    2004's fourth quarter read as 2005's; and "Descripción | 2004 | 2005 | 2006" was a row of
    values, so no year named any column."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Producto Interno Bruto a precios de mercado"])
    sheet.append(["En miles de pesos a precios de 2004"])
    sheet.append([])
    sheet.append(["Descripción", None, 2004, None, None, None, None, None, 2005, None, None,
                  None, None, None, 2006])  # fmt: skip
    sheet.append([None, None, "Año", "Trimestre", None, None, None, None, "Año *", "Trimestre",
                  None, None, None, None, "Año *", "Trimestre"])  # fmt: skip
    sheet.append([None, None, None, "I", "II", "III", "IV", None, None, "I *", "II *", "III *",
                  "IV *", None, None, "I *"])  # fmt: skip
    sheet.append([])
    sheet.append(["B", "PESCA", 1468794.58, 1369410.26, 2174751.56, 1199623.08, 1131393.41, None,
                  1334982.77, 1308388.86, 2056219.85, 830238.21, 1145084.17, None, 2136858.59,
                  2099596.38])  # fmt: skip
    for merged in ("A1:B1", "A4:B6", "C4:G4", "I4:M4", "O4:S4", "C5:C6", "D5:G5", "I5:I6",
                   "J5:M5", "O5:O6", "P5:S5"):  # fmt: skip
        sheet.merge_cells(merged)
    path = tmp_path / "gdp.xlsx"
    book.save(path)
    [section] = XlsxLoader().load(path)
    lines = section.text.splitlines()
    assert lines[0].startswith(
        "Sheet: Producto Interno Bruto a precios de mercado En miles de pesos a precios de 2004"
    ), lines[0]
    row = lines[2]
    assert "Año, 2004: 1468794.58" in row and "IV, 2004, Trimestre: 1131393.41" in row, row
    assert "Año *, 2005: 1334982.77" in row and "I *, 2006, Trimestre: 2099596.38" in row, row


def test_a_merged_title_or_caption_names_no_column() -> None:
    rows = [
        (1, ["", "", "Segundo grado", "", ""]),  # a title merged over the table, alone
        (2, ["In millions", "", "", "Half year", ""]),  # a caption merged from the first column
        (3, ["", "Sales", "Profit", "Staff", "Sites"]),
        (4, ["North", "12", "3", "40", "2"]),
    ]
    merges = [(1, 1, 3, 5), (2, 2, 1, 3), (2, 2, 4, 5), (4, 4, 2, 3)]
    spread = dict(spread_merged(rows, merges))
    assert spread[1] == ["", "", "Segundo grado", "", ""]
    assert spread[2] == ["In millions", "", "", "Half year", "Half year"]
    assert spread[4] == ["North", "12", "3", "40", "2"]  # values are never spread


def test_a_run_of_years_is_a_header_a_row_of_dates_is_not() -> None:
    assert not data_like(["Descripción", "2004", "2005", "2006"])
    assert not data_like(["Year", "2000", "2005", "2010", "2015"])
    assert data_like(["Bach", "1685", "1750"])  # born, died
    assert data_like(["Bach", "1685", "1707", "1750"])  # not one step
    assert data_like(["Total", "2004", "2005", "120"])


def test_a_header_longer_than_a_section_is_left_out_of_it() -> None:
    """57 columns named "I *, 2005, Trimestre" and so on: the header line repeated over each
    section filled whole chunks with column names, and the row's values went to chunks without
    its label (held-out batch 9 dev h900). Each row line names its cells, so the line goes."""
    header = ["Descripción"] + [f"Q{q}, {y}, Trimestre" for y in range(2004, 2014) for q in (1, 2)]
    values = ["PESCA"] + [str(1000 + i) for i in range(20)]
    [section] = table_sections("VAB K", _rows([header, values]), max_chars=200)
    lines = section.text.splitlines()
    assert len(lines) == 2 and lines[1].startswith("Descripción: PESCA | Q1, 2004, Trimestre: 1000")
    [short] = table_sections("VAB K", _rows([header[:3], values[:3]]), max_chars=200)
    assert short.text.splitlines()[1] == "Descripción | Q1, 2004, Trimestre | Q2, 2004, Trimestre"


def test_parts_every_column_name_shares_are_said_once_in_the_title() -> None:
    """Held-out batch 9 (the ECB bond-yield CSV): 27 columns each named by its code, series,
    country and the same 150-character description; every cell of a row repeated it."""
    described = (
        "Long-term interest rate for convergence purposes - Unspecified rate type, "
        "Debt security issued, 10 years maturity"
    )
    countries = ["Belgium", "Germany", "Ireland", "Greece"]
    rows = [
        (1, ["Harmonised long-term interest rates"]),
        (2, ["Name:", *(f"IRS.M.{c[:2].upper()}" for c in countries)]),
        (3, ["Description:", *(f"{c}, {described}" for c in countries)]),
        (4, ["DATE", *(f"T01.01_r{i}" for i in range(1, 5))]),
        (5, ["JAN-2001", "5.16", "4.8", "5.03", "5.35"]),
        (6, ["FEB-2001", "5.02", "4.7", "4.9", "5.31"]),
    ]
    (section,) = table_sections("yields.csv", rows)
    title, *lines = section.text.splitlines()
    assert title.count(described) == 1 and described not in section.text[len(title) :]
    assert "Ireland" in lines[-1] and lines[-1].startswith("Description: Name: DATE: FEB-2001")
    assert "Ireland: 4.9" in lines[-1]


def test_a_shared_part_too_short_or_naming_a_column_alone_stays() -> None:
    names = ["Item", "Sales, 2023", "Profit, 2023", "Margin, 2023"]
    assert shared_parts(names) == (names, "")  # "2023" is short: each column keeps it
    long = "a long description every column of this table shares, word for word"
    names = ["Item", long, f"Profit, {long}", f"Margin, {long}"]
    assert shared_parts(names) == (names, "")  # the first column would be left nameless
