"""Type detection by content: a file whose extension lies is read as what it is, or refused
with a reason that names the file and what its content is."""

from __future__ import annotations

import gzip
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from core.errors import UnsupportedTypeError
from ingest.loaders.base import detect_type, file_type_of, loader_for, supported_types
from ingest.loaders.detect import sniff, sniff_bytes
from ingest.loaders.mail import refold_headers
from samples.formats import mail, minimal_pdf


def ooxml(path: Path, part: str) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr(part, "<x/>")
    return path


def odf_zip(path: Path, mime: str) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", mime, compress_type=zipfile.ZIP_STORED)
        zf.writestr("content.xml", "<x/>")
    return path


@pytest.mark.parametrize(
    ("head", "ext", "binary"),
    [
        (b"%PDF-1.7\n", ".pdf", True),
        (b"{\\rtf1\\ansi hello}", ".rtf", False),
        (b"\x89PNG\r\n\x1a\n\x00\x00", ".png", True),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", ".jpg", True),
        (b"fLaC\x00\x00\x00\x22", ".flac", True),
        (b"RIFF\x24\x00\x00\x00WAVEfmt ", ".wav", True),
        (b"\x00\x00\x00\x20ftypM4A \x00", ".m4a", True),
        (b"From alice@example.org Tue May  5 09:30:00 2026\nSubject: x\n\nhi\n", ".mbox", False),
        (b"From: a@example.org\nTo: b@example.org\nSubject: hi\n\nbody\n", ".eml", False),
        (b"<!DOCTYPE html><html><body>x</body></html>", ".html", False),
        (b"just some words\nand more\n", None, False),
    ],
)
def test_sniff_bytes_knows_signatures(head: bytes, ext: str | None, binary: bool) -> None:
    found = sniff_bytes(head)
    assert found is not None
    assert (found.extension, found.binary) == (ext, binary)


def test_sniff_reads_zip_contents(tmp_path: Path) -> None:
    assert sniff(ooxml(tmp_path / "a.zip", "word/document.xml")).extension == ".docx"
    assert sniff(ooxml(tmp_path / "b.zip", "ppt/presentation.xml")).extension == ".pptx"
    assert sniff(ooxml(tmp_path / "c.zip", "xl/workbook.xml")).extension == ".xlsx"
    epub = odf_zip(tmp_path / "d.zip", "application/epub+zip")
    assert sniff(epub).extension == ".epub"
    odt = odf_zip(tmp_path / "e.zip", "application/vnd.oasis.opendocument.text")
    assert sniff(odt).extension == ".odt"
    with zipfile.ZipFile(tmp_path / "f.zip", "w") as zf:
        zf.writestr("notes.txt", "hi")
    assert sniff(tmp_path / "f.zip").description == "a zip archive"
    (tmp_path / "g.zip").write_bytes(b"PK\x03\x04 broken")
    assert "damaged zip" in sniff(tmp_path / "g.zip").description


