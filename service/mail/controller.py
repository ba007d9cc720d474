"""``/api/mail``: mail accounts (list, add, remove with their documents) and sync now."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from litestar import Controller, delete, get, post
from litestar.datastructures import State

from service.mail.service import MailService


@dataclass
class MailAccountIn:
    """An account to follow; the password is kept in a 0600 file, never shown again."""

    host: str
    user: str
    password: str = field(repr=False)
    port: int | None = None
    tls: str = "ssl"
    folders: list[str] | None = None
    all_folders: bool = False
    ca_file: str | None = None
    insecure: bool = False
    name: str | None = None
    collection: str = "default"


@dataclass
class MailSyncIn:
    """Which account to sync (every one when absent)."""

    account: str | None = None


class MailController(Controller):
    """IMAP mailboxes followed like folders."""

    path = "/api/mail"
    tags = ["mail"]

    @get("/accounts", sync_to_thread=True)
    def list_accounts(self, state: State) -> list[dict[str, Any]]:
        """Every account: server, transport, folders, last sync and error, message and document
        counts (never a password)."""
        mail: MailService = state.mail
        return mail.accounts()

    @post("/accounts", sync_to_thread=True, status_code=201)
    def add_account(self, data: MailAccountIn, state: State) -> dict[str, Any]:
        """Check the login, save the account, start following it. 400 for a refused login, a
        bad field (named) or a server not reached (naming the host); 409 for an account already
        followed."""
        mail: MailService = state.mail
        fields = {k: v for k, v in asdict(data).items() if k != "password"}
        return mail.add(fields, data.password)

    @delete("/accounts/{name:str}", sync_to_thread=True, status_code=200)
    def remove_account(self, name: str, state: State) -> dict[str, Any]:
        """Stop following the account and remove its documents: ``{name, removed_documents}``."""
        mail: MailService = state.mail
        return mail.remove(name)

    @post("/sync", sync_to_thread=True, status_code=200)
    def sync(self, state: State, data: MailSyncIn | None = None) -> list[dict[str, object]]:
        """Sync now: one report per account (added, moved, removed, failed with reasons...)."""
        mail: MailService = state.mail
        return mail.sync(data.account if data else None)
