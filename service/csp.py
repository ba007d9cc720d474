"""Security headers on every response of the app: a Content-Security-Policy that allows only this
origin (plus ``data:``/``blob:`` images and media), no MIME sniffing, no referrer. A ``before_send``
hook, so it also covers responses no route handler made (404 for an unknown path, the access gate's
401) and error responses."""

from __future__ import annotations

from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.types import Message, Scope

from service.ui.routes import SECURITY_HEADERS


async def add_security_headers(message: Message, scope: Scope) -> None:
    """``before_send`` hook: add the security headers to an HTTP response that lacks them."""
    if scope["type"] != ScopeType.HTTP or message["type"] != "http.response.start":
        return
    headers = MutableScopeHeaders.from_message(message)
    for name, value in SECURITY_HEADERS.items():
        if name not in headers:
            headers[name] = value
