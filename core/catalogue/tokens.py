"""Access tokens in the catalogue (``access_tokens``): a public id, a name and the sha256 of
each secret, and when it was revoked. Making and checking a secret is ``service.tokens``'s;
these functions read and write the rows."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.db.tokens import AccessToken


def add_token(s: Session, token_id: str, name: str, token_hash: str) -> AccessToken:
    """A new token row (flushed: its creation time is set)."""
    row = AccessToken(token_id=token_id, name=name, token_hash=token_hash)
    s.add(row)
    s.flush()
    return row


def tokens_in_order(s: Session) -> Sequence[AccessToken]:
    """Every token, oldest first, revoked ones included."""
    return s.scalars(select(AccessToken).order_by(AccessToken.id)).all()


def active_tokens_called(s: Session, key: str) -> Sequence[AccessToken]:
    """The tokens not revoked whose id or name is ``key``."""
    return s.scalars(
        select(AccessToken).where(
            AccessToken.revoked_at.is_(None),
            (AccessToken.token_id == key) | (AccessToken.name == key),
        )
    ).all()


def active_token_count(s: Session) -> int:
    """How many tokens are not revoked."""
    query = select(func.count(AccessToken.id)).where(AccessToken.revoked_at.is_(None))
    return int(s.scalar(query) or 0)


def active_token_hashes(s: Session) -> list[tuple[str, str]]:
    """(token id, sha256) of every token not revoked."""
    rows = s.execute(
        select(AccessToken.token_id, AccessToken.token_hash).where(AccessToken.revoked_at.is_(None))
    ).all()
    return [(str(token_id), str(digest)) for token_id, digest in rows]
