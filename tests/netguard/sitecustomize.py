"""Network guard for tests: put this folder first on PYTHONPATH and set HEARTH_NETGUARD_LOG.

Every Python process started that way (and every Python child it starts, which inherits the
environment) installs an audit hook that records, as one JSON line in the file named by
``HEARTH_NETGUARD_LOG``, every attempt to reach an address that is not loopback, and blocks it by
raising before anything leaves the machine: ``socket.connect`` / ``connect_ex`` / ``sendto`` /
``sendmsg`` to a non-loopback address, and ``getaddrinfo`` / ``gethostbyname`` /
``gethostbyaddr`` of a name other than localhost (a DNS lookup is itself a connection out).
Loopback (127.0.0.0/8, ::1, localhost) and AF_UNIX sockets pass. The first line each process
writes is an ``armed`` record, so a test can prove the guard was on and cannot pass vacuously.

Native code that opens sockets without going through Python's ``socket`` module is not seen.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import sys
import traceback
from typing import Any

_LOG = os.environ.get("HEARTH_NETGUARD_LOG")
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", ""}


def _is_loopback_host(host: Any) -> bool:
    if host is None:  # getaddrinfo(None, port): a local (passive) address
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    name = host.strip().lower().rstrip(".")
    if name in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(name.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _is_loopback_address(address: Any) -> bool:
    if isinstance(address, str | bytes):  # AF_UNIX path or abstract name
        return True
    if isinstance(address, tuple) and address:
        return _is_loopback_host(address[0])
    return False


def _record(event: str, detail: Any) -> None:
    if not _LOG:
        return
    stack = [f"{f.filename}:{f.lineno} {f.name}" for f in traceback.extract_stack()[-14:-2]]
    line = json.dumps({"event": event, "detail": repr(detail), "pid": os.getpid(), "stack": stack})
    with open(_LOG, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        sock, address = args[0], args[1]
        if getattr(sock, "family", None) == socket.AF_UNIX or _is_loopback_address(address):
            return
        _record(event, address)
        raise ConnectionRefusedError(f"netguard: blocked {event} to {address!r}")
    if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr"):
        host = args[0]
        if _is_loopback_host(host):
            return
        _record(event, host)
        raise socket.gaierror(socket.EAI_NONAME, f"netguard: blocked {event} of {host!r}")


if _LOG:
    with open(_LOG, "a", encoding="utf-8") as _fh:
        argv = getattr(sys, "argv", [])[:4]
        _fh.write(json.dumps({"event": "armed", "pid": os.getpid(), "argv": argv}) + "\n")
    sys.addaudithook(_hook)