def test_a_pdf_named_txt_is_read_as_pdf(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(minimal_pdf(["hello"]))
    assert file_type_of(path) == "text"
    assert detect_type(path) == "pdf"
    assert loader_for(path).file_type == "pdf"


def test_a_word_file_named_pdf_is_read_as_docx(tmp_path: Path) -> None:
    assert detect_type(ooxml(tmp_path / "report.pdf", "word/document.xml")) == "docx"


def test_text_behind_a_binary_extension_is_read_as_text(tmp_path: Path) -> None:
    plain = tmp_path / "minutes.docx"
    plain.write_text("Minutes of the meeting.\nAll agreed.\n")
    assert detect_type(plain) == "text"
    page = tmp_path / "page.pdf"
    page.write_text("<!doctype html><html><body><p>hi</p></body></html>")
    assert detect_type(page) == "html"


def test_text_extensions_win_over_weak_text_signatures(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_bytes(mail("Subject", "body").as_bytes())
    assert detect_type(note) == "markdown"
    rtf = tmp_path / "letter.txt"
    rtf.write_text("{\\rtf1\\ansi Dear reader\\par }")
    assert detect_type(rtf) == "rtf"  # RTF has a signature of its own


def test_mail_without_extension_is_recognised(tmp_path: Path) -> None:
    path = tmp_path / "saved-message"
    path.write_bytes(mail("Lunch", "Noon at the canteen.").as_bytes())
    assert detect_type(path) == "eml"


# A list message as a web archive keeps it (php-mime-mail-parser's issue84, held-out batch 9):
# no extension, and continuation lines of the headers without their indentation.
UNINDENTED = b"""Newsgroups: php.internals
Received: (qmail 5683 invoked from network); 19 Nov 2014 08:46:08 -0000
Received: from unknown (HELO lists.php.net) (127.0.0.1)
by localhost with SMTP; 19 Nov 2014 08:46:08 -0000
DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;
d=gmail.com; s 120113;
bh=SHTwGXVyRiFBp5eDUjF1KB2BJg+oR63Ux0JBjjsLwms=;
MIME-Version: 1.0
Date: Wed, 19 Nov 2014 09:46:01 +0100
To: Levi Morrison <levim@php.net>
Content-Type: text/plain; charset=UTF-8
Subject: Re: [PHP-DEV] [RFC] Remove PHP 4 Constructors
From: tyra3l@gmail.com (Ferenc Kovacs)

+1 from me.
"""


def test_a_message_whose_folded_header_lines_lost_their_indentation(tmp_path: Path) -> None:
    """It was refused as plain text of no known kind, and read as a message its first
    unindented line ended the headers: Subject and From came out as body text."""
    path = tmp_path / "issue84"
    path.write_bytes(UNINDENTED)
    assert detect_type(path) == "eml"
    [section] = loader_for(path).load(path)
    assert section.text.startswith("From: tyra3l@gmail.com\nTo: Levi Morrison <levim@php.net>")
    assert "Subject: Re: [PHP-DEV] [RFC] Remove PHP 4 Constructors" in section.text
    assert section.text.rstrip().endswith("+1 from me.")
    # a header whose name is no word and one with no value are headers, not stray lines
    mail = b"Return-Path: <a@example.com>\norg.apache.james.rspamd.flag: NO\nX-Spam-Level:\n"
    assert refold_headers(mail + b"Subject: hi\n\nbody\n") == mail + b"Subject: hi\n\nbody\n"
    note = tmp_path / "note"  # a note that quotes a header is no message
    note.write_bytes(b"Subject: lunch\nwe could meet at noon\nor later\nFrom: Ann\n")
    assert sniff(note).extension is None


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "legacy Microsoft Office"),
        ("report.pdf", gzip.compress(b"hello", mtime=0), "gzip-compressed data, not the .pdf file"),
        ("data.txt", b"\x00\x01\x02\x03binary\x00", "binary data of an unknown kind"),
        ("archive.docx", None, "a zip archive, not the .docx file"),
        ("notes.weird", b"plain words", "unsupported file type .weird"),
    ],
)
def test_unreadable_content_is_refused_with_the_reason(
    tmp_path: Path, name: str, content: bytes | None, reason: str
) -> None:
    path = tmp_path / name
    if content is None:
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("a.txt", "x")
    else:
        path.write_bytes(content)
    with pytest.raises(UnsupportedTypeError) as err:
        detect_type(path)
    assert err.value.message.startswith(f"{name}: ")
    assert reason in err.value.message


def test_known_names_without_extension(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("all:\n\techo hi\n")
    assert detect_type(tmp_path / "Makefile") == "code"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("The dome is green.\n".encode("utf-16-le"), "utf-16-le"),
        ("The dome is green.\n".encode("utf-16-be"), "utf-16-be"),
        (b"words\x00 and \x00more words here", None),  # NULs, but not every other byte
        (b"short\x00", None),
    ],
)
def test_utf16_without_bom_is_recognised(data: bytes, encoding: str | None) -> None:
    from ingest.loaders.detect import utf16_without_bom

    assert utf16_without_bom(data) == encoding
    found = sniff_bytes(data)
    assert found is not None and found.binary == (encoding is None)


def test_text_with_nul_bytes_is_told_apart_from_binary() -> None:
    from ingest.loaders.detect import NUL_TEXT

    text = sniff_bytes(b"Some words of text\x00\x00 and then more words\x00 in the file.\n")
    assert text is not None and text.description == NUL_TEXT
    blob = sniff_bytes(bytes(range(256)) * 4)
    assert blob is not None and blob.description == "binary data of an unknown kind"


