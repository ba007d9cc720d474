"""Access tokens: create (the secret is shown once), list, revoke, verify.

A token reads ``hth_<id>_<secret>``: ``id`` is 8 hex characters that name the token in lists and
on revocation; only the sha256 of the whole token is stored, so a leaked catalogue gives no
usable secret. Verification hashes what the client sent and compares it with the active hashes.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from core import catalogue
from core.db.session import Database
from core.db.tokens import AccessToken
from core.errors import InvalidInputError, NotFoundError

PREFIX = "hth_"
MAX_NAME = 200


def hash_token(token: str) -> str:
    """The stored form of a token: its sha256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class TokenInfo:
    """A token as lists show it (never its secret)."""

    token_id: str
    name: str
    created_at: datetime
    revoked_at: datetime | None

    @property
    def active(self) -> bool:
        """Not revoked."""
        return self.revoked_at is None


def _info(row: AccessToken) -> TokenInfo:
    return TokenInfo(row.token_id, row.name, row.created_at, row.revoked_at)


class TokenStore:
    """Access tokens in the catalogue database (its rows through ``core.catalogue``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, name: str = "") -> tuple[TokenInfo, str]:
        """A new token; returns its info and the full secret (shown once, never stored)."""
        name = name.strip()
        if len(name) > MAX_NAME or not name.isprintable():
            raise InvalidInputError("name: must be at most 200 printable characters", field="name")
        token_id = secrets.token_hex(4)
        token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
        with self.db.session() as s:
            info = _info(catalogue.add_token(s, token_id, name, hash_token(token)))
        return info, token

    def all(self) -> list[TokenInfo]:
        """Every token, oldest first, revoked ones included."""
        with self.db.session() as s:
            return [_info(r) for r in catalogue.tokens_in_order(s)]

    def revoke(self, key: str) -> list[TokenInfo]:
        """Revoke the active token(s) whose id or name is ``key``; NotFoundError if none."""
        with self.db.session() as s:
            rows = catalogue.active_tokens_called(s, key)
            if not rows:
                raise NotFoundError(f"no active token with id or name {key!r}", field="token")
            now = datetime.now(UTC)
            for row in rows:
                row.revoked_at = now
            return [_info(r) for r in rows]

    def active_count(self) -> int:
        """How many tokens are not revoked."""
        with self.db.session() as s:
            return catalogue.active_token_count(s)

    def check(self, token: str | None) -> tuple[int, str | None]:
        """How many tokens are active, and the id of the one ``token`` is (None if none)."""
        with self.db.session() as s:
            rows = catalogue.active_token_hashes(s)
        if not token or not token.startswith(PREFIX):
            return len(rows), None
        digest = hash_token(token)
        for token_id, stored in rows:
            if hmac.compare_digest(stored, digest):
                return len(rows), token_id
        return len(rows), None
