"""A corpus of bad files, all generated here, small on disk: each kind with what Hearth must say.

Each :class:`BadFile` is one kind of problem. ``outcome`` is the ingest action the file must end
with (``failed``; ``empty`` for a file with nothing to read; ``added`` where the sensible result
is a successful ingest, e.g. text named .pdf or a PDF whose xref pypdf rebuilds). ``expect`` are
fragments the error must contain besides the file's name (for ``added``: text that must be
stored). ``channels`` says which ways in the kind applies to: ``cli``, ``upload``, ``watch``.
"""

from __future__ import annotations

import io
import os
import random
import re
import struct
import wave
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

ALL = frozenset({"cli", "upload", "watch"})
ON_DISK = frozenset({"cli", "watch"})
#: ``ingest.max_file_bytes`` the tests set, so that the over-size kind is small.
MAX_FILE_BYTES = 3 * 1024 * 1024


@dataclass(frozen=True)
class BadFile:
    """One kind of bad input."""

    kind: str
    name: str
    data: bytes
    expect: tuple[str, ...]
    outcome: str = "failed"
    channels: frozenset[str] = ALL
    #: HTTP status an upload must get (201 for kinds that are ingested or stored as empty).
    status: int = 422
    #: A symbolic link to this target (relative to the file's folder) instead of ``data``.
    link_to: str | None = None
    mode: int | None = None

    def write(self, folder: Path) -> Path:
        """Create the file (or link) in ``folder``."""
        path = folder / self.name
        if self.link_to is not None:
            path.symlink_to(self.link_to)
            return path
        path.write_bytes(self.data)
        if self.mode is not None:
            path.chmod(self.mode)
        return path


def _pdf(text: str) -> bytes:
    from samples.formats import minimal_pdf

    return minimal_pdf([text])


#: What a file that needs a password to open must fail with (issue 28).
NEEDS_PASSWORD = "encrypted: needs a password"
PASSWORD = "hearth-secret"


