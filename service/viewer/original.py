"""A document's file as it was ingested: found by its catalogue row, never by a request's path,
and checked against the size and sha256 the catalogue recorded; byte ranges for seeking."""

from __future__ import annotations

import mimetypes
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from core.db.models import Document
from core.errors import InvalidInputError, NotFoundError
from ingest.files import sha256_of
from service.viewer.errors import OriginalChangedError, OriginalGoneError

#: Content types by the catalogue's file type, where the extension may not say it.
TYPES = {
    "pdf": "application/pdf",
    "text": "text/plain; charset=utf-8",
    "markdown": "text/markdown; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
    "eml": "message/rfc822",
    "mbox": "application/mbox",
}
#: The longest slice one range response carries (a player asks again for the rest).
MAX_RANGE_BYTES = 8 * 1024 * 1024
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


@dataclass(frozen=True)
class Original:
    """A verified file: where it is, its size, content type and download name."""

    path: Path
    size: int
    media_type: str
    filename: str


def carrier_of(doc: Document) -> str | None:
    """The file carrying this document (an e-mail attachment's message), or None."""
    carrier, sep, _ = doc.path.partition("#attachment/")
    return carrier if sep else None


class Originals:
    """Checks a document's file before it is shown. A sha256 is computed once per (path, size,
    modification time): a file touched since is hashed again."""

    def __init__(self) -> None:
        self._verified: dict[tuple[str, int, int], str] = {}
        self._lock = threading.Lock()

    def check(self, doc: Document) -> Original:
        """The document's file, unchanged since ingest.

        Raises ``NotFoundError`` (an attachment, which has no file of its own),
        ``OriginalGoneError`` (410: deleted or not a file) or ``OriginalChangedError`` (409:
        size or sha256 differs); each names the file."""
        carrier = carrier_of(doc)
        name = Path(doc.path).name
        if carrier is not None:
            raise NotFoundError(
                f"{name} is an attachment carried inside {Path(carrier).name}; "
                "it has no file of its own",
                field="id",
            )
        path = Path(doc.path)
        try:
            st = path.stat()
        except OSError:
            st = None
        if st is None or not path.is_file():
            raise OriginalGoneError(
                f"{name}: the file is no longer at {doc.path} (deleted or moved since it was "
                "ingested)",
                field="id",
            )
        if st.st_size != doc.size_bytes:
            raise OriginalChangedError(
                f"{name}: the file changed since it was ingested ({st.st_size} bytes now, "
                f"{doc.size_bytes} then); ingest it again to see it",
                field="id",
            )
        key = (str(path), st.st_size, st.st_mtime_ns)
        with self._lock:
            sha = self._verified.get(key)
        if sha is None:
            try:
                sha = sha256_of(path)
            except OSError as exc:
                raise OriginalGoneError(f"{name}: the file cannot be read ({exc})") from exc
            with self._lock:
                if len(self._verified) > 4096:
                    self._verified.clear()
                self._verified[key] = sha
        if doc.sha256 and sha != doc.sha256:
            raise OriginalChangedError(
                f"{name}: the file changed since it was ingested (its sha256 differs); "
                "ingest it again to see it",
                field="id",
            )
        return Original(path, st.st_size, media_type(doc), safe_name(name))


def media_type(doc: Document) -> str:
    """The content type of a document's file."""
    if doc.file_type in TYPES:
        return TYPES[doc.file_type]
    guessed, _ = mimetypes.guess_type(Path(doc.path).name)
    return guessed or "application/octet-stream"


def safe_name(name: str) -> str:
    """A file name fit for a Content-Disposition header (ASCII, no quotes or controls)."""
    clean = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "_" for c in name)
    return clean or "document"


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The (start, end inclusive) of a ``Range: bytes=a-b`` header, clipped to
    ``MAX_RANGE_BYTES``; None for no header. ``InvalidInputError`` (field ``range``) for a
    malformed or unsatisfiable one (the caller answers 416)."""
    if not header:
        return None
    m = _RANGE.match(header.strip())
    if not m or not (m.group(1) or m.group(2)):
        raise InvalidInputError(f"range: {header[:60]!r} is not one byte range", field="range")
    first, last = m.group(1), m.group(2)
    if first:
        start = int(first)
        end = min(int(last), size - 1) if last else size - 1
    else:  # the last N bytes
        start, end = max(0, size - int(last)), size - 1
    if start >= size or end < start:
        raise InvalidInputError(
            f"range: {header[:60]!r} is outside the file's {size} bytes", field="range"
        )
    return start, min(end, start + MAX_RANGE_BYTES - 1)


def read_range(path: Path, start: int, end: int) -> bytes:
    """Bytes ``start``..``end`` (inclusive) of a file."""
    with path.open("rb") as fh:
        fh.seek(start)
        return fh.read(end - start + 1)
