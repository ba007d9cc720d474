"""CSV and TSV files (stdlib csv): rows chunked with the header repeated."""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from pathlib import Path

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.tables import cell_text, table_sections
from ingest.loaders.text import decode_text


def _dialect(path: Path, sample: str) -> type[csv.Dialect] | csv.Dialect:
    if path.suffix.lower() == ".tsv":
        return csv.excel_tab
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        return csv.excel


@handles("csv", (".csv", ".tsv"))
class CsvLoader:
    """Comma-, semicolon-, tab- or bar-separated tables; the file name stands as the sheet."""

    file_type = "csv"
    library = "csv (stdlib)"
    provenance = "sheet (file name), rows a-b (line numbers; the header is row 1)"

    def load(self, path: Path) -> list[Section]:
        """Sections of up to ten rows, each with the header."""
        text = decode_text(path, path.read_bytes())
        reader = csv.reader(text.splitlines(), _dialect(path, text[:20000]))
        csv.field_size_limit(min(sys.maxsize, 16 * 1024 * 1024))

        def rows() -> Iterator[tuple[int, list[str]]]:
            try:
                for number, row in enumerate(reader, start=1):
                    yield number, [cell_text(c) for c in row]
            except csv.Error as exc:
                raise LoaderError(
                    f"{path.name}: malformed CSV at row {reader.line_num} ({exc})"
                ) from exc

        return table_sections(path.name, rows())
