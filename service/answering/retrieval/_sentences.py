"""Where a fitted passage left sentences out; its sentences are ``core.text.split_sentences``."""

from __future__ import annotations

from core.text import split_sentences

#: Marks where sentences were left out of a passage.
GAP = " … "

__all__ = ["GAP", "split_sentences"]
