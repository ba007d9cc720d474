"""Catalogue paths of IMAP messages: ``imap://USER@HOST/FOLDER/UIDVALIDITY/UID``.

The folder is percent-quoted (``Archive%2F2024``) so the last two parts are always the
UIDVALIDITY and the UID; an attachment is ``<message path>#attachment/N/name`` as for ``.eml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote

SCHEME = "imap://"


def account_prefix(user: str, host: str) -> str:
    """``imap://USER@HOST/``: every document of the account starts with it."""
    return f"{SCHEME}{quote(user, safe='@')}@{host.lower()}/"


def folder_prefix(user: str, host: str, folder: str) -> str:
    """``imap://USER@HOST/FOLDER/``."""
    return f"{account_prefix(user, host)}{quote(folder, safe='')}/"


def message_key(user: str, host: str, folder: str, uidvalidity: int, uid: int) -> str:
    """The catalogue path of one message."""
    return f"{folder_prefix(user, host, folder)}{uidvalidity}/{uid}"


@dataclass(frozen=True)
class MessageKey:
    """A message path taken apart: folder (unquoted), UIDVALIDITY, UID."""

    folder: str
    uidvalidity: int
    uid: int


def parse_key(prefix: str, path: str) -> MessageKey | None:
    """The parts of a message path below ``prefix`` (an account prefix); None for an attachment
    or anything else."""
    if not path.startswith(prefix) or "#" in path:
        return None
    parts = path[len(prefix) :].split("/")
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return None
    return MessageKey(unquote(parts[0]), int(parts[1]), int(parts[2]))
