"""Plain text: decoded as UTF-8, or by detected encoding; binary content is refused."""

from __future__ import annotations

from pathlib import Path

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import register
from ingest.loaders.detect import utf16_without_bom

_WESTERN = ("cp1252", "latin_1", "iso8859_15")


def decode_text(path: Path, data: bytes) -> str:
    """Decode bytes of a text file; a clear ``LoaderError`` for binary or undecodable data."""
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = utf16_without_bom(data[:8192])
        if encoding is None:
            raise LoaderError(f"{path.name}: looks like binary data (NUL bytes), not text")
        try:
            return data.decode(encoding)
        except UnicodeDecodeError as exc:
            raise LoaderError(
                f"{path.name}: reads as UTF-16 without a byte-order mark, but is not valid "
                f"UTF-16 ({exc.reason} at byte {exc.start}); save it as UTF-8"
            ) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        raise LoaderError(f"{path.name}: text is not valid UTF-8 and its encoding is unknown")
    best = matches[0]
    # Short Western text is often guessed as a Central European code page; prefer Windows-1252
    # when it reads as cleanly.
    for match in matches:
        if match.encoding in _WESTERN and match.chaos <= best.chaos + 0.02:
            return str(match)
    return str(best)


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs separated by blank lines, stripped, empties dropped."""
    paras, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(line.rstrip())
        elif current:
            paras.append("\n".join(current))
            current = []
    if current:
        paras.append("\n".join(current))
    return paras


@register("text", (".txt", ".text", ".log"))
class TextLoader:
    """Plain text files; one section for the whole file."""

    file_type = "text"
    library = "built-in (encoding: charset-normalizer)"
    provenance = "none (whole file)"

    def load(self, path: Path) -> list[Section]:
        """The file's text as one section."""
        text = decode_text(path, path.read_bytes()).strip()
        return [Section(text, {})] if text else []
