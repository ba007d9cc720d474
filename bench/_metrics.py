"""Shared helpers of the benchmarks: text normalisation, edit distance, RSS."""

from __future__ import annotations

from core.evalmetrics import edit_distance
from core.evalmetrics import normalise_transcript as normalise

__all__ = ["edit_distance", "normalise", "rss_bytes"]


def rss_bytes() -> int:
    """Resident set size of this process."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0
