"""Excel workbooks (.xlsx, .xlsm; openpyxl): each sheet's rows, chunked with the header repeated."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.encryption import office_package
from ingest.loaders.tables import cell_text, workbook_sections


@handles("xlsx", (".xlsx", ".xlsm"))
class XlsxLoader:
    """Worksheets read as stored values (formulas give their last computed result)."""

    file_type = "xlsx"
    library = "openpyxl"
    provenance = "sheet (name), rows a-b (the row numbers Excel shows)"

    def load(self, path: Path) -> list[Section]:
        """Sections of up to ten rows per sheet, each with the sheet's header row."""
        import openpyxl

        with office_package(path, ".xlsx", "Excel workbook") as package:
            try:
                book = openpyxl.load_workbook(str(package), read_only=True, data_only=True)
            except Exception as exc:
                raise LoaderError(f"{path.name}: not a readable Excel workbook ({exc})") from exc
            return self._sheets(path, book)

    def _sheets(self, path: Path, book: Any) -> list[Section]:
        """Every sheet's sections (read while the package is there); closes the book."""

        def rows(ws: Any) -> Iterator[tuple[int, list[str]]]:
            for number, cells in enumerate(ws.iter_rows(), start=1):
                yield (
                    number,
                    [cell_text(c.value, getattr(c, "number_format", "") or "") for c in cells],
                )

        sheets = ((ws.title, rows(ws)) for ws in book.worksheets)
        return workbook_sections(path.name, sheets, book.close)
