"""Excel workbooks (.xlsx, .xlsm; openpyxl): each sheet's rows, chunked with the header repeated."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from openpyxl.xml.constants import SHEET_MAIN_NS

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.encryption import office_package
from ingest.loaders.tables import Merge, cell_text, spread_merged, workbook_sections


@handles("xlsx", (".xlsx", ".xlsm"))
class XlsxLoader:
    """Worksheets read as stored values (formulas give their last computed result)."""

    file_type = "xlsx"
    library = "openpyxl"
    provenance = "sheet (name), rows a-b (the row numbers Excel shows)"

    def load(self, path: Path) -> list[Section]:
        """Sections of up to ten rows per sheet, each with the sheet's header row."""
        import openpyxl

        with (
            office_package(path, ".xlsx", "Excel workbook") as package,
            package.open("rb") as handle,  # a file object: openpyxl refuses a path by its suffix
        ):  # (a workbook named "prices.xls" that is an .xlsx, as content detection reads it)
            try:
                book = openpyxl.load_workbook(handle, read_only=True, data_only=True)
            except Exception as exc:
                raise LoaderError(f"{path.name}: not a readable Excel workbook ({exc})") from exc
            return self._sheets(path, package, book)

    def _sheets(self, path: Path, package: Path, book: Any) -> list[Section]:
        """Every sheet's sections (read while the package is there); closes the book."""

        def rows(ws: Any) -> Iterator[tuple[int, list[str]]]:
            texts = (
                (number, [cell_text(c.value, getattr(c, "number_format", "") or "") for c in cells])
                for number, cells in enumerate(ws.iter_rows(), start=1)
            )
            return spread_merged(texts, merged_ranges(package, getattr(ws, "_worksheet_path", "")))

        sheets = ((ws.title, rows(ws)) for ws in book.worksheets)
        return workbook_sections(path.name, sheets, book.close)


#: The elements of a worksheet part read for its merged ranges.
_MERGE = f"{{{SHEET_MAIN_NS}}}mergeCell"
_ROW = f"{{{SHEET_MAIN_NS}}}row"


def merged_ranges(package: Path, member: str) -> list[Merge]:
    """The merged ranges of the worksheet part ``member`` ("xl/worksheets/sheet1.xml") of the
    .xlsx ``package``, as (first row, last row, first column, last column) from 1, inclusive:
    openpyxl's read-only mode (kept for large sheets) does not read them. One streaming pass
    over the part, rows dropped as they are read; [] when the part is not named."""
    from lxml import etree
    from openpyxl.utils import range_boundaries

    if not member:
        return []
    found: list[Merge] = []
    with zipfile.ZipFile(package) as archive, archive.open(member.lstrip("/")) as part:
        for _, element in etree.iterparse(
            part, events=("end",), resolve_entities=False, no_network=True
        ):
            if element.tag == _MERGE and (ref := element.get("ref")):
                left, top, right, bottom = range_boundaries(ref)
                if None not in (left, top, right, bottom):
                    found.append((top, bottom, left, right))
            if element.tag in (_ROW, _MERGE):
                element.clear()
                while element.getprevious() is not None:
                    del element.getparent()[0]
    return found