def encrypted_pdf(
    text: str = "A secret about the vault.", algorithm: str = "RC4-128", user: str = PASSWORD
) -> bytes:
    """A PDF encrypted by pypdf with ``algorithm``; ``user`` "" is owner-only protection
    (every viewer opens it without asking)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(_pdf(text))))
    writer.encrypt(user_password=user, owner_password="owner", algorithm=algorithm)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _docx(path: Path, text: str) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Encrypted notes", level=1)
    document.add_paragraph(text)
    document.save(str(path))


def _encrypted_office(maker_name: str, tmp: Path, password: str = PASSWORD) -> bytes:
    """A real Office file (python-docx, openpyxl, python-pptx) encrypted as Office does with a
    password to open (ECMA-376 agile encryption, msoffcrypto-tool): an OLE compound file."""
    from msoffcrypto.format.ooxml import OOXMLFile

    import samples.formats as samples

    ext = {"docx": ".docx", "xlsx": ".xlsx", "pptx": ".pptx"}[maker_name]
    plain = tmp / f"plain-{maker_name}-{password}{ext}"
    if maker_name == "docx":
        _docx(plain, "Marker sealed: the key to the boathouse hangs behind the clock.")
    else:
        getattr(samples, f"make_{maker_name}")(plain)
    out = io.BytesIO()
    with plain.open("rb") as fh:
        OOXMLFile(fh).encrypt(password, out)
    return out.getvalue()


def _encrypted_odt(tmp: Path) -> bytes:
    """An OpenDocument text saved with a password the way LibreOffice does (ODF 1.2: each
    XML member deflated, then AES-256-CBC with a PBKDF2 key of the password's SHA-256; the
    manifest describes it in ``encryption-data``)."""
    import base64
    import hashlib

    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    import samples.formats as samples

    src = tmp / "plain.odt"
    samples.make_odt(src)

    def b64(raw: bytes) -> str:
        return base64.b64encode(raw).decode()

    def described(name: str, size: int, checksum: str, iv: str, salt: str) -> str:
        return (
            f'<manifest:file-entry manifest:full-path="{name}" manifest:media-type="text/xml" '
            f'manifest:size="{size}"><manifest:encryption-data manifest:checksum-type="urn:oasis:'
            f'names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="{checksum}">'
            '<manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/'
            f'xmlenc#aes256-cbc" manifest:initialisation-vector="{iv}"/>'
            "<manifest:start-key-generation manifest:start-key-generation-name="
            '"http://www.w3.org/2000/09/xmldsig#sha256" manifest:key-size="32"/>'
            '<manifest:key-derivation manifest:key-derivation-name="PBKDF2" '
            'manifest:key-size="32" manifest:iteration-count="100000" '
            f'manifest:salt="{salt}"/></manifest:encryption-data></manifest:file-entry>'
        )

    entries: list[tuple[str, int, str, str, str]] = []
    out = io.BytesIO()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w") as zout:
        manifest: str = zin.read("META-INF/manifest.xml").decode()
        for info in zin.infolist():
            body = zin.read(info)
            if info.filename in ("content.xml", "styles.xml", "meta.xml"):
                salt, iv = os.urandom(16), os.urandom(16)
                start = hashlib.sha256(PASSWORD.encode()).digest()
                key = hashlib.pbkdf2_hmac("sha1", start, salt, 100_000, 32)
                packer = zlib.compressobj(9, zlib.DEFLATED, -15)
                packed = packer.compress(body) + packer.flush()
                padder = padding.PKCS7(128).padder()
                enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
                sealed = enc.update(padder.update(packed) + padder.finalize()) + enc.finalize()
                checksum = hashlib.sha256(sealed[:1024]).digest()
                entries.append((info.filename, len(body), b64(checksum), b64(iv), b64(salt)))
                zout.writestr(zipfile.ZipInfo(info.filename), sealed, zipfile.ZIP_STORED)
            elif info.filename != "META-INF/manifest.xml":
                zout.writestr(info, body)
        for name, *rest in entries:
            entry = f'<manifest:file-entry manifest:full-path="{name}"[^>]*/>'
            manifest = re.sub(entry, described(name, *rest), manifest)  # type: ignore[arg-type]
        assert manifest.count("encryption-data") == 2 * len(entries), manifest
        zout.writestr("META-INF/manifest.xml", manifest)
    return out.getvalue()


def _drm_epub(tmp: Path) -> bytes:
    """An EPUB whose chapters are encrypted (AES-128-CBC, as DRM schemes do) and listed in
    ``META-INF/encryption.xml``; its key is not in the book."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    import samples.formats as samples

    src = tmp / "plain.epub"
    samples.make_epub(src)
    key = os.urandom(16)
    refs = []
    out = io.BytesIO()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            body = zin.read(info)
            if info.filename.endswith((".xhtml", ".html")) and "nav" not in info.filename:
                iv = os.urandom(16)
                padder = padding.PKCS7(128).padder()
                enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
                body = iv + enc.update(padder.update(body) + padder.finalize()) + enc.finalize()
                refs.append(info.filename)
            zout.writestr(info, body)
        assert refs
        listing = "".join(
            '<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/'
            'xmlenc#aes128-cbc"/><enc:CipherData>'
            f'<enc:CipherReference URI="{name}"/></enc:CipherData></enc:EncryptedData>'
            for name in refs
        )
        zout.writestr(
            "META-INF/encryption.xml",
            '<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:'
            'container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">' + listing + "</encryption>",
        )
    return out.getvalue()


def encrypted_kinds(tmp: Path) -> list[BadFile]:
    """Every reader that can meet an encrypted file (issue 28): what opens without asking is
    read, what needs a password fails with ``NEEDS_PASSWORD``."""
    tmp.mkdir(parents=True, exist_ok=True)
    kinds = []
    for algorithm in ("RC4-40", "RC4-128", "AES-128", "AES-256"):
        fact = f"Marker owner-only {algorithm}: the keeper counts {len(algorithm)} gulls."
        kinds.append(
            BadFile(
                f"PDF encrypted {algorithm}, owner password only (opens without asking)",
                f"owner-only-{algorithm.lower()}.pdf",
                encrypted_pdf(fact, algorithm, user=""),
                (f"keeper counts {len(algorithm)} gulls",),
                "added",
                status=201,
            )
        )
    for algorithm in ("RC4-40", "AES-128", "AES-256"):
        kinds.append(
            BadFile(
                f"PDF encrypted {algorithm} with a user password",
                f"locked-{algorithm.lower()}.pdf",
                encrypted_pdf(algorithm=algorithm),
                (NEEDS_PASSWORD,),
            )
        )
    for maker, name in (("docx", "locked.docx"), ("xlsx", "locked.xlsx"), ("pptx", "locked.pptx")):
        kinds.append(
            BadFile(
                f"{maker.upper()} with a password to open",
                name,
                _encrypted_office(maker, tmp),
                (NEEDS_PASSWORD,),
            )
        )
    kinds += [
        BadFile(
            "XLSX encrypted with Excel's built-in password (opens without asking)",
            "velvet.xlsx",
            _encrypted_office("xlsx", tmp, "VelvetSweatshop"),
            ("Warehouse: Oslo",),
            "added",
            status=201,
        ),
        BadFile("ODT saved with a password", "locked.odt", _encrypted_odt(tmp), (NEEDS_PASSWORD,)),
        BadFile("EPUB with encrypted chapters (DRM)", "drm.epub", _drm_epub(tmp), ("encrypted",)),
    ]
    return kinds


