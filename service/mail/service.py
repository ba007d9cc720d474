"""Mail accounts as the API sees them: list, add (login checked first), remove (with their
documents), sync now; and one :class:`~ingest.mail.follower.MailFollower` per account while the
server runs (``mail.follow``)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from core.errors import InvalidInputError
from core.settings import HearthSettings
from ingest.mail.accounts import TLS_MODES, Account, AccountStore, default_port
from ingest.mail.follower import MailFollower
from ingest.mail.sync import MailSync, account_documents, remove_account_documents
from ingest.mail.transport import MailServerError, check_login, check_transport
from ingest.pipeline import IngestPipeline

log = logging.getLogger(__name__)


class MailService:
    """The accounts of one data directory, synced through ``pipeline``."""

    def __init__(self, settings: HearthSettings, pipeline: IngestPipeline) -> None:
        self.settings = settings
        self.pipeline = pipeline
        self.store = AccountStore(settings.data_dir)
        self.followers: dict[str, MailFollower] = {}
        self._guard = threading.Lock()

    def accounts(self) -> list[dict[str, Any]]:
        """Every account (never a password) with its message and document counts."""
        out = []
        for account in self.store.accounts():
            messages, documents = account_documents(self.pipeline.kb, account)
            follower = self.followers.get(account.name)
            out.append(
                {
                    **account.public(),
                    "messages": messages,
                    "documents": documents,
                    "follower": follower is not None and not follower.stop_event.is_set(),
                }
            )
        return out

    def add(self, fields: dict[str, Any], password: str) -> dict[str, Any]:
        """Check the login, then save the account and start following it.

        ``fields``: host, user, and optionally port, tls, folders, all_folders, ca_file,
        insecure, name, collection. InvalidInputError names a bad field; MailAuthError (400) a
        refused login; a server that cannot be reached is an InvalidInputError on ``host`` (400).
        """
        tls = fields.get("tls") or "ssl"
        if tls not in TLS_MODES:
            raise InvalidInputError(f"tls: must be one of {', '.join(TLS_MODES)}", field="tls")
        folders = [str(f) for f in fields.get("folders") or []]
        if folders and fields.get("all_folders"):
            raise InvalidInputError("give folders or all_folders, not both", field="folders")
        host, user = str(fields.get("host") or "").strip(), str(fields.get("user") or "").strip()
        if not host or not user:
            raise InvalidInputError(
                "host and user are required", field="host" if not host else "user"
            )
        if any(c.isspace() or not c.isprintable() or c in "/@" for c in host):
            raise InvalidInputError(
                "host: must be a host name or address, without spaces, '/' or '@'", field="host"
            )
        given = fields.get("port")
        port = default_port(tls) if given is None else int(given)
        if not 1 <= port <= 65535:
            raise InvalidInputError(f"port: {port} is not between 1 and 65535", field="port")
        account = Account(
            name=str(fields.get("name") or f"{user}@{host}"),
            host=host,
            port=port,
            user=user,
            tls=tls,
            folders=folders or ["INBOX"],
            all_folders=bool(fields.get("all_folders")),
            ca_file=fields.get("ca_file") or None,
            insecure=bool(fields.get("insecure")),
            collection=str(fields.get("collection") or "default"),
        )
        check_transport(account)
        try:
            followed = check_login(account, password, self.settings.mail.timeout_seconds)
        except MailServerError as exc:
            # the host and port are what the person gave: a server not reached is their input
            # to correct (400 naming the host), not a fault of Hearth's
            raise InvalidInputError(str(exc), field="host") from None
        self.store.add(account, password)
        if self.settings.mail.follow and self.followers_running:
            self._follow(account.name)
        return {**account.public(), "followed_folders": followed}

    def remove(self, name: str) -> dict[str, Any]:
        """Stop following ``name``, remove its documents from every store, forget it."""
        account = self.store.get(name)
        with self._guard:
            follower = self.followers.pop(name, None)
        if follower is not None:
            follower.stop()
        removed = remove_account_documents(self.pipeline.kb, account)
        self.store.remove(name)
        return {"name": name, "removed_documents": len(removed)}

    def sync(self, name: str | None = None) -> list[dict[str, object]]:
        """Sync one account (or every one) now; errors are raised, naming the account."""
        accounts = [self.store.get(name)] if name else self.store.accounts()
        reports = []
        for account in accounts:
            sync = MailSync(self.pipeline, self.store, self.settings.mail)
            reports.append(sync.sync(account).as_dict())
        return reports

    followers_running = False

    def start(self) -> None:
        """Follow every account that is followed (``mail.follow``); returns at once."""
        if not self.settings.mail.follow:
            return
        self.followers_running = True
        for account in self.store.accounts():
            if account.following:
                self._follow(account.name)

    def _follow(self, name: str) -> None:
        sync = MailSync(self.pipeline, self.store, self.settings.mail)
        with self._guard:
            self.followers[name] = MailFollower(sync, name).start()

    def stop(self) -> None:
        """Stop every follower."""
        self.followers_running = False
        with self._guard:
            followers, self.followers = list(self.followers.values()), {}
        for follower in followers:
            follower.stop_event.set()
        for follower in followers:
            follower.stop()
