"""A minimal, valid text PDF writer for tests (lines of Helvetica, one page per item)."""

from __future__ import annotations

from pathlib import Path

#: A line of text drawn after the given graphics-state operators, e.g. ``("1 1 1 rg", "...")``
#: for white text or ``("3 Tr", "...")`` for invisible text; each line starts in black, mode 0.
Line = tuple[str, str]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content(page: str | list[Line] | bytes) -> bytes:
    if isinstance(page, bytes):
        return page
    if isinstance(page, str):
        return f"BT /F1 12 Tf 72 720 Td ({_escape(page)}) Tj ET".encode()
    lines = []
    for i, (ops, text) in enumerate(page):
        lines.append(f"q {ops} BT /F1 12 Tf 72 {720 - 16 * i} Td ({_escape(text)}) Tj ET Q")
    return "\n".join(lines).encode()


def write_pdf(
    path: Path, pages: list[str | list[Line] | bytes], forms: dict[str, bytes] | None = None
) -> None:
    """Write a PDF whose page i shows ``pages[i]``: one line of text, styled lines, or a raw
    content stream (``bytes``) drawn with the font ``/F1`` (Helvetica); ``forms``: form
    XObjects (name without the slash -> content stream, the page's size) every page can draw
    with ``/name Do``."""
    objects: list[bytes] = []
    n = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    font_id = 3 + 2 * n
    named = " ".join(f"/{name} {font_id + 1 + k} 0 R" for k, name in enumerate(forms or {}))
    for i, text in enumerate(pages):
        stream = _content(text)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> /XObject << {named} >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for form in (forms or {}).values():
        head = b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Length %d >>" % len(form)
        objects.append(head + b"\nstream\n" + form + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    path.write_bytes(bytes(out))
