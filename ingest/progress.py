"""The progress bar of a batch of ingests, on stderr: `hearth watch` and `hearth mail` draw it
(its own module so that ingest/commands.py and ingest/mail/commands.py do not import each other).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tqdm import tqdm

    from ingest.pipeline import FileResult


class ProgressBar:
    """A tqdm bar on stderr for each batch of ingests (implements ``SyncProgress``); nothing
    when ``quiet`` (and, as tqdm does, nothing off a terminal)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self._bar: tqdm[Any] | None = None

    def begin(self, total: int) -> None:
        """A bar of ``total`` files."""
        from tqdm import tqdm

        self._bar = tqdm(
            total=total, unit="file", disable=self.quiet or None, file=sys.stderr, desc="ingest"
        )

    def step(self, result: FileResult) -> None:
        """One file done; its action shown beside the bar."""
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix_str(result.action)

    def end(self) -> None:
        """The batch is done: the bar closes."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
