"""Saved e-mail messages (.eml; stdlib email): headers and body; attachments become documents."""

from __future__ import annotations

from pathlib import Path

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import LoadedFile, handles
from ingest.loaders.mail import message_attachments, message_section, parse_message


@handles("eml", (".eml",))
class EmlLoader:
    """One message; each attachment is handed to the pipeline as its own, linked document."""

    file_type = "eml"
    library = "email (stdlib)"
    provenance = "message (subject), from, date; attachments: their own provenance"

    def load(self, path: Path) -> list[Section]:
        """The message's headers and body."""
        return self.load_parts(path).sections

    def load_parts(self, path: Path) -> LoadedFile:
        """The message and its attachments."""
        try:
            msg = parse_message(path.read_bytes())
            section = message_section(msg)
            attachments = message_attachments(msg)
        except (ValueError, TypeError, LookupError, AttributeError) as exc:
            raise LoaderError(f"{path.name}: not a readable e-mail message ({exc})") from exc
        if not section.text.strip():
            return LoadedFile([], attachments)
        return LoadedFile([section], attachments)
