"""Plain text: decoded as UTF-8, or by detected encoding; binary content is refused.

A large file is read piece by piece (:meth:`TextLoader.stream`): memory stays bounded whatever
the file's size.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from core.errors import LoaderError
from core.text import STOP_AND_BLANK
from core.types import Section
from ingest.loaders.base import handles
from ingest.loaders.cues import speaker_turns
from ingest.loaders.detect import utf16_without_bom

_WESTERN = ("cp1252", "latin_1", "iso8859_15")
#: Characters of text handed on at a time by :func:`text_blocks`.
BLOCK_CHARS = 256 * 1024
#: Bytes read from disk at a time by :func:`stream_text`.
READ_BYTES = 1 << 20
#: Files up to this size are decoded whole (:func:`decode_text`, the encoding judged on all of
#: it); larger ones are decoded as they are read, the encoding judged on their first
#: ``SAMPLE_BYTES`` when they are not UTF-8.
WHOLE_BYTES = 8 * 1024 * 1024
SAMPLE_BYTES = 1 << 20
_SPACE = re.compile(r"\s")


def decode_text(path: Path, data: bytes) -> str:
    """Decode bytes of a text file; a clear ``LoaderError`` for binary or undecodable data."""
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = _utf16_or_refuse(path, data[:8192])
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
    return str(_best_match(path, data))


def _utf16_or_refuse(path: Path, head: bytes) -> str:
    encoding = utf16_without_bom(head)
    if encoding is None:
        raise LoaderError(f"{path.name}: looks like binary data (NUL bytes), not text")
    return encoding


def _best_match(path: Path, data: bytes) -> object:
    """charset-normalizer's reading of ``data`` (``str()`` of it is the text, ``.encoding`` its
    codec); short Western text is often guessed as a Central European code page, so Windows-1252
    is preferred when it reads as cleanly."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        raise LoaderError(f"{path.name}: text is not valid UTF-8 and its encoding is unknown")
    best = matches[0]
    for match in matches:
        if match.encoding in _WESTERN and match.chaos <= best.chaos + 0.02:
            return match
    return best


def _is_utf8(path: Path) -> bool:
    """True when the whole file decodes as UTF-8 (read a block at a time)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with path.open("rb") as fh:
            while block := fh.read(READ_BYTES):
                decoder.decode(block)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _encoding_of(path: Path, head: bytes) -> tuple[str, str]:
    """(codec, error handler) to stream a file larger than ``WHOLE_BYTES`` with: what
    :func:`decode_text` would choose, judged on the first ``SAMPLE_BYTES`` when the file is
    not UTF-8 (whose undecodable bytes then become U+FFFD)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16", "strict"
    if b"\x00" in head[:8192]:
        return _utf16_or_refuse(path, head[:8192]), "strict"
    if _is_utf8(path):
        return "utf-8-sig", "strict"
    match = _best_match(path, head)
    return str(match.encoding), "replace"  # type: ignore[attr-defined]


def _cut(buffer: str, size: int) -> int:
    """Where to end the next block of ``buffer`` (longer than ``size``): after its last blank
    line in the first ``size`` characters, else its last line end, sentence end, whitespace, or
    at ``size`` (text without spaces) -- in the block's second half, so blocks stay large."""
    half = size // 2
    for mark in ("\n\n", "\n"):
        at = buffer.rfind(mark, half, size)
        if at >= 0:
            return at + len(mark)
    for pattern in (STOP_AND_BLANK, _SPACE):
        last = None
        for last in pattern.finditer(buffer, size - size // 8, size):  # noqa: B007
            pass
        if last is not None:
            return last.end()
    return size


def text_blocks(pieces: Iterable[str], size: int = BLOCK_CHARS) -> Iterator[str]:
    """The text of ``pieces`` again, in blocks of at most ``size`` characters that end at a
    paragraph (else a line, a sentence, a word) boundary, so a block's paragraphs are the
    text's; at most about two blocks are held at a time."""
    buffer = ""
    for piece in pieces:
        buffer += piece
        while len(buffer) > size:
            at = _cut(buffer, size)
            yield buffer[:at]
            buffer = buffer[at:]
    if buffer:
        yield buffer


def stream_text(path: Path) -> Iterator[tuple[str, int]]:
    """The decoded text of ``path`` in pieces, each with the count of the file's bytes read so
    far. A file up to ``WHOLE_BYTES`` is decoded whole (:func:`decode_text`); a larger one as
    it is read. ``LoaderError`` for binary or undecodable content."""
    size = path.stat().st_size
    if size <= WHOLE_BYTES:  # in pieces all the same, so progress moves within the file
        text = decode_text(path, path.read_bytes())
        for start in range(0, len(text), BLOCK_CHARS):
            end = min(len(text), start + BLOCK_CHARS)
            yield text[start:end], size * end // len(text)
        return
    with path.open("rb") as fh:
        head = fh.read(SAMPLE_BYTES)
    encoding, errors = _encoding_of(path, head)
    decoder = codecs.getincrementaldecoder(encoding)(errors)
    done = 0
    with path.open("rb") as fh:
        try:
            while block := fh.read(READ_BYTES):
                done += len(block)
                yield decoder.decode(block), done
            yield decoder.decode(b"", final=True), done
        except UnicodeDecodeError as exc:
            raise LoaderError(
                f"{path.name}: not valid {encoding} text ({exc.reason} near byte "
                f"{done - len(block) + exc.start}); save it as UTF-8"
            ) from exc


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


@handles("text", (".txt", ".text", ".log"))
class TextLoader:
    """Plain text files; one section for the whole file."""

    file_type = "text"
    library = "built-in (encoding: charset-normalizer)"
    provenance = "none (whole file)"

    def load(self, path: Path) -> list[Section]:
        """The file's text as one section (a transcript's cues as turns: ``speaker_turns``)."""
        text = speaker_turns(decode_text(path, path.read_bytes()).strip())
        return [Section(text, {})] if text else []

    def stream(self, path: Path) -> Iterator[tuple[Section, int]]:
        """The file's one section in blocks of at most ``BLOCK_CHARS`` characters ending at
        paragraph boundaries where there are any (:func:`text_blocks`), each with the bytes
        read so far; nothing for a file of whitespace only. Memory stays bounded whatever the
        file's size (see :class:`~ingest.loaders.base.StreamingLoader`)."""
        read = [0]

        def pieces() -> Iterator[str]:
            for piece, done in stream_text(path):
                read[0] = done
                yield piece

        for block in text_blocks(pieces()):
            if block.strip():
                yield Section(speaker_turns(block), {}), read[0]