def test_zip_guard_refuses_bombs_by_directory(tmp_path: Path) -> None:
    from core.errors import LoaderError
    from ingest.loaders.archive import check_zip

    bomb = tmp_path / "bomb.docx"
    with (
        zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf,
        zf.open("word/media/zeros.bin", "w") as fh,
    ):
        for _ in range(20):
            fh.write(bytes(1 << 20))
    with pytest.raises(
        LoaderError, match=r"bomb.docx: looks like a zip bomb: .* expands to 20 MiB"
    ):
        check_zip(bomb, ".docx")
    fine = tmp_path / "fine.docx"
    with zipfile.ZipFile(fine, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("word/document.xml", b"<w:document/>" * 1000)
    check_zip(fine, ".docx")  # a tightly packed but small member is fine


def _mpeg_frames(header: bytes, size: int, count: int) -> bytes:
    return (header + b"\x00" * (size - len(header))) * count


@pytest.mark.parametrize(
    ("header", "size"),
    [
        (b"\xff\xfb\x90\xc4", 417),  # MPEG-1 layer III, 128 kbit/s, 44.1 kHz (no padding)
        (b"\xff\xf3\x88\xc4", 288),  # MPEG-2 layer III, 64 kbit/s, 16 kHz (72 x 64000 / 16000)
    ],
)
def test_mp3_without_an_id3_tag_is_found_by_its_frames(header: bytes, size: int) -> None:
    # sample_audio_1.mp3 (held-out batch 6) starts with a frame, not "ID3": it was refused
    # as "binary data of an unknown kind".
    found = sniff_bytes(_mpeg_frames(header, size, 4))
    assert found is not None and found.extension == ".mp3"
    lone = sniff_bytes(header + b"\x00" * 600)  # a frame-like header and no second frame
    assert lone is None or lone.extension != ".mp3"


@pytest.mark.parametrize(
    ("name", "kind", "wanted"),
    [("prices.xls", "xlsx", "Steel hinge"), ("staff.doc", "docx", "Marcus Lindqvist")],
)
def test_an_office_file_under_its_legacy_extension_is_read(
    tmp_path: Path, name: str, kind: str, wanted: str
) -> None:
    """Held-out batch 11's nationwide.xls is an .xlsx workbook under the old extension (as
    saved by many exporters): detection read it as .xlsx, then openpyxl refused the file by its
    name ("openpyxl does not support the old .xls file format")."""
    from samples.tables import write_docx, write_xlsx

    path = tmp_path / name
    (write_xlsx if kind == "xlsx" else write_docx)(path)
    loader = loader_for(path)
    assert loader.file_type == kind
    assert any(wanted in s.text for s in loader.load(path))


def _image(path: Path) -> None:
    from PIL import Image

    formats = {".jpg": "JPEG", ".jpeg": "JPEG", ".tif": "TIFF", ".tiff": "TIFF"}
    Image.new("RGB", (48, 24), "white").save(path, formats.get(path.suffix))


#: The codec ``tests.integration.media.encode`` writes each audio extension with (PyAV).
_CODECS = {
    ".flac": "flac",
    ".mp3": "mp3",
    ".ogg": "libopus",
    ".opus": "libopus",
    ".m4a": "aac",
    ".webm": "libopus",
}


def _audio(path: Path) -> None:
    from tests.integration.media import encode, silent_wav

    wav = silent_wav(path.with_suffix(".wav"), seconds=1.0)
    if path.suffix != ".wav":
        encode(wav, path, _CODECS[path.suffix])


def _text(path: Path) -> int:
    return path.write_text("a = 1\nplain words of a file\n")


def _genuine(path: Path, kind: str) -> None:
    """A real file of ``kind`` at ``path``, written by the library that writes the format."""
    import shutil

    from samples import formats
    from samples.tables import write_docx, write_xlsx

    makers: dict[str, Callable[[Path], object]] = {
        "image": _image,
        "audio": _audio,
        "docx": write_docx,
        "xlsx": write_xlsx,
        "pptx": formats.make_pptx,
        "epub": formats.make_epub,
        "odt": formats.make_odt,
        "rtf": formats.make_rtf,
        "mbox": formats.make_mbox,
        "eml": formats.make_eml,
        "pdf": lambda p: p.write_bytes(minimal_pdf(["A page of text."])),
        "xls": lambda p: shutil.copy(Path(__file__).parents[1] / "integration/data/Formate.xls", p),
        "html": lambda p: p.write_text("<html><body><p>A page.</p></body></html>"),
        "json": lambda p: p.write_text('{"a": 1}\n'),
    }
    makers.get(kind, _text)(path)


@pytest.mark.parametrize(
    ("ext", "kind"),
    [(ext, kind) for kind, names in supported_types().items() for ext in names],
)
def test_every_format_hearth_lists_is_read_from_a_genuine_file(
    tmp_path: Path, ext: str, kind: str
) -> None:
    """Every extension (and exact file name) ``hearth formats`` lists is read as its kind from a
    real file of it: a .bmp (as Pillow and Windows write it) and a .webm were refused as "binary
    data of an unknown kind" (the sniffer knew no signature for them), and so was held-out batch
    14's nasdaq.jpg, a BMP under a .jpg name."""
    path = tmp_path / (f"file{ext}" if ext.startswith(".") else ext)
    _genuine(path, kind)
    assert detect_type(path) == kind


def test_a_bmp_named_jpg_is_read_as_an_image(tmp_path: Path) -> None:
    path = tmp_path / "nasdaq.jpg"
    _image(tmp_path / "nasdaq.bmp")
    (tmp_path / "nasdaq.bmp").rename(path)
    assert sniff(path).extension == ".bmp"
    assert detect_type(path) == "image"
