"""Mailboxes (.mbox; stdlib mailbox): every message, each with its attachments as documents."""

from __future__ import annotations

from pathlib import Path

from core.errors import LoaderError
from core.types import Section
from ingest.loaders.base import LoadedFile, handles
from ingest.loaders.mail import message_attachments, message_section, parse_message


@handles("mbox", (".mbox", ".mbx"))
class MboxLoader:
    """A Unix mailbox; provenance numbers each message from 1 in file order."""

    file_type = "mbox"
    library = "mailbox + email (stdlib)"
    provenance = "message (subject), index, from, date; attachments: their own provenance"

    def load(self, path: Path) -> list[Section]:
        """Every message's headers and body."""
        return self.load_parts(path).sections

    def load_parts(self, path: Path) -> LoadedFile:
        """Every message and every message's attachments."""
        import mailbox

        result = LoadedFile([])
        try:
            box = mailbox.mbox(str(path), create=False)
            try:
                for index, key in enumerate(box.iterkeys(), start=1):
                    msg = parse_message(box.get_bytes(key))
                    section = message_section(msg, {"index": index})
                    if section.text.strip():
                        result.sections.append(section)
                    result.attachments.extend(message_attachments(msg))
            finally:
                box.close()
        except (mailbox.Error, ValueError, TypeError, LookupError, AttributeError) as exc:
            raise LoaderError(f"{path.name}: not a readable mailbox ({exc})") from exc
        return result
