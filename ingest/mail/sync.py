"""One incremental sync of a mail account: the catalogue brought in step with the server.

Where a sync stopped is read from the catalogue itself: every message is a document at
``imap://USER@HOST/FOLDER/UIDVALIDITY/UID`` (:mod:`ingest.mail.keys`), committed one message at
a time, so a message is "seen" exactly when its document exists, and a sync cut short by a server
gone away resumes with the next one, nothing fetched twice and nothing skipped. Per followed
folder the sync compares the server's (UIDVALIDITY, UID) pairs with the documents':

- a pair the catalogue lacks is fetched (``mail.fetch_batch`` messages per round trip);
  a message over ``mail.max_message_bytes`` is recorded as failed, not downloaded;
- a document whose pair the server no longer has (deleted, moved to another folder, or its folder
  given a new UIDVALIDITY) is *vanished*: a new message with the same content hash takes its
  document (path renamed, with its attachments; nothing re-embedded), and the vanished documents
  left at the end are removed from every store. So a changed UIDVALIDITY resyncs the folder
  without duplicating anything, and a message moved between followed folders is followed.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from core import catalogue
from core.catalogue import Action
from core.knowledge import KnowledgeBase
from core.lock import WriterLock
from core.settings import MailSettings
from ingest.mail.accounts import Account, AccountStore
from ingest.mail.keys import message_key, parse_key
from ingest.mail.messages import Fetched, MessageWriter
from ingest.mail.removal import remove_messages
from ingest.mail.transport import (
    NETWORK_ERRORS,
    MailServerError,
    connect,
    describe,
    followed_folders,
    logout,
)
from ingest.pipeline import FileResult, IngestPipeline

if TYPE_CHECKING:
    from imapclient import IMAPClient

log = logging.getLogger(__name__)

# One sync of an account at a time in this process (other processes: the writer lock).
_RUNNING: dict[str, threading.Lock] = {}
_RUNNING_GUARD = threading.Lock()


class MailProgress(Protocol):
    """Progress of a sync's downloads (the CLI draws a tqdm bar)."""

    def begin(self, total: int) -> None:
        """``total`` messages are about to be fetched."""
        ...

    def step(self, result: FileResult) -> None:
        """One message is done (added, moved, failed...)."""
        ...

    def end(self) -> None:
        """The sync is over."""
        ...


