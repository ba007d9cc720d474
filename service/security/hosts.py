"""Which ``Host`` and ``Origin`` values belong to this server (pure logic, no I/O).

A DNS-rebinding page reaches Hearth under the attacker's own name, so the ``Host`` header is
what tells it apart: Hearth answers loopback (``127.0.0.0/8``, ``[::1]``, ``localhost``), the
address it is bound to, any IP address when bound to every interface (``0.0.0.0``, ``::``; an
address in the URL is never a rebinding), and the names of ``server.allowed_hosts``. A port in
``Host`` is not compared (proxies change it). An ``Origin`` is this server's when its host and
port are those of the request's ``Host``: the definition of same-origin.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::"})


@dataclass(frozen=True)
class HostPort:
    """A parsed ``Host`` value: the name or address (lower case, no brackets, no final dot) and
    the port when one was given."""

    host: str
    port: int | None


def parse_host(value: str) -> HostPort | None:
    """``"Example.org:8377"`` -> ``HostPort("example.org", 8377)``; ``"[::1]"`` -> ``("::1",
    None)``; None for a value that is not a host (empty, a path, user info, a bad port)."""
    value = value.strip()
    if not value or any(c in value for c in "/?#@\\ "):
        return None
    try:
        parts = urlsplit(f"//{value}")
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".")
    return HostPort(host, port) if host else None


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


class ServedHosts:
    """The hosts and origins one server answers, from its bind address and allowed names."""

    def __init__(self, bind: str, allowed: list[str]) -> None:
        bind = bind.strip().strip("[]").lower()
        self.any_ip = bind in WILDCARD_BINDS
        self.any_host = "*" in allowed
        names = {"localhost"}
        for entry in [*allowed, bind]:
            ip = _ip(entry.strip("[]"))
            parsed = HostPort(str(ip), None) if ip is not None else parse_host(entry)
            if parsed is not None and entry not in WILDCARD_BINDS:
                names.add(parsed.host)
        self.names = frozenset(names)

    def serves(self, host: HostPort) -> bool:
        """True when a request for ``host`` is for this server."""
        if self.any_host or host.host in self.names:
            return True
        ip = _ip(host.host)
        if ip is None:
            return False
        return ip.is_loopback or self.any_ip or str(ip) in self.names

    def describe(self) -> str:
        """The hosts served, for an error message (the configured names are not listed: a
        rebinding page can read the refusal)."""
        if self.any_host:
            return "any host"
        address = "any IP address of this machine" if self.any_ip else "the address it is bound to"
        return f"127.0.0.1, localhost, [::1], {address} and the names of server.allowed_hosts"


def same_origin(origin: str, host: HostPort) -> bool:
    """True when ``origin`` (``scheme://host[:port]``) is the origin the request's ``Host``
    names: same host, same port (the scheme's default port when either leaves it out)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return False
    default = DEFAULT_PORTS.get(parts.scheme.lower())
    if default is None or not parts.hostname or parts.path not in ("", "/"):
        return False
    return parts.hostname.rstrip(".") == host.host and (port or default) == (host.port or default)
