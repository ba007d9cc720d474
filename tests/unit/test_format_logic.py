"""Pure logic of the new loaders: row sections, data-tree flattening, code blocks, labels."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from core.errors import LoaderError
from core.provenance import describe
from ingest.loaders.code import line_blocks
from ingest.loaders.mail import safe_name
from ingest.loaders.structured import tree_sections
from ingest.loaders.tables import cell_text, table_sections


def test_rows_are_cut_with_the_header_repeated() -> None:
    rows = [(1, ["Name", "Age"]), (2, []), *[(n, [f"p{n}", str(n)]) for n in range(3, 28)]]
    sections = table_sections("People", rows, max_rows=10)
    assert [s.provenance["rows"] for s in sections] == ["3-12", "13-22", "23-27"]
    assert all(s.text.split("\n")[1] == "Name | Age" for s in sections)
    assert all(s.provenance["sheet"] == "People" for s in sections)
    assert "Name: p17 | Age: 17" in sections[1].text  # every row with its headers


def test_a_single_row_and_empty_header_cells() -> None:
    sections = table_sections("S", [(1, ["id", ""]), (2, ["7", "x"])])
    assert sections[0].provenance == {"sheet": "S", "rows": "2"}
    assert "id | column 2" in sections[0].text


def test_cell_text() -> None:
    import datetime as dt

    assert cell_text(12.0) == "12" and cell_text(1.5) == "1.5" and cell_text(None) == ""
    # a formula's float shown as Excel shows it (15 significant digits): enron.xlsx
    assert cell_text(3.1470000000000002) == "3.147" and cell_text(2.9999999999999996) == "3"
    assert cell_text(dt.date(2026, 5, 1)) == "2026-05-01"
    assert cell_text("  a \n b ") == "a b"


def test_a_sheets_dates_are_written_as_it_shows_them(tmp_path: Path) -> None:
    """enron.xlsx's month column ("mmm-yy": "Jan-02") was "2002-01-01T00:00:00", which a
    question's "January 2002" matches in no way (held-out dev h171)."""
    import datetime as dt

    import openpyxl

    from ingest.loaders.xlsx import XlsxLoader

    assert cell_text(dt.datetime(2002, 1, 1), "mmm-yy") == "January 2002"
    assert cell_text(dt.datetime(2002, 1, 1), "[$-409]mmmm\\ yyyy;@") == "January 2002"
    assert cell_text(dt.datetime(2002, 1, 23), "mmmm\\ d\\,\\ yyyy") == "January 23, 2002"
    assert cell_text(dt.datetime(2002, 1, 23), "mm-dd-yy") == "2002-01-23"
    assert cell_text(dt.datetime(2002, 1, 23, 14, 30), "m/d/yy h:mm") == "2002-01-23 14:30"
    assert cell_text(dt.datetime(1899, 12, 30, 14, 30), "h:mm") == "14:30"
    assert cell_text(dt.datetime(2002, 1, 1)) == "2002-01-01"  # no format known: ISO, no time
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Month", "10-Day High"])
    for month, price in ((1, 3.464), (2, 2.71)):
        sheet.append([dt.datetime(2002, month, 1), price])
        sheet.cell(sheet.max_row, 1).number_format = "mmm-yy"
    book.save(tmp_path / "prices.xlsx")
    text = "\n".join(s.text for s in XlsxLoader().load(tmp_path / "prices.xlsx"))
    assert "Month: January 2002 | 10-Day High: 3.464" in text
    assert "T00:00" not in text


def test_trees_flatten_to_key_paths() -> None:
    sections = tree_sections("x.json", {"db": {"port": 5433, "hosts": ["a", "b"]}, "on": True})
    assert sections[0].provenance == {"key": "db"}
    assert sections[0].text.splitlines() == ["db.port: 5433", "db.hosts[0]: a", "db.hosts[1]: b"]
    assert sections[1].text == "on: True"
    listed = tree_sections("x.json", [{"n": 1}, {"n": 2}])
    assert [s.provenance["key"] for s in listed] == ["[0]", "[1]"]
    assert tree_sections("x.json", "just text")[0].text == "just text"


def test_self_referring_tree_is_refused() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(LoaderError, match=r"^x.yaml: nested more than"):
        tree_sections("x.yaml", {"a": loop})


def test_code_blocks_cover_every_line_once() -> None:
    lines = []
    for i in range(30):
        lines += [f"def f{i}():", f"    return {i} * {i} + something_long_enough_{i}", ""]
    blocks = line_blocks(lines)
    assert len(blocks) > 2
    assert blocks[0][0] == 1
    for (_, last, _), (first, _, _) in itertools.pairwise(blocks):
        assert first == last + 1
    assert all(block[0].startswith("def ") or not block[0].strip() for _, _, block in blocks)


def test_attachment_names_cannot_leave_their_folder() -> None:
    assert safe_name("../../etc/passwd", "x") == "passwd"
    assert safe_name("C:\\Users\\a\\report.pdf", "x") == "report.pdf"
    assert safe_name("..", "attachment-1.bin") == "attachment-1.bin"
    assert safe_name(None, "attachment-2.pdf") == "attachment-2.pdf"


@pytest.mark.parametrize(
    ("prov", "label"),
    [
        ({"slide": 3, "title": "Plan"}, "slide 3 (Plan)"),
        ({"sheet": "Sales", "rows": "4-9"}, "sheet Sales, rows 4-9"),
        ({"sheet": "Sales", "rows": "4"}, "sheet Sales, row 4"),
        ({"chapter": "The Storm", "heading": "The Storm"}, "chapter The Storm, section The Storm"),
        ({"message": "Hi", "index": 2, "from": "Ana"}, "message 2 “Hi” from Ana"),
        (
            {"message": "Hi", "attachment": "a.pdf", "page": 1},
            "attachment of message “Hi”, page 1",
        ),
        ({"key": "db"}, "key db"),
        ({"lines": "3-9", "language": "py"}, "lines 3-9"),
        ({}, ""),
    ],
)
def test_describe(prov: dict[str, object], label: str) -> None:
    assert describe(prov) == label
