"""Sizes people write ("6GB", "6GiB", "512MiB", "60%", bytes) and this machine's memory."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re

from core.errors import ConfigError

_UNITS = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "m": 1000**2,
    "mb": 1000**2,
    "g": 1000**3,
    "gb": 1000**3,
    "t": 1000**4,
    "tb": 1000**4,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")
_SHARE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")
MIB = 1024**2


def parse_size(value: str | int, field: str = "size") -> int:
    """Bytes from ``6GB`` (10^9), ``6GiB`` (2^30), ``512MiB`` or a plain number of bytes."""
    if isinstance(value, int):
        if value <= 0:
            raise ConfigError(f"{field}: must be positive, got {value}", field=field)
        return value
    match = _SIZE.match(str(value))
    unit = match.group(2).lower() if match else ""
    if not match or unit not in _UNITS:
        raise ConfigError(
            f"{field}: {value!r} is not a size; write bytes, 6GB, 6GiB, 512MiB or a share like 60%",
            field=field,
        )
    size = int(float(match.group(1)) * _UNITS[unit])
    if size <= 0:
        raise ConfigError(f"{field}: must be positive, got {value!r}", field=field)
    return size


def parse_budget(
    value: str | int, available: int | None = None, field: str = "memory_budget"
) -> int:
    """Bytes of a budget: a size, or ``NN%`` of the memory available now."""
    share = _SHARE.match(value) if isinstance(value, str) else None
    if share:
        pct = float(share.group(1))
        if not 0 < pct <= 100:
            raise ConfigError(
                f"{field}: {value!r} must be a share between 0% and 100%", field=field
            )
        return int((available if available is not None else available_memory()) * pct / 100)
    return parse_size(value, field)


def available_memory() -> int:
    """``MemAvailable`` from /proc/meminfo (falls back to total physical memory)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def current_rss() -> int:
    """Resident set size of this process in bytes."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * int(os.sysconf("SC_PAGE_SIZE"))


def process_rss(pid: int | str = "self") -> int:
    """``VmRSS`` of process ``pid`` (this one by default) in bytes; 0 once it has gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def current_anon() -> int:
    """Anonymous resident memory of this process (``RssAnon``): heap and KV/compute buffers,
    not the memory-mapped model file."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def human(n: int) -> str:
    """``1234567890`` -> ``1177.4 MiB``; sizes in the plan are shown in MiB."""
    return f"{n / MIB:.1f} MiB"


M_ARENA_MAX = -8  # glibc's mallopt parameter


def limit_malloc_arenas(count: int = 2) -> bool:
    """Cap glibc's malloc arenas before a server starts its threads. By default each thread
    may get its own arena (8 per core) and a busy threaded server's RSS creeps up from
    fragmentation: a 1,000-request load grew RSS 7.2% with the default, 3.4% with 2 arenas.
    ``MALLOC_ARENA_MAX`` in the environment wins; False where this is not glibc."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, count))
    except (OSError, AttributeError):
        return False


def trim_heap() -> None:
    """Hand the heap's free pages back to the system (glibc ``malloc_trim``; a no-op
    elsewhere). glibc keeps what a process frees for its next allocations: indexes that grow by
    reallocating (FAISS lists, Chroma's HNSW) leave much of their old buffers there (118 MiB
    of a 268k-vector FAISS index's heap was free at its end)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
