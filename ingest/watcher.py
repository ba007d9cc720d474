"""The folder watcher: keeps the knowledge base in step with folders, recursively.

It watches with ``watchfiles`` (OS events; polling on request), reconciles each folder with the
catalogue once the OS watch is in place (so nothing changed meanwhile is missed), then feeds every
event through a :class:`~ingest.debounce.Debouncer` and applies settled paths with a
:class:`~ingest.sync.FolderSync`. It runs in the calling thread (``hearth watch``) or in a
background thread (``hearth serve``); the caller must hold the data directory's writer lock.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from core.settings import WatchSettings
from ingest.debounce import Debouncer
from ingest.ignore import IgnoreRules
from ingest.pipeline import FileResult, IngestPipeline
from ingest.sync import FolderSync, SyncProgress

log = logging.getLogger(__name__)

TICK_MS = 200

OnResults = Callable[[list[FileResult]], None]


class FolderWatcher:
    """Watches ``sync.rules.roots`` and applies every change to the knowledge base."""

    def __init__(
        self,
        sync: FolderSync,
        settings: WatchSettings,
        *,
        on_results: OnResults | None = None,
        reconcile: bool = True,
    ) -> None:
        self.sync = sync
        self.settings = settings
        self.roots = sync.rules.roots
        self.debouncer = Debouncer(settings.quiet_seconds)
        self.on_results = on_results
        self.reconcile_first = reconcile
        self.stop_event = threading.Event()
        self.ready = threading.Event()  # set once the first reconcile is done
        self.batches = 0  # how many times changes were applied (for tests and benchmarks)
        self._busy = False
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    @property
    def idle(self) -> bool:
        """True when reconciled and no change is waiting or being applied."""
        return self.ready.is_set() and not self._busy and len(self.debouncer) == 0

    def run(self) -> None:
        """Watch until :meth:`stop` (or Ctrl-C); returns when stopped."""
        import watchfiles

        for root in self.roots:
            if not root.is_dir():
                from core.errors import InvalidInputError

                raise InvalidInputError(f"{root}: not a folder")
        changes_iter = watchfiles.watch(
            *self.roots,
            watch_filter=None,
            debounce=TICK_MS,
            step=50,
            rust_timeout=TICK_MS,
            yield_on_timeout=True,
            stop_event=self.stop_event,
            raise_interrupt=True,
            force_polling=self.settings.force_polling or None,
        )
        try:
            for changes in changes_iter:
                if not self.ready.is_set():
                    # The OS watch is now in place: whatever changes from here on is an event.
                    if self.reconcile_first:
                        self._apply(self.sync.reconcile)
                    self.ready.set()
                for _change, raw in changes:
                    self._note(Path(raw))
                due = self.debouncer.due()
                if due:
                    self._apply(functools.partial(self.sync.apply, due))
        except KeyboardInterrupt:
            log.info("watcher interrupted")
        finally:
            self.ready.set()

    def start(self) -> threading.Thread:
        """Run in a daemon thread; returns once the first reconcile is done."""

        def target() -> None:
            try:
                self.run()
            except BaseException as exc:  # kept in .error: the thread must not die silently
                self.error = exc
                log.error("folder watcher stopped: %s", type(exc).__name__)
                self.ready.set()

        self._thread = threading.Thread(target=target, name="hearth-watcher", daemon=True)
        self._thread.start()
        self.ready.wait()
        return self._thread

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the watcher to stop and wait for it (the current batch finishes first)."""
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _note(self, path: Path) -> None:
        """Mark a changed path (a folder stands for every file below it) as pending."""
        rules = self.sync.rules
        if path.is_dir():
            if not rules.dir_ignored(path):
                for file in rules.walk(path):
                    self.debouncer.touch(file)
            return
        if path.exists():
            if not rules.ignored(path):
                self.debouncer.touch(path)
            return
        # Vanished: a file, or a folder whose documents all went with it.
        self.debouncer.touch(path)
        for doc in self.sync.documents_under(path):
            self.debouncer.touch(doc)

    def _apply(self, job: Callable[[], list[FileResult]]) -> None:
        self._busy = True
        try:
            results = job()
            self.batches += 1
            if results and self.on_results:
                self.on_results(results)
        finally:
            self._busy = False


def create_watcher(
    pipeline: IngestPipeline,
    settings: WatchSettings,
    folders: list[Path],
    *,
    progress: SyncProgress | None = None,
    on_results: OnResults | None = None,
) -> FolderWatcher:
    """A watcher of ``folders`` with the ignore rules and batch size from ``settings``."""
    # The data directory may lie inside a watched folder: its own files are never knowledge.
    kb_settings = pipeline.kb.settings
    rules = IgnoreRules.from_settings(
        folders,
        settings,
        skip=[kb_settings.data_dir],
        follow_symlinks=kb_settings.ingest.follow_symlinks,
    )
    sync = FolderSync(pipeline, rules, batch_size=settings.batch_size, progress=progress)
    return FolderWatcher(sync, settings, on_results=on_results)
