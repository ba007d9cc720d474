"""Encrypted files, one way for every loader: what opens without asking is read, what needs a
password fails with "encrypted: needs a password" (Hearth never asks for one).

- Office Open XML (.docx, .xlsx, .pptx) with a password is not a zip but an OLE compound file
  holding ``EncryptionInfo`` and ``EncryptedPackage`` streams (MS-OFFCRYPTO). A workbook that
  Excel encrypted with its built-in password (``VelvetSweatshop``, used when a workbook is only
  protected against changes) opens in Excel without asking, so it is decrypted here with that
  password (msoffcrypto-tool) and read.
- A zip whose members are encrypted (``zip -e``), an OpenDocument file with a password (its
  manifest carries ``encryption-data``), an EPUB whose content documents are listed in
  ``META-INF/encryption.xml`` (DRM; obfuscated fonts alone are fine) cannot be read.
- PDFs are handled in ``pdf.py``: the empty user password is tried (RC4 and AES alike).
"""

from __future__ import annotations

import contextlib
import io
import posixpath
import re
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from core.errors import LoaderError

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: The password Excel encrypts a workbook with when the user set none to open it.
EXCEL_DEFAULT_PASSWORD = "VelvetSweatshop"
_FONTS = (".otf", ".ttf", ".woff", ".woff2")
_CIPHER_URI = re.compile(rb"CipherReference[^>]*?URI\s*=\s*[\"']([^\"']+)[\"']")


def needs_password(path: Path, what: str) -> LoaderError:
    """The failure of a file that cannot be read without a password (or key)."""
    return LoaderError(
        f"{path.name}: encrypted: needs a password ({what}); Hearth does not ask for "
        "passwords: save a copy without the password and add that"
    )


def is_encrypted_ooxml(path: Path) -> bool:
    """True when ``path`` is an OLE compound file holding an encrypted OOXML package."""
    import olefile

    try:
        with path.open("rb") as fh:
            if fh.read(len(OLE_MAGIC)) != OLE_MAGIC:
                return False
        ole = olefile.OleFileIO(str(path))
    except (OSError, ValueError, TypeError, IndexError):  # a damaged compound file
        return False
    try:
        return bool(ole.exists("EncryptionInfo") and ole.exists("EncryptedPackage"))
    finally:
        ole.close()


@contextlib.contextmanager
def office_package(path: Path, kind: str, what: str) -> Iterator[Path]:
    """The OOXML package to read for ``path``: the file itself, or, for an encrypted one, its
    package decrypted with Excel's built-in password into a temporary file of the same name.

    ``kind``: the extension (``.docx``) for messages; ``what``: "a Word document". Raises
    ``LoaderError``: "encrypted: needs a password" when the built-in password does not open it
    (any password a person set), and the zip guard's errors (``archive.check_zip``).
    """
    from ingest.loaders.archive import check_zip

    if not is_encrypted_ooxml(path):
        check_zip(path, kind)
        yield path
        return
    data = _decrypt_default(path, what)
    with tempfile.TemporaryDirectory(prefix="hearth-decrypted-") as tmp:
        plain = Path(tmp) / path.name
        plain.write_bytes(data)
        del data
        check_zip(plain, kind)
        yield plain


def default_password_kind(path: Path) -> str | None:
    """The extension (``.xlsx``...) of an encrypted OOXML package that Excel's built-in
    password opens, by its content; None when a password a person set guards it."""
    try:
        data = _decrypt_default(path, "Office document")
    except LoaderError:
        return None
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
    for member, ext in (
        ("word/document.xml", ".docx"),
        ("xl/workbook.xml", ".xlsx"),
        ("ppt/presentation.xml", ".pptx"),
    ):
        if member in names:
            return ext
    return None


def _decrypt_default(path: Path, what: str) -> bytes:
    import msoffcrypto
    from msoffcrypto.exceptions import DecryptionError, FileFormatError, InvalidKeyError

    try:
        with path.open("rb") as fh:
            office = msoffcrypto.OfficeFile(fh)
            office.load_key(password=EXCEL_DEFAULT_PASSWORD, verify_password=True)
            out = io.BytesIO()
            office.decrypt(out)
    except (InvalidKeyError, DecryptionError) as exc:
        raise needs_password(path, f"a password-protected {what}") from exc
    except (FileFormatError, OSError, ValueError, KeyError, AssertionError) as exc:
        raise LoaderError(
            f"{path.name}: an encrypted {what} whose encryption cannot be read ({exc})"
        ) from exc
    return out.getvalue()


def check_zip_encryption(path: Path, kind: str, infos: list[zipfile.ZipInfo]) -> None:
    """Refuse a zip-based file whose members are encrypted with a zip password."""
    locked = [i.filename for i in infos if i.flag_bits & 0x1]
    if locked:
        raise needs_password(path, f"a {kind} file whose zip members are encrypted: {locked[0]}")


def check_odf(path: Path, what: str) -> None:
    """Refuse an OpenDocument file saved with a password (its manifest lists encrypted
    members)."""
    with zipfile.ZipFile(path) as zf:
        try:
            manifest = zf.read("META-INF/manifest.xml")
        except KeyError:
            return
    if b"encryption-data" in manifest:
        raise needs_password(path, f"a password-protected {what}")


def check_epub(path: Path) -> None:
    """Refuse an e-book whose text is encrypted (DRM): ``META-INF/encryption.xml`` lists a
    member that is not a font (fonts are often obfuscated in e-books that read fine)."""
    with zipfile.ZipFile(path) as zf:
        try:
            listing = zf.read("META-INF/encryption.xml")
        except KeyError:
            return
    locked = [
        uri.decode("utf-8", "replace")
        for uri in _CIPHER_URI.findall(listing)
        if posixpath.splitext(uri.decode("utf-8", "replace").lower())[1] not in _FONTS
    ]
    if locked:
        raise LoaderError(
            f"{path.name}: encrypted: needs a password or DRM key ({len(locked)} of the "
            f"e-book's files are encrypted, e.g. {locked[0]}); Hearth cannot read DRM-protected "
            "e-books: add a copy without DRM"
        )