def _broken_xref_pdf(text: str) -> bytes:
    data = _pdf(text)
    head, _, tail = data.partition(b"xref\n")
    lines = tail.split(b"\n")
    garbage = [
        b"9%09d 00000 n " % i if line.endswith(b" n ") else line for i, line in enumerate(lines)
    ]
    body = b"\n".join(garbage)
    return head + b"xref\n" + body.replace(b"startxref\n", b"startxref\n77").rstrip()


def _rand(seed: int, n: int, lo: int = 0, hi: int = 255) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randint(lo, hi) for _ in range(n))


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


_CT = b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'


def _docx_bomb(mib: int = 64) -> bytes:
    """A .docx whose media member is ``mib`` MiB of zeros (~1000:1): tiny packed, huge unpacked."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("[Content_Types].xml", _CT)
        zf.writestr("word/document.xml", b"<w:document/>")
        with zf.open("word/media/image1.bin", "w") as fh:
            block = bytes(1 << 20)
            for _ in range(mib):
                fh.write(block)
    return out.getvalue()


def _docx_forged_size() -> bytes:
    """A small .docx whose directory claims a member unpacks to ~4 GiB."""
    data = bytearray(_zip({"[Content_Types].xml": _CT, "word/document.xml": b"<w:document/>"}))
    at = data.rfind(b"PK\x01\x02")  # central entry of the last member
    struct.pack_into("<I", data, at + 24, 0xFFFF0000)
    return bytes(data)


def _nested_html(depth: int = 100_000) -> bytes:
    return (
        b"<html><body><p>Marker deep nesting: the well is forty metres deep.</p>"
        + b"<div>" * depth
        + b"inner"
        + b"</div>" * depth
        + b"</body></html>"
    )


def _wav(samples: bytes, rate: int = 16_000) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples)
    return out.getvalue()


def _png_chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))


def _huge_png(side: int = 30_000) -> bytes:
    """A 1-bit ``side`` x ``side`` white PNG: ~100 KB on disk, 900 megapixels."""
    comp = zlib.compressobj(9)
    row = b"\x00" + b"\xff" * ((side + 7) // 8)
    idat = b"".join(comp.compress(row) for _ in range(side)) + comp.flush()
    ihdr = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


def _image(fmt: str, color: str = "white", text: bool = True) -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (320, 200), color)
    if text:
        ImageDraw.Draw(img).rectangle((20, 20, 300, 180), outline="black", fill="gray")
    out = io.BytesIO()
    img.save(out, fmt)
    return out.getvalue()


def _corrupt_member(maker_name: str, member_suffix: str, tmp: Path) -> bytes:
    """A real file from samples.formats with its main XML part replaced by garbage."""
    import samples.formats as samples

    src = tmp / f"src-{maker_name}"
    getattr(samples, f"make_{maker_name}")(src)
    out = io.BytesIO()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            body = zin.read(info)
            if info.filename.endswith(member_suffix):
                body = b"<<<this is not xml" + _rand(7, 64, 33, 126)
            zout.writestr(info, body)
    return out.getvalue()


def _text(marker: str) -> bytes:
    return f"{marker}\nA short note with nothing wrong about its content.\n".encode()


def bad_files(tmp: Path) -> list[BadFile]:
    """Every kind of bad input (``tmp`` is scratch space for generators that need files)."""
    tmp.mkdir(parents=True, exist_ok=True)
    good_pdf = _pdf("Marker xref: the orchard has ninety pear trees.")
    wav_tone = _wav(
        b"".join(struct.pack("<h", int(8000 * ((i // 40) % 2 * 2 - 1))) for i in range(16_000))
    )
    kinds = [
        BadFile("zero bytes .txt", "zero.txt", b"", ("empty", "0 bytes"), "empty", status=400),
        BadFile("zero bytes .pdf", "zero.pdf", b"", ("empty", "0 bytes"), "empty", status=400),
        BadFile("zero bytes .docx", "zero.docx", b"", ("empty", "0 bytes"), "empty", status=400),
        BadFile("zero bytes .png", "zero.png", b"", ("empty", "0 bytes"), "empty", status=400),
        BadFile("truncated PDF", "truncated.pdf", good_pdf[:60], ("PDF",)),
        BadFile("encrypted PDF", "encrypted.pdf", encrypted_pdf(), (NEEDS_PASSWORD,)),
        *encrypted_kinds(tmp),
        BadFile(
            "PDF with garbage xref offsets (pypdf rebuilds it)",
            "bad-xref.pdf",
            _broken_xref_pdf("Marker xref: the orchard has ninety pear trees."),
            ("ninety pear trees",),
            "added",
            status=201,
        ),
        BadFile(
            "PDF header, garbage body", "garbage.pdf", b"%PDF-1.7\n" + _rand(1, 4096), ("PDF",)
        ),
        BadFile(
            "binary named .txt",
            "binary.txt",
            _rand(2, 4096),
            ("binary", "not the .txt"),
            status=415,
        ),
        BadFile(
            "text named .pdf (read as text)",
            "notes-really-text.pdf",
            _text("Marker lying name: the glacier museum opens at nine."),
            ("glacier museum opens at nine",),
            "added",
            status=201,
        ),
        BadFile(
            "invalid UTF-8 bytes in text (decoded by detection)",
            "stray-bytes.txt",
            b"Marker stray bytes: the ferry to Uto leaves at dawn.\n\xff\xfe\xc3\x28 caf\xe9\n",
            ("ferry to Uto leaves at dawn",),
            "added",
            status=201,
        ),
        BadFile(
            "mixed encodings: UTF-8, Latin-1 and UTF-16 in one file",
            "mixed.txt",
            "Marker mixed: caf\u00e9 cr\u00e8me\n".encode()
            + "na\u00efve fa\u00e7ade\n".encode("latin-1")
            + "UTF-16 part\n".encode("utf-16-le"),
            ("NUL bytes", "encoding"),
            status=415,
        ),
        BadFile(
            "UTF-16 without a byte-order mark",
            "utf16-nobom.txt",
            "Marker utf16: the observatory dome is painted green.\n".encode("utf-16-le"),
            ("observatory dome is painted green",),
            "added",
            status=201,
        ),
        BadFile(
            "NUL bytes inside text",
            "nul-in-text.txt",
            b"Some words of text\x00\x00 and then more words\x00 in the file.\n" * 4,
            ("NUL bytes",),
            status=415,
        ),
        BadFile("DOCX zip bomb", "bomb.docx", _docx_bomb(), ("zip bomb", "expands to")),
        BadFile(
            "DOCX whose zip directory declares 4 GiB",
            "forged.docx",
            _docx_forged_size(),
            ("zip bomb", "expands to"),
        ),
        BadFile(
            "DOCX that is not a zip",
            "not-a-zip.docx",
            b"PK\x03\x04" + _rand(3, 2048),
            ("damaged zip", "not the .docx"),
            status=415,
        ),
        BadFile(
            "DOCX zip without word/document.xml",
            "hollow.docx",
            _zip({"[Content_Types].xml": _CT, "word/styles.xml": b"<w:styles/>"}),
            ("unknown kind", "not the .docx"),
            status=415,
        ),
        BadFile(
            "deeply nested HTML (100k divs)",
            "nested.html",
            _nested_html(),
            ("well is forty metres deep",),
            "added",
            status=201,
        ),
        BadFile(
            "HTML with only scripts",
            "scripts.html",
            b"<html><head><script>var a = 1;</script></head><body>"
            b"<script>document.write('x')</script><style>p { color: red }</style></body></html>",
            ("no text",),
            "empty",
            status=201,
        ),
        BadFile(
            "larger than ingest.max_file_bytes",
            "huge.txt",
            b"a line of text that repeats\n" * (MAX_FILE_BYTES // 28 + 2000),
            ("over the", "limit", "ingest.max_file_bytes"),
            status=413,
        ),
        BadFile(
            "random bytes named .wav", "noise.wav", _rand(4, 4096), ("not the .wav",), status=415
        ),
        BadFile(
            "ID3 header and garbage named .mp3",
            "corrupt.mp3",
            b"ID3\x03\x00\x00\x00\x00\x00\x00" + _rand(5, 4096),
            ("not a readable audio file", "Invalid data"),
        ),
        BadFile("WAV header, data cut off", "cut.wav", wav_tone[:44], ("no audio", "cut short")),
        BadFile(
            "silent recording",
            "silence.wav",
            _wav(bytes(2 * 16_000 * 3)),
            ("no speech",),
            "empty",
            status=201,
        ),
        BadFile(
            "huge image (30000x30000, ~100 KB)",
            "huge.png",
            _huge_png(),
            ("900000000 pixels", "pixel limit", "ocr.max_pixels"),
        ),
        BadFile("truncated PNG", "cut.png", _image("PNG")[:200], ("image",)),
        BadFile("truncated JPEG", "cut.jpg", _image("JPEG")[:300], ("image",)),
        BadFile(
            "image without text",
            "blank.png",
            _image("PNG", text=False),
            ("no text",),
            "empty",
            status=201,
        ),
        BadFile(
            "XLSX with a garbage workbook part",
            "corrupt.xlsx",
            _corrupt_member("xlsx", "workbook.xml", tmp),
            ("Excel",),
        ),
        BadFile(
            "PPTX with a garbage presentation part",
            "corrupt.pptx",
            _corrupt_member("pptx", "presentation.xml", tmp),
            ("PowerPoint",),
        ),
        BadFile(
            "EPUB with a garbage package document",
            "corrupt.epub",
            _corrupt_member("epub", ".opf", tmp),
            ("EPUB",),
        ),
        BadFile(
            "ODT with garbage content.xml",
            "corrupt.odt",
            _corrupt_member("odt", "content.xml", tmp),
            ("not a readable OpenDocument text", "content.xml is not valid XML"),
        ),
        BadFile(
            "truncated DOCX", "truncated.docx", _docx_bomb(1)[:300], ("damaged zip",), status=415
        ),
        BadFile("invalid JSON", "broken.json", b'{"a": [1, 2,, }', ("not valid JSON", "line")),
        BadFile(
            "invalid YAML", "broken.yaml", b"key: [unclosed\n  - x: : :\n", ("not valid YAML",)
        ),
        BadFile(
            "CSV with binary in it",
            "binary.csv",
            b"town,people\nOslo,700000\n" + _rand(6, 1024),
            ("binary",),
            status=415,
        ),
        BadFile(
            "dangling symbolic link",
            "dangling.txt",
            b"",
            ("broken symbolic link",),
            # The watcher takes a link to nothing for a file that went away (no OS event names
            # a dangling link's creation apart from a deletion), so only the CLI reports it.
            channels=frozenset({"cli"}),
            link_to="no-such-target.txt",
        ),
        BadFile(
            "control characters in the name",
            "bell\x07tab\tnew\nline.txt",
            _text("Marker control name: the bakery sells rye bread on Fridays."),
            ("bakery sells rye bread",),
            "added",
            status=201,
        ),
        BadFile(
            "255-byte name",
            "L" * 251 + ".txt",
            _text("Marker long name: the pier is 812 metres long."),
            ("pier is 812 metres long",),
            "added",
            status=201,
        ),
    ]
    if os.geteuid() != 0:  # root reads a mode-000 file, so the kind cannot fail there
        kinds.append(
            BadFile(
                "unreadable (mode 000)",
                "locked.txt",
                _text("Marker locked."),
                ("Permission denied",),
                channels=ON_DISK,
                mode=0o000,
            )
        )
    return kinds


@dataclass(frozen=True)
class BadName:
    """An upload name: refused with a 400 naming the problem, or stored under a safe name."""

    name: str
    status: int
    expect: tuple[str, ...] = field(default_factory=tuple)


BAD_NAMES = [
    BadName("../../evil-up.txt", 201),
    BadName("a/b\\evil-sep.txt", 201),
    BadName("/etc/evil-abs.txt", 201),
    BadName("..\\..\\evil-win.txt", 201),
    BadName("evil\x00nul.txt", 201),
    BadName("x" * 300 + ".txt", 201),
    BadName("..", 400, ("no usable file name",)),
    BadName("./", 400, ("no usable file name",)),
]
