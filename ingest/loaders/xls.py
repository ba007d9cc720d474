"""Legacy Excel workbooks (.xls, BIFF 2-8; xlrd): each sheet's rows, read as the .xlsx ones are."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.tables import cell_text, spread_merged, workbook_sections


@handles("xls", (".xls",))
class XlsLoader:
    """Worksheets of an Excel 97-2003 workbook as stored values (a formula's last result), each
    cell formatted by its number format as ``XlsxLoader`` formats it."""

    file_type = "xls"
    library = "xlrd"
    provenance = "sheet (name), rows a-b (the row numbers Excel shows)"

    def load(self, path: Path) -> list[Section]:
        """Sections of up to ten rows per sheet, each with the sheet's header row.

        Raises ``LoaderError`` naming the file for a damaged or encrypted workbook."""
        import xlrd

        try:
            book = xlrd.open_workbook(str(path), formatting_info=True, on_demand=True)
        except Exception as exc:  # xlrd raises XLRDError, CompDocError, struct and index errors
            why = "encrypted: needs a password" if "encrypted" in str(exc).lower() else str(exc)
            what = "not a readable Excel 97-2003 workbook"
            raise LoaderError(f"{path.name}: {what} ({why})") from exc

        def sheets() -> Iterator[tuple[str, Iterator[tuple[int, list[str]]]]]:
            for index in range(book.nsheets):
                sheet = book.sheet_by_index(index)
                yield sheet.name, _rows(book, sheet)

        return workbook_sections(path.name, sheets(), book.release_resources)


def _rows(book: Any, sheet: Any) -> Iterator[tuple[int, list[str]]]:
    """(row number as Excel shows it, cell texts) for every row of ``sheet``, merged cells
    spread as ``spread_merged`` does."""
    merges = [(rlo + 1, rhi, clo + 1, chi) for rlo, rhi, clo, chi in sheet.merged_cells]
    rows = (
        (r + 1, [_cell(book, sheet.cell(r, c)) for c in range(sheet.row_len(r))])
        for r in range(sheet.nrows)
    )
    return spread_merged(rows, merges)


def _cell(book: Any, cell: Any) -> str:
    """One cell's text: a number in its number format, a date as a date, a boolean as
    True/False (as an .xlsx one), an error cell empty."""
    import xlrd

    kind, value = cell.ctype, cell.value
    if kind in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK, xlrd.XL_CELL_ERROR):
        return ""
    if kind == xlrd.XL_CELL_BOOLEAN:
        return cell_text(bool(value))
    number_format = _number_format(book, cell.xf_index)
    if kind == xlrd.XL_CELL_DATE:
        try:
            return cell_text(xlrd.xldate.xldate_as_datetime(value, book.datemode), number_format)
        except (ValueError, OverflowError, xlrd.xldate.XLDateError):
            return cell_text(value)
    return cell_text(value, number_format)


def _number_format(book: Any, xf_index: int | None) -> str:
    if xf_index is None or xf_index >= len(book.xf_list):
        return ""
    fmt = book.format_map.get(book.xf_list[xf_index].format_key)
    return str(fmt.format_str) if fmt is not None else ""
