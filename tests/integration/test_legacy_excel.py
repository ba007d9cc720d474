"""Excel 97-2003 workbooks (.xls) read with xlrd: found by content (an OLE2 compound file with a
``Workbook`` stream), each cell in its number format as an .xlsx cell is. ``data/Formate.xls`` is
xlrd's own test workbook (tests/samples, BSD licence: LICENSES.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.errors import LoaderError, UnsupportedTypeError
from ingest.loaders.base import detect_type, load_file, loader_for

pytestmark = pytest.mark.embedded_only(
    "the .xls loader is the subject; other tests write the catalogue and stores on this pass: "
    "one pass"
)

WORKBOOK = Path(__file__).parent / "data" / "Formate.xls"


def test_an_xls_workbook_is_read_sheet_by_sheet_in_its_formats(tmp_path: Path) -> None:
    assert detect_type(WORKBOOK) == "xls"
    sections = load_file(loader_for(WORKBOOK), WORKBOOK).sections
    by_sheet: dict[str, str] = {}
    for s in sections:
        by_sheet[s.provenance["sheet"]] = by_sheet.get(s.provenance["sheet"], "") + s.text
    assert set(by_sheet) == {"Formate", "Blätt1", "ÖÄÜ", "Blätt3"}
    first = by_sheet["Blätt1"]
    assert "1907-07-03" in first and "May 3, 1988" in first  # dates as the sheet shows them
    assert "gut" in first and "97.4%" in first  # a percent format
    assert "17:47:13" in first  # a time of day

    named = tmp_path / "budget.xlsx"  # an .xls saved under the newer name: read by content
    shutil.copy(WORKBOOK, named)
    assert detect_type(named) == "xls"


def test_other_legacy_office_files_are_refused_by_name(tmp_path: Path) -> None:
    doc = tmp_path / "letter.doc"  # a compound file without a workbook stream
    doc.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    with pytest.raises(UnsupportedTypeError, match=r"letter\.doc: .*legacy Microsoft Office"):
        detect_type(doc)


def test_a_damaged_xls_names_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.xls"
    data = WORKBOOK.read_bytes()
    broken.write_bytes(data[:4096])
    with pytest.raises((LoaderError, UnsupportedTypeError), match=r"broken\.xls"):
        load_file(loader_for(broken), broken)
