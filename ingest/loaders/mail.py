"""Reading one e-mail message (stdlib email): headers, body text and attachments."""

from __future__ import annotations

import mimetypes
import re
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from typing import Any

from core.types import Section
from ingest.loaders.base import Attachment
from ingest.loaders.detect import HEADER_LINE
from ingest.loaders.html import html_sections

HEADERS = ("From", "To", "Cc", "Date", "Subject")
MAX_ATTACHMENTS = 100
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:]+")


def safe_name(name: str | None, default: str) -> str:
    """An attachment's file name reduced to one harmless path component."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE.sub("_", base).strip(" .")[:200]
    return base or default


#: A line opening a header field: a name of printable characters but ":", then ":" (RFC 5322
#: 2.2; "X-Spam-Level:" with no value, "org.apache.james.rspamd.flag: NO").
_FIELD = re.compile(rb"^[\x21-\x39\x3b-\x7e]+:")
#: The blank line that ends a header block.
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")


def refold_headers(data: bytes) -> bytes:
    """A message whose header block has continuation lines that lost their indentation (copied
    out of a web archive: "Received: from unknown ...\nby localhost with SMTP; ...") with those
    lines indented again, so the parser reads every header (the first unindented one ended the
    block: Subject and From came out as body text); other messages as they are."""
    end = _BLANK_LINE.search(data)
    block = data[: end.start()] if end else data
    lines = block.split(b"\n")
    if not lines or not HEADER_LINE.match(lines[0]):
        return data
    fixed = [
        line if _FIELD.match(line) or line[:1] in (b" ", b"\t") else b" " + line for line in lines
    ]
    if fixed == lines:
        return data
    return b"\n".join(fixed) + data[len(block) :]


def parse_message(data: bytes) -> EmailMessage:
    """Parse bytes of an RFC 5322 message with the modern policy (its header block refolded
    first: ``refold_headers``)."""
    msg = BytesParser(policy=policy.default).parsebytes(refold_headers(data))
    assert isinstance(msg, EmailMessage)
    return msg


def _header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
    except (ValueError, TypeError, IndexError):  # a malformed header the policy cannot parse
        value = None
    return " ".join(str(value).split()) if value is not None else ""


def _text_of(part: Any) -> str:
    try:
        content = part.get_content()
    except (LookupError, ValueError, AssertionError, KeyError):
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", "replace")
    if not isinstance(content, str):
        return ""
    if part.get_content_type() == "text/html":
        return "\n\n".join(s.text for s in html_sections(content))
    return content


def _body(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return "" if msg.is_multipart() else _text_of(msg)
    return _text_of(part)


def _attachment(part: Any, n: int, subject: str) -> Attachment | None:
    ctype = part.get_content_type()
    if ctype == "message/rfc822":
        inner = part.get_payload()
        inner = inner[0] if isinstance(inner, list) and inner else inner
        data = inner.as_bytes() if isinstance(inner, Message) else b""
        default = f"message-{n}.eml"
    else:
        data = part.get_payload(decode=True) or b""
        default = f"attachment-{n}{mimetypes.guess_extension(ctype) or '.bin'}"
    if not data:
        return None
    name = safe_name(part.get_filename(), default)
    return Attachment(name, data, {"attachment": name, "message": subject})


def _attachment_names(msg: EmailMessage) -> list[str]:
    """The file names of a message's attachments that carry one, in order, at most 100."""
    names = []
    for part in msg.iter_attachments():
        try:
            name = part.get_filename()
        except (ValueError, TypeError, IndexError):  # a malformed header the policy cannot parse
            name = None
        if name:
            names.append(safe_name(name, ""))
        if len(names) >= MAX_ATTACHMENTS:
            break
    return [n for n in names if n]


def message_section(msg: EmailMessage, extra: dict[str, Any] | None = None) -> Section:
    """The message as one section: its headers (and the names of its attached files: "which
    file did she attach?" is asked of the message, whose attachments are documents of their
    own), a blank line, its body; provenance names it."""
    headers = [f"{name}: {_header(msg, name)}" for name in HEADERS if _header(msg, name)]
    attached = _attachment_names(msg)
    if attached:
        headers.append(f"Attachments: {', '.join(attached)}")
    body = _body(msg).strip()
    subject = _header(msg, "Subject") or "(no subject)"
    prov: dict[str, Any] = {"message": subject, **(extra or {})}
    if _header(msg, "From"):
        prov["from"] = _header(msg, "From")
    if _header(msg, "Date"):
        prov["date"] = _header(msg, "Date")
    return Section("\n".join(headers) + ("\n\n" + body if body else ""), prov)


def message_attachments(msg: EmailMessage) -> list[Attachment]:
    """The files attached to a message (a forwarded message counts as a file), at most 100."""
    out: list[Attachment] = []
    subject = _header(msg, "Subject") or "(no subject)"
    for n, part in enumerate(msg.iter_attachments(), start=1):
        found = _attachment(part, n, subject)
        if found is not None:
            out.append(found)
        if len(out) >= MAX_ATTACHMENTS:
            break
    return out
