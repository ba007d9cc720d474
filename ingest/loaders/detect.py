"""What a file is, from its first bytes (and a zip's table of contents), whatever its name says.

``sniff`` never raises on odd content: it answers with a canonical extension (``.pdf``, ``.docx``,
``.png``...) when the content is a known format, a description for error messages, and whether
the content is binary. The registry (``base.py``) decides which loader reads it.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ingest.loaders.encryption import OLE_MAGIC, is_encrypted_ooxml

HEAD_BYTES = 8192
LEGACY_OFFICE = (
    "a legacy Microsoft Office (OLE2) file (.doc, .ppt or .msg); save it as .docx or .pptx"
)

# (prefix, canonical extension or None, description), checked in order.
_MAGIC: tuple[tuple[bytes, str | None, str], ...] = (
    (b"%PDF-", ".pdf", "a PDF document"),
    (b"{\\rtf", ".rtf", "an RTF document"),
    (OLE_MAGIC, None, LEGACY_OFFICE),
    (b"\x89PNG\r\n\x1a\n", ".png", "a PNG image"),
    (b"\xff\xd8\xff", ".jpg", "a JPEG image"),
    (b"GIF87a", ".gif", "a GIF image"),
    (b"GIF89a", ".gif", "a GIF image"),
    (b"II*\x00", ".tif", "a TIFF image"),
    (b"MM\x00*", ".tif", "a TIFF image"),
    (b"fLaC", ".flac", "FLAC audio"),
    (b"ID3", ".mp3", "MP3 audio"),
    (b"OggS", ".ogg", "Ogg audio"),
    (b"\x1a\x45\xdf\xa3", ".webm", "WebM (Matroska) media"),
    (b"\x1f\x8b", ".gz", "gzip-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", ".7z", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", ".rar", "a RAR archive"),
    (b"\x7fELF", None, "an executable program (ELF)"),
    (b"SQLite format 3\x00", None, "an SQLite database"),
)
#: A BMP's file header ("BM", size, reserved, pixel offset), then its DIB header's own size:
#: one of the sizes its versions have (BITMAPCOREHEADER 12 ... BITMAPV5HEADER 124), so text
#: starting "BM" is not taken for one.
_BMP_DIB_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})
_RIFF = {b"WAVE": (".wav", "WAV audio"), b"WEBP": (".webp", "a WebP image")}
_ODF = {
    "application/epub+zip": (".epub", "an EPUB e-book"),
    "application/vnd.oasis.opendocument.text": (".odt", "an OpenDocument text"),
    "application/vnd.oasis.opendocument.spreadsheet": (".ods", "an OpenDocument spreadsheet"),
    "application/vnd.oasis.opendocument.presentation": (".odp", "an OpenDocument presentation"),
}
_OOXML = (
    ("word/document.xml", ".docx", "a Word document"),
    ("ppt/presentation.xml", ".pptx", "a PowerPoint presentation"),
    ("xl/workbook.xml", ".xlsx", "an Excel workbook"),
)
#: A header line of a message ("Subject: ...").
HEADER_LINE = re.compile(rb"^[A-Za-z][A-Za-z0-9-]{0,60}:[ \t]")
_MAIL_HEADERS = (b"from:", b"subject:", b"received:", b"message-id:", b"mime-version:", b"to:")
_HTML = re.compile(rb"^\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*<(!doctype\s+html|html)\b", re.I | re.S)

# Every extension ``sniff`` can answer for binary content: an extension mapping to one of these
# kinds claims a binary format, so text content behind it is a lie worth correcting.
BINARY_EXTENSIONS = frozenset(
    [ext for _, ext, _ in _MAGIC if ext and ext != ".rtf"]
    + [ext for ext, _ in _RIFF.values()]
    + [ext for ext, _ in _ODF.values()]
    + [ext for _, ext, _ in _OOXML]
    + [".zip", ".m4a", ".mp4", ".bmp"]
)


@dataclass(frozen=True)
class Sniffed:
    """What the content is: a canonical extension (None if unknown), a description, and whether
    it is binary. ``strong`` marks text formats with a signature of their own (RTF)."""

    extension: str | None
    description: str
    binary: bool
    strong: bool = False
    #: An encrypted Office Open XML package (an OLE compound file; ``encryption.py``).
    encrypted: bool = False


def _sniff_zip(path: Path) -> Sniffed:
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if "mimetype" in names:
                mime = zf.read("mimetype")[:200].decode("ascii", "replace").strip()
                if mime in _ODF:
                    return Sniffed(*_ODF[mime], binary=True)
            if "[Content_Types].xml" in names:
                for member, ext, desc in _OOXML:
                    if member in names:
                        return Sniffed(ext, desc, binary=True)
                return Sniffed(None, "an Office Open XML package of unknown kind", binary=True)
    except (zipfile.BadZipFile, OSError, RuntimeError, ValueError) as exc:
        return Sniffed(None, f"a damaged zip archive ({exc})", binary=True)
    return Sniffed(".zip", "a zip archive", binary=True)


#: Lines of a text file read for a message's header block.
MAIL_HEADER_LINES = 60


def _mail_headers(lines: list[bytes]) -> bool:
    """Whether ``lines`` open with a message's header block: header lines (folded ones
    indented) up to the first blank line, two of them a mail header (From, Subject, ...); or,
    when some continuation lines lost their indentation (a message copied out of a web
    archive: php-mime-mail-parser's issue84, held-out batch 9), a block that opens with a header
    line, is at least half header lines and holds three distinct mail headers."""
    headers: list[bytes] = []
    stray = 0
    for line in lines:
        if not line.strip():
            break
        if HEADER_LINE.match(line):
            headers.append(line.split(b":", 1)[0].lower() + b":")
        elif not line[:1].isspace():  # not an indented folded line
            if not headers:
                return False
            stray += 1
    mail = [h for h in headers if h in _MAIL_HEADERS]
    if not stray:
        return len(headers) >= 2 and len(mail) >= 2
    return len(set(mail)) >= 3 and len(headers) >= stray


def _sniff_text(head: bytes) -> Sniffed:
    """Text formats worth recognising when the name gives no (or a wrong) answer."""
    body = head.lstrip(b"\xef\xbb\xbf")
    if body.startswith(b"From ") and b"\n" in body:
        return Sniffed(".mbox", "a mailbox (mbox)", binary=False)
    if _mail_headers(body.splitlines()[:MAIL_HEADER_LINES]):
        return Sniffed(".eml", "an e-mail message", binary=False)
    if _HTML.match(body):
        return Sniffed(".html", "an HTML page", binary=False)
    return Sniffed(None, "plain text", binary=False)


NUL_TEXT = (
    "text with NUL bytes in it (a mix of encodings, such as UTF-16 inside UTF-8 text, or text "
    "with binary data); save it as UTF-8 text"
)
_PRINTABLE = frozenset(range(0x20, 0x7F)) | {0x09, 0x0A, 0x0D}


def utf16_without_bom(head: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` when the bytes read as mostly-ASCII UTF-16 with no
    byte-order mark (a NUL in nearly every other byte, on one side only); else None."""
    n = len(head) - len(head) % 2
    if n < 16:
        return None
    even, odd = head[0:n:2], head[1:n:2]
    half = n // 2
    even_nul, odd_nul = even.count(0) / half, odd.count(0) / half
    if odd_nul >= 0.9 and even_nul <= 0.05:
        return "utf-16-le"
    if even_nul >= 0.9 and odd_nul <= 0.05:
        return "utf-16-be"
    return None


def _mostly_text(head: bytes) -> bool:
    """Most non-NUL bytes are printable ASCII or UTF-8 (text with a few NULs, not a binary)."""
    rest = head.replace(b"\x00", b"")
    if not rest:
        return False
    plain = sum(b in _PRINTABLE or b >= 0xC2 for b in rest)
    return plain / len(rest) >= 0.9


def sniff_bytes(head: bytes) -> Sniffed | None:
    """Signature checks on the first bytes alone (no zip listing); None for zip content."""
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return None
    for prefix, ext, desc in _MAGIC:
        if head.startswith(prefix):
            return Sniffed(ext, desc, binary=ext != ".rtf", strong=ext == ".rtf")
    if head.startswith(b"BM") and int.from_bytes(head[14:18], "little") in _BMP_DIB_SIZES:
        return Sniffed(".bmp", "a BMP image", binary=True)
    if head.startswith(b"RIFF") and head[8:12] in _RIFF:
        return Sniffed(*_RIFF[head[8:12]], binary=True)
    if head[4:8] == b"ftyp":
        m4a = head[8:12] in (b"M4A ", b"M4B ")
        return Sniffed(".m4a" if m4a else ".mp4", "M4A audio" if m4a else "MP4 video", binary=True)
    if _mpeg_audio(head):
        return Sniffed(".mp3", "MP3 audio", binary=True)
    utf16 = head.startswith((b"\xff\xfe", b"\xfe\xff"))
    if b"\x00" in head and not utf16:
        if utf16_without_bom(head):
            return Sniffed(None, "UTF-16 text without a byte-order mark", binary=False)
        if _mostly_text(head):
            return Sniffed(None, NUL_TEXT, binary=True)
        return Sniffed(None, "binary data of an unknown kind", binary=True)
    if utf16:
        return Sniffed(None, "UTF-16 text", binary=False)
    return _sniff_text(head)


# MPEG audio frame header fields (ISO 11172-3 2.4.2.3, ISO 13818-3): kbit/s by bitrate index for
# MPEG-1 layers I-III and MPEG-2/2.5 layers I and II/III; sample rates in Hz by version bits.
_BITRATES = {
    (3, 3): (0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (3, 2): (0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (3, 1): (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (2, 3): (0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (2, 2): (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}


def _frame_bytes(head: bytes, at: int) -> int:
    """The length of the MPEG audio frame whose header starts at ``at``; 0 when none does."""
    if at + 4 > len(head) or head[at] != 0xFF or head[at + 1] & 0xE0 != 0xE0:
        return 0
    version, layer = (head[at + 1] >> 3) & 3, (head[at + 1] >> 1) & 3
    rate_index, sample_index = head[at + 2] >> 4, (head[at + 2] >> 2) & 3
    if version == 1 or layer == 0 or rate_index in (0, 15) or sample_index == 3:
        return 0
    table = (3 if version == 3 else 2, layer if version == 3 or layer == 3 else 2)
    kbps, rate = _BITRATES[table][rate_index], _RATES[version][sample_index]
    padding = (head[at + 2] >> 1) & 1
    if layer == 3:  # layer I: 4-byte slots
        return (12 * kbps * 1000 // rate + padding) * 4
    per_frame = 144 if version == 3 or layer == 2 else 72  # layer III of MPEG-2/2.5: 576 samples
    return per_frame * kbps * 1000 // rate + padding


def _mpeg_audio(head: bytes) -> bool:
    """MP3 (MPEG audio) with no ID3 tag: a valid frame header, and another where it ends."""
    size = _frame_bytes(head, 0)
    return size > 0 and _frame_bytes(head, size) > 0


def _sniff_ole(path: Path) -> Sniffed:
    """An OLE2 compound file: an encrypted OOXML package, an Excel 97-2003 workbook (a
    ``Workbook`` or ``Book`` stream), or another legacy Office file."""
    import olefile

    if is_encrypted_ooxml(path):
        return Sniffed(None, "an encrypted Office document", binary=True, encrypted=True)
    try:
        with olefile.OleFileIO(str(path)) as ole:
            if ole.exists("Workbook") or ole.exists("Book"):
                return Sniffed(".xls", "an Excel 97-2003 workbook", binary=True)
    except (OSError, ValueError, TypeError, IndexError):  # a damaged compound file
        pass
    return Sniffed(None, LEGACY_OFFICE, binary=True)


def sniff(path: Path) -> Sniffed:
    """What ``path``'s content is; reads at most a few KiB (and a zip's or a compound file's
    directory)."""
    with path.open("rb") as fh:
        head = fh.read(HEAD_BYTES)
    if head.startswith(OLE_MAGIC):
        return _sniff_ole(path)
    found = sniff_bytes(head)
    if found is not None and found.extension == ".mp4" and path.suffix.lower() == ".m4a":
        # an MP4 container named as audio: ffmpeg's and PyAV's mp4 muxer (and many phones)
        # write .m4a files with the brand "isom" or "mp42", not "M4A ": the name chooses
        return Sniffed(".m4a", "M4A audio", binary=True)
    return found if found is not None else _sniff_zip(path)
