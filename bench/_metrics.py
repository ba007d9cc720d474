"""Shared helpers of the benchmarks: text normalisation, edit distance, RSS."""

from __future__ import annotations

from core.evalmetrics import edit_distance
from core.evalmetrics import normalise_transcript as normalise
from core.memsize import process_rss

__all__ = ["edit_distance", "normalise", "rss_bytes"]


def rss_bytes() -> int:
    """Resident set size of this process."""
    return process_rss()
