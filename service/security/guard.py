"""The ASGI middleware that refuses foreign hosts and cross-site state changes, on every route.

1. Every request (any method, HTTP or websocket) must carry a ``Host`` this server serves
   (:class:`service.security.hosts.ServedHosts`), else 421: DNS rebinding cannot read the library.
2. A request that may change state (any method but GET, HEAD, OPTIONS; every websocket) from a
   browser page of another origin is refused, 403: ``Sec-Fetch-Site`` other than
   ``same-origin``/``none``, or an ``Origin`` other than this server's (``null`` included).
   Browsers send ``Origin`` on every such request, same-origin ones too, so a request without
   it comes from a program (curl, the OpenAI SDK, Hearth's own clients) and passes.
3. A body such a request carries must not be ``text/plain`` or ``application/x-www-form-urlencoded``
   (the types an HTML form sends cross-site without asking; Hearth's routes take JSON or
   multipart), 415. A multipart body is a browser's only from a same-origin page (rule 2).

No ``Access-Control-Allow-Origin`` is ever sent (CORS stays closed), so a page of another
origin cannot read an answer either. Refusals use Hearth's error shape, OpenAI's on ``/v1/``,
and name the header at fault.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

from core.settings import ServerSettings
from service.security.hosts import HostPort, ServedHosts, parse_host, same_origin

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SIMPLE_BODIES = frozenset({"text/plain", "application/x-www-form-urlencoded"})
SAME_SITE_OK = frozenset({"same-origin", "none"})
MAX_ECHO = 80  # characters of a refused header value quoted back


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused: status, error name, the header at fault, and a message."""

    status: int
    error: str
    header: str
    message: str
    code: str

    def body(self, path: str) -> dict[str, Any]:
        """OpenAI's error shape on /v1 routes, Hearth's elsewhere."""
        if path.startswith("/v1/"):
            return {
                "error": {
                    "message": self.message,
                    "type": "invalid_request_error",
                    "param": self.header,
                    "code": self.code,
                }
            }
        return {"error": self.error, "detail": self.message, "field": self.header}


async def send_refusal(scope: Scope, send: Send, refusal: Refusal) -> None:
    """Answer an HTTP request with ``refusal`` (JSON, in the route's error shape)."""
    body = json.dumps(refusal.body(scope.get("path", ""))).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _headers(scope: Scope) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in scope.get("headers", []):
        out.setdefault(key.decode("latin-1").lower(), []).append(value.decode("latin-1"))
    return out


def _quote(value: str) -> str:
    return repr(value if len(value) <= MAX_ECHO else value[:MAX_ECHO] + "...")


class RequestGuard:
    """ASGI middleware applying the three rules of this module; ``server`` gives the bind
    address and ``allowed_hosts`` (``core.settings.ServerSettings``)."""

    def __init__(self, app: ASGIApp, server: ServerSettings) -> None:
        self.app = app
        self.served = ServedHosts(server.host, list(server.allowed_hosts))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
        elif scope["type"] == ScopeType.WEBSOCKET:  # before accept: the handshake gets a 403
            await send({"type": "websocket.close", "code": 1008, "reason": refusal.error})
        else:
            await send_refusal(scope, send, refusal)

    def refusal(self, scope: Scope) -> Refusal | None:
        """None when the request may pass, else why not."""
        headers = _headers(scope)
        hosts = headers.get("host", [])
        host = parse_host(hosts[0]) if len(hosts) == 1 else None
        if host is None or not self.served.serves(host):
            shown = _quote(", ".join(hosts)) if hosts else "none"
            return Refusal(
                421,
                "MisdirectedRequest",
                "Host",
                f"Hearth does not serve the host {shown} (Host header); it answers "
                f"{self.served.describe()}",
                "host_not_served",
            )
        method = str(scope.get("method", ""))
        websocket = scope["type"] == ScopeType.WEBSOCKET
        if method in SAFE_METHODS and not websocket:
            return None
        what = "a websocket" if websocket else f"{method} {scope.get('path', '')}"
        return self._cross_site(headers, host, what) or self._simple_body(headers, what)

    def _cross_site(
        self, headers: dict[str, list[str]], host: HostPort, what: str
    ) -> Refusal | None:
        site = (headers.get("sec-fetch-site") or [""])[0].strip().lower()
        if site and site not in SAME_SITE_OK:
            return Refusal(
                403,
                "CrossSiteRequest",
                "Sec-Fetch-Site",
                f"{what} refused: the browser sent it from a page that is not Hearth's "
                f"(Sec-Fetch-Site: {_quote(site)}); only Hearth's own pages may change its state",
                "cross_site_request",
            )
        for origin in headers.get("origin", []):
            if not same_origin(origin, host):
                return Refusal(
                    403,
                    "CrossSiteRequest",
                    "Origin",
                    f"{what} refused: it comes from a page of another origin (Origin: "
                    f"{_quote(origin)}); only Hearth's own pages may change its state",
                    "cross_site_request",
                )
        return None

    def _simple_body(self, headers: dict[str, list[str]], what: str) -> Refusal | None:
        kind = (headers.get("content-type") or [""])[0].split(";")[0].strip().lower()
        if kind not in SIMPLE_BODIES:
            return None
        return Refusal(
            415,
            "UnsupportedMediaType",
            "Content-Type",
            f"{what} refused: a body of Content-Type {kind} is not taken (an HTML form of any "
            "site can send one); send application/json, or multipart/form-data for files",
            "unsupported_content_type",
        )
