"""Building sections: under a heading path (every loader that knows headings), or as runs of
consecutive pieces of text (a recording's segments, a page's OCR lines)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from core.types import Section


class _Texted(Protocol):
    @property
    def text(self) -> str: ...


T = TypeVar("T", bound=_Texted)


def word_runs(
    items: Sequence[T], max_words: int, cut: Callable[[list[T], T], bool]
) -> list[list[T]]:
    """``items`` in runs of consecutive ones, in order: a run ends before an item whose words
    (``text`` split on white space) would take it past ``max_words``, or when ``cut(run, item)``
    says so (a pause, a gap); an item longer than ``max_words`` is a run of its own. No empty
    run."""
    runs: list[list[T]] = []
    run: list[T] = []
    words = 0
    for item in items:
        n = len(item.text.split())
        if run and (words + n > max_words or cut(run, item)):
            runs.append(run)
            run, words = [], 0
        run.append(item)
        words += n
    if run:
        runs.append(run)
    return runs


class SectionBuilder:
    """Collects lines under the current heading path and cuts a section at each heading.

    A heading with no text of its own before the next heading makes no section; its title still
    stands in the heading path of what follows.
    """

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self._path: list[tuple[int, str]] = []
        self._lines: list[str] = []
        self._has_body = False

    def heading(self, level: int, title: str) -> None:
        """Start a section under a heading of this level (1 = top)."""
        self._flush()
        self._path = [(lv, t) for lv, t in self._path if lv < level] + [(level, title)]
        self._lines.append(title)

    def add(self, text: str) -> None:
        """Add a line of body text to the current section."""
        if text.strip():
            self._lines.append(text)
            self._has_body = True

    def _flush(self) -> None:
        if self._has_body:
            prov = {"heading": " > ".join(t for _, t in self._path)} if self._path else {}
            self.sections.append(Section("\n".join(self._lines).strip(), prov))
        self._lines = []
        self._has_body = False

    def finish(self) -> list[Section]:
        """Every section, in order."""
        self._flush()
        return self.sections
