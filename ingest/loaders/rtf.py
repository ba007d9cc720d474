"""Rich Text Format (.rtf; striprtf): the document's text, split into paragraphs."""

from __future__ import annotations

from pathlib import Path

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import handles


@handles("rtf", (".rtf",))
class RtfLoader:
    """RTF files; one section (RTF has no heading structure striprtf exposes)."""

    file_type = "rtf"
    library = "striprtf"
    provenance = "(none: the whole document)"

    def load(self, path: Path) -> list[Section]:
        """The document's plain text."""
        from striprtf.striprtf import rtf_to_text

        raw = path.read_bytes()
        if not raw.lstrip().startswith(b"{\\rtf"):
            raise LoaderError(f"{path.name}: not an RTF document (no {{\\rtf header)")
        try:
            text = str(rtf_to_text(raw.decode("cp1252", "replace"), errors="replace"))  # type: ignore[no-untyped-call]
        except (ValueError, IndexError, LookupError, RecursionError) as exc:
            raise LoaderError(f"{path.name}: malformed RTF ({exc})") from exc
        lines = [line.strip() for line in text.splitlines()]
        body = "\n\n".join(line for line in lines if line)
        return [Section(body, {})] if body else []
