"""The ASGI middleware that refuses a NUL character in a request's text, on every route.

A NUL (U+0000) is valid in a URL (``%00``) and in JSON (``"\\u0000"``) but in no name, question
or setting a person types, and PostgreSQL refuses to store or even compare it (psycopg raises
``ValueError`` on the query, which would surface as a 500). So a request whose path, query
parameters or JSON body holds one is answered 400 naming where it is
(``query parameter 'collection'``, ``body field 'messages[0].content'``) before any route runs,
on SQLite and Postgres alike. Uploaded files are not text of the request: their bytes are the
loaders' business. Multipart text fields are checked by the routes that take them.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send

from service.security.guard import Refusal, send_refusal

#: ``\u0000`` in JSON text: a NUL, unless the backslash is itself escaped (checked by parsing).
_JSON_NUL = re.compile(rb"\\u0000")
_KEEP = 6  # bytes kept between chunks so an escape split across two is still seen


def _where_nul(value: Any, path: str = "") -> str | None:
    """The JSON path of the first string (key or value) in ``value`` that holds a NUL."""
    if isinstance(value, str):
        return path or "body" if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            if "\x00" in str(key):
                return here
            found = _where_nul(item, here)
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _where_nul(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _refusal(where: str) -> Refusal:
    shown = where.replace("\x00", "\\0")
    return Refusal(
        400,
        "InvalidInput",
        shown,
        f"{shown}: contains a NUL character (U+0000), which Hearth does not take in text",
        "nul_character",
    )


def _json_body(scope: Scope) -> bool:
    for key, value in scope.get("headers", []):
        if key.lower() == b"content-type":
            kind = value.decode("latin-1").split(";")[0].strip().lower()
            return kind == "application/json" or kind.endswith("+json")
    return False


class NulGuard:
    """ASGI middleware applying this module's rule; ``max_body`` (bytes) bounds how much of a
    JSON body is held to be checked (a larger one passes on, for the app's own 413)."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        where = self.in_url(scope)
        if where:
            await send_refusal(scope, send, _refusal(where))
            return
        if not _json_body(scope):
            await self.app(scope, receive, send)
            return
        held: list[ReceiveMessage] = []
        size, seen, tail = 0, False, b""
        while True:
            message = await receive()
            held.append(message)
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            seen = seen or bool(_JSON_NUL.search(tail + chunk))
            tail = (tail + chunk)[-_KEEP:]
            if not message.get("more_body", False) or size > self.max_body:
                break
        if seen and size <= self.max_body:
            body = b"".join(m.get("body", b"") for m in held if m["type"] == "http.request")
            try:
                found = _where_nul(json.loads(body))
            except ValueError:
                found = None  # not JSON: the route's decoder says so
            if found:
                await send_refusal(scope, send, _refusal(f"body field {found!r}"))
                return

        async def replay() -> ReceiveMessage:
            return held.pop(0) if held else await receive()

        await self.app(scope, replay, send)

    @staticmethod
    def in_url(scope: Scope) -> str | None:
        """Where in the path or query string a NUL is, or None."""
        if "\x00" in str(scope.get("path", "")):
            return "path"
        query = scope.get("query_string", b"").decode("latin-1")
        if "%00" not in query and "\x00" not in query:
            return None
        for key, value in parse_qsl(query, keep_blank_values=True, errors="replace"):
            if "\x00" in key or "\x00" in value:
                return f"query parameter {key!r}"
        return None
