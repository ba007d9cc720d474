"""Following a mail account between syncs: IMAP IDLE where the server has it, polling otherwise.

A :class:`MailFollower` syncs its account, then waits: on a server with IDLE it keeps one
connection idling on INBOX (or the account's first folder) and syncs as soon as the server
reports a change (or, when it starts, the folder holds another number of messages than the sync
read: one arrived in between), and at least every ``mail.poll_seconds`` for the other folders;
without IDLE it syncs every ``mail.poll_seconds``. A failed sync (server gone, refused login)
is retried after 5 s, doubling each time up to ``poll_seconds``; after ``mail.max_failures``
failures in a row the follower stops following the account, says so in the log and in the
account's ``last_error`` (``hearth mail list``). Another process holding the writer lock only
delays a sync.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.errors import ConflictError, HearthError, NotFoundError
from ingest.mail.accounts import Account
from ingest.mail.sync import MailReport, MailSync
from ingest.mail.transport import NETWORK_ERRORS, connect, logout

if TYPE_CHECKING:
    from imapclient import IMAPClient

log = logging.getLogger(__name__)

FIRST_BACKOFF_S = 5.0
#: How often a wait looks at the stop event (seconds).
TICK_S = 0.5

OnReport = Callable[[MailReport], None]


class MailFollower:
    """Keeps one account in step until :meth:`stop`; runs in its own daemon thread."""

    def __init__(self, sync: MailSync, name: str, on_report: OnReport | None = None) -> None:
        self.sync = sync
        self.name = name
        self.on_report = on_report
        self.stop_event = threading.Event()
        self.synced = threading.Event()  # set after each successful sync (tests, benchmarks)
        self.syncs = 0
        self.failures = 0
        self.stopped_reason: str | None = None
        self.idling = threading.Event()  # set while an IDLE is in place
        #: Folder -> messages in it at the last sync (``MailReport.held``).
        self.held: dict[str, int] = {}
        self._thread: threading.Thread | None = None

    def start(self) -> MailFollower:
        """Follow in a daemon thread."""
        self._thread = threading.Thread(
            target=self.run, name=f"hearth-mail-{self.name}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop following and wait for the thread (a sync in progress finishes its message)."""
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self) -> None:
        """Sync, wait, sync again; returns when stopped or after too many failures."""
        settings = self.sync.settings
        while not self.stop_event.is_set():
            try:
                account = self.sync.store.get(self.name)
            except NotFoundError:
                return  # the account was removed
            if not account.following:
                return
            wait = self._sync_once(account)
            if wait is None:
                return
            if self.failures:
                self._sleep(wait)
                continue
            self._wait_for_change(account, settings.poll_seconds)

    def _sync_once(self, account: Account) -> float | None:
        """One sync; the seconds to wait before the next try after a failure, None to stop."""
        settings = self.sync.settings
        try:
            report = self.sync.sync(account)
        except ConflictError as exc:
            log.warning("mail %s: sync postponed: %s", self.name, exc.message)
            return settings.poll_seconds
        except HearthError as exc:
            self.failures += 1
            message = exc.message
            if self.failures >= settings.max_failures:
                self.stopped_reason = (
                    f"stopped following after {self.failures} failed syncs in a row: {message}"
                )
                log.error("mail %s: %s", self.name, self.stopped_reason)
                self.sync.store.record(self.name, error=self.stopped_reason, following=False)
                return None
            backoff = float(min(FIRST_BACKOFF_S * 2 ** (self.failures - 1), settings.poll_seconds))
            log.warning(
                "mail %s: sync failed (%d of %d): %s; next try in %.0f s",
                self.name,
                self.failures,
                settings.max_failures,
                message,
                backoff,
            )
            self.sync.store.record(self.name, error=message)
            return backoff
        self.failures = 0
        self.held = dict(report.held)
        self.syncs += 1
        self.synced.set()
        if self.on_report is not None:
            self.on_report(report)
        return 0.0

    def _sleep(self, seconds: float) -> None:
        self.stop_event.wait(seconds)

    def _wait_for_change(self, account: Account, seconds: float) -> None:
        """IDLE on the first folder until a change or ``seconds``; a plain wait without IDLE."""
        try:
            password = self.sync.store.password(account.name)
            client = connect(account, password, self.sync.settings.timeout_seconds)
        except HearthError:
            self._sleep(min(seconds, FIRST_BACKOFF_S))  # the next sync reports what is wrong
            return
        try:
            if not client.has_capability("IDLE"):
                logout(client)
                self._sleep(seconds)
                return
            folder = "INBOX" if account.all_folders else account.folders[0]
            self._idle(client, folder, seconds)
        except NETWORK_ERRORS as exc:
            log.info("mail %s: IDLE ended (%s)", self.name, type(exc).__name__)
        finally:
            self.idling.clear()
            logout(client)

    def _idle(self, client: IMAPClient, folder: str, seconds: float) -> None:
        renew = self.sync.settings.idle_seconds
        deadline = time.monotonic() + seconds
        status = client.select_folder(folder, readonly=True)
        if folder in self.held and int(status.get(b"EXISTS", -1)) != self.held[folder]:
            # changed between the sync and this connection's IDLE, which reports only what
            # changes after it starts: sync again now, not at the next poll
            log.info("mail %s: %s changed since the sync", self.name, folder)
            return
        while not self.stop_event.is_set() and time.monotonic() < deadline:
            client.idle()
            self.idling.set()
            until = min(deadline, time.monotonic() + renew)
            changed = False
            while not self.stop_event.is_set() and time.monotonic() < until:
                if client.idle_check(timeout=TICK_S):
                    changed = True
                    break
            self.idling.clear()
            client.idle_done()
            if changed:
                return