@dataclass
class MailReport:
    """What one sync of one account did; ``results`` has one entry per message changed."""

    account: str
    folders: list[str] = field(default_factory=list)
    results: list[FileResult] = field(default_factory=list)
    unchanged: int = 0
    seconds: float = 0.0
    #: Folder -> messages the server held in it when the sync read it (its EXISTS): a follower
    #: that finds another count when it starts to IDLE syncs again (a message that arrived in
    #: between is one IDLE would never report).
    held: dict[str, int] = field(default_factory=dict)

    def count(self, action: str) -> int:
        """Messages that ended with this action (``added``, ``moved``, ``removed``...)."""
        return sum(1 for r in self.results if r.action == action and "#" not in r.path)

    @property
    def failures(self) -> list[FileResult]:
        """Messages recorded as failed, with their reasons."""
        return [r for r in self.results if r.action == Action.FAILED]

    def summary(self) -> str:
        """One line: ``NAME: added 3, moved 1, removed 0, failed 0, unchanged 200 (1.2 s)``."""
        carried = sum(r.attachments for r in self.results)
        counts = ", ".join(
            f"{a} {self.count(a)}"
            for a in (Action.ADDED, Action.EMPTY, Action.MOVED, Action.REMOVED, Action.FAILED)
        )
        extra = f", attachments {carried}" if carried else ""
        return (
            f"{self.account}: {counts}, unchanged {self.unchanged}{extra} "
            f"({len(self.folders)} folders, {self.seconds:.1f} s)"
        )

    def as_dict(self) -> dict[str, object]:
        """The report as JSON (``POST /api/mail/sync``)."""
        return {
            "account": self.account,
            "folders": self.folders,
            "added": self.count(Action.ADDED) + self.count(Action.EMPTY),
            "moved": self.count(Action.MOVED),
            "removed": self.count(Action.REMOVED),
            "failed": [{"path": r.path, "error": r.error} for r in self.failures],
            "unchanged": self.unchanged,
            "attachments": sum(r.attachments for r in self.results),
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class _Known:
    id: int
    key: str
    sha256: str | None
    read_as_now: bool  # read as it would be now (ingest/reading.py); else fetched again


def _read_as_now(known: _Known | None) -> bool:
    """A message is fetched when it is new, or known but read otherwise than it would be now
    (a mended e-mail reader reads the mailbox's old messages again)."""
    return known is not None and known.read_as_now


def _running(prefix: str) -> threading.Lock:
    with _RUNNING_GUARD:
        return _RUNNING.setdefault(prefix, threading.Lock())


class MailSync:
    """Syncs accounts into the knowledge base of ``pipeline``."""

    def __init__(
        self,
        pipeline: IngestPipeline,
        store: AccountStore,
        settings: MailSettings,
        progress: MailProgress | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.kb = pipeline.kb
        self.store = store
        self.settings = settings
        self.progress = progress

    def sync(self, account: Account) -> MailReport:
        """Bring the account's documents in step with its server (under the writer lock).

        Raises MailAuthError for a refused login, MailServerError when the server cannot be
        reached or breaks off (what was committed before stays), ConflictError when another
        process holds the writer lock.
        """
        started = time.perf_counter()
        report = MailReport(account.name)
        password = self.store.password(account.name)
        with _running(account.prefix), WriterLock.for_settings(self.kb.settings):
            client = connect(account, password, self.settings.timeout_seconds)
            try:
                self._sync(client, account, report)
            except NETWORK_ERRORS as exc:
                raise MailServerError(
                    f"mail account {account.name}: the sync stopped: {describe(exc)}; "
                    "what was fetched is kept and the next sync goes on from there"
                ) from None
            finally:
                logout(client)
                self.kb.persist()
                report.seconds = time.perf_counter() - started
        now = datetime.now(UTC).isoformat(timespec="seconds")
        self.store.record(account.name, last_sync=now, error=None)
        return report

    def _sync(self, client: IMAPClient, account: Account, report: MailReport) -> None:
        report.folders = followed_folders(client, account)
        known = self._known(account)
        present: set[tuple[str, int, int]] = set()
        todo: list[tuple[str, int, list[int]]] = []
        for folder in report.folders:
            status = client.select_folder(folder, readonly=True)
            uidvalidity = int(status[b"UIDVALIDITY"])
            uids = sorted(int(u) for u in client.search("ALL"))
            report.held[folder] = len(uids)
            present.update((folder, uidvalidity, u) for u in uids)
            new = [u for u in uids if not _read_as_now(known.get((folder, uidvalidity, u)))]
            report.unchanged += len(uids) - len(new)
            log.debug(
                "mail %s: %s (UIDVALIDITY %d): %d on the server, %d new",
                account.name,
                folder,
                uidvalidity,
                len(uids),
                len(new),
            )
            if new:
                todo.append((folder, uidvalidity, new))
        vanished = {k: v for k, v in known.items() if k not in present}
        by_sha: dict[str, list[str]] = {}
        for doc in sorted(vanished.values(), key=lambda d: d.key):
            if doc.sha256:
                by_sha.setdefault(doc.sha256, []).append(doc.key)
        total = sum(len(uids) for _f, _v, uids in todo)
        writer = MessageWriter(self.pipeline, account.name, account.collection)
        if self.progress and total:
            self.progress.begin(total)
        try:
            for folder, uidvalidity, uids in todo:
                client.select_folder(folder, readonly=True)
                for start in range(0, len(uids), self.settings.fetch_batch):
                    part = uids[start : start + self.settings.fetch_batch]
                    batch = self._fetch(client, account, folder, uidvalidity, part)
                    fresh: list[Fetched] = []
                    for item in batch:
                        old = by_sha.get(item.sha256 or "")
                        if old:
                            report.results.append(self._move(old.pop(0), item.key))
                            self._step(report.results[-1])
                        else:
                            fresh.append(item)
                    for result in writer.write(fresh):
                        report.results.append(result)
                        self._step(result)
            gone = sorted(
                {k for keys in by_sha.values() for k in keys}
                | {d.key for d in vanished.values() if not d.sha256}
            )
            if gone:
                report.results += remove_messages(self.kb, gone)
        finally:
            if self.progress and total:
                self.progress.end()

    def _step(self, result: FileResult) -> None:
        if self.progress:
            self.progress.step(result)

    def _fetch(
        self, client: IMAPClient, account: Account, folder: str, uidvalidity: int, uids: list[int]
    ) -> list[Fetched]:
        """Sizes first; then the bytes (``BODY.PEEK[]``: no \\Seen flag) of those within the
        limit. A UID expunged meanwhile is simply absent."""
        limit = self.settings.max_message_bytes
        sizes = {
            int(u): int(d.get(b"RFC822.SIZE", 0))
            for u, d in client.fetch(uids, ["RFC822.SIZE"]).items()
        }
        wanted = [u for u in uids if u in sizes and sizes[u] <= limit]
        bodies = client.fetch(wanted, ["BODY.PEEK[]"]) if wanted else {}
        out: list[Fetched] = []
        for uid in uids:
            if uid not in sizes:
                continue
            key = message_key(account.user, account.host, folder, uidvalidity, uid)
            if sizes[uid] > limit:
                reason = (
                    f"{sizes[uid]} bytes is over the {limit} byte limit "
                    "(setting mail.max_message_bytes)"
                )
                out.append(Fetched(key, folder, uid, None, sizes[uid], reason))
                continue
            data = bodies.get(uid, {}).get(b"BODY[]")
            if not isinstance(data, bytes):
                out.append(Fetched(key, folder, uid, None, sizes[uid], "the server sent no body"))
                continue
            out.append(Fetched(key, folder, uid, data, len(data)))
        return out

    def _move(self, old: str, new: str) -> FileResult:
        """Give the document at ``old`` (and what it carries) the path ``new``; no re-embedding."""
        with self.kb.db.session() as s:
            doc = catalogue.document_at(s, old)
            if doc is None:  # pragma: no cover - removed meanwhile by another writer
                return FileResult(new, Action.FAILED, error=f"{old}: gone before its move")
            carried = catalogue.documents_by_id(s, catalogue.descendant_ids(s, [doc.id]))
            for child in carried.values():
                if child.path.startswith(old + "#"):
                    child.path = new + child.path[len(old) :]
            doc.path = new
            for key, action in ((old, Action.MOVED_AWAY), (new, Action.MOVED)):
                catalogue.ledger(s, key, doc.sha256, action, chunks=doc.chunk_count)
            return FileResult(new, Action.MOVED, doc.chunk_count)

    def _known(self, account: Account) -> dict[tuple[str, int, int], _Known]:
        readings = self.pipeline.readings
        with self.kb.db.session() as s:
            docs = catalogue.documents_under(s, account.prefix)
            carried = catalogue.carried_readings(s, [d.id for d in docs])
            out = {}
            for d in docs:
                parts = parse_key(account.prefix, d.path)
                if parts is not None:
                    now = readings.current(d.file_type, d.reading, carried.get(d.id))
                    out[(parts.folder, parts.uidvalidity, parts.uid)] = _Known(
                        d.id, d.path, d.sha256, now
                    )
            return out


def account_documents(kb: KnowledgeBase, account: Account) -> tuple[int, int]:
    """How many documents the account has: (messages, all documents with attachments)."""
    with kb.db.session() as s:
        paths = catalogue.paths_under(s, account.prefix)
    messages = sum(1 for p in paths if parse_key(account.prefix, p) is not None)
    return messages, len(paths)


def remove_account_documents(kb: KnowledgeBase, account: Account) -> list[FileResult]:
    """Remove every document of the account (messages and attachments) under the writer lock."""
    with _running(account.prefix), WriterLock.for_settings(kb.settings):
        with kb.db.session() as s:
            paths = catalogue.paths_under(s, account.prefix)
        return remove_messages(kb, paths)
