"""The gate every request passes: access tokens, and the request counter of ``/metrics``.

Once any access token is active (or the server listens beyond loopback), every route needs
``Authorization: Bearer <token>`` except ``/api/health`` and handlers marked ``opt={"public":
True}`` (for the web UI's static shell, which holds no data). The token table is read at every
request, so a token created or revoked from the CLI takes effect at once.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from anyio import to_thread
from litestar import Controller, Request, get
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.tokens.service import TokenStore, is_loopback

log = logging.getLogger(__name__)

PUBLIC_PATHS = frozenset({"/api/health"})


def bearer(scope: Scope) -> str | None:
    """The token of an ``Authorization: Bearer ...`` header, if any."""
    for key, value in scope.get("headers", []):
        if key == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


def unauthorized_body(path: str, message: str) -> dict[str, Any]:
    """OpenAI's error shape on /v1 routes, Hearth's elsewhere."""
    if path.startswith("/v1/"):
        return {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
        }
    return {"error": "Unauthorized", "detail": message}


class GateMiddleware:
    """ASGI middleware: count every response by route and status; require a token when due."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope["litestar_app"].state
        if scope["type"] != ScopeType.HTTP:  # websockets: the same rule, refused by closing
            if await self._refusal(scope, state) is None:
                await self.app(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008, "reason": "unauthorized"})
            return
        status = {"code": 500}

        async def counting_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            reason = await self._refusal(scope, state)
            if reason is None:
                await self.app(scope, receive, counting_send)
            else:
                await self._deny(scope, counting_send, reason)
        finally:
            metrics = getattr(state, "metrics", None)
            if metrics is not None:
                route = scope.get("path_template") or "unmatched"
                method = str(scope.get("method", ""))
                metrics.requests.labels(route, method, str(status["code"])).inc()

    async def _refusal(self, scope: Scope, state: Any) -> str | None:
        """None when the request may pass, else why not (the 401's message)."""
        handler = scope.get("route_handler")
        if scope.get("path_template") in PUBLIC_PATHS or (handler and handler.opt.get("public")):
            return None
        store: TokenStore | None = getattr(state, "tokens", None)
        if store is None:
            return None
        token = bearer(scope)
        active, token_id = await to_thread.run_sync(store.check, token)
        open_bind = not is_loopback(state.hearth.settings.server.host)
        scope.setdefault("state", {})["auth"] = {
            "auth_required": bool(active) or open_bind,
            "token_id": token_id,
        }
        if token_id is not None or (active == 0 and not open_bind):
            return None
        if token is None:
            return (
                "this Hearth requires an access token: send 'Authorization: Bearer <token>' "
                "(create one with 'hearth tokens create')"
            )
        return "the access token is not valid (unknown or revoked)"

    async def _deny(self, scope: Scope, send: Send, reason: str) -> None:
        body = json.dumps(unauthorized_body(scope["path"], reason)).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="hearth"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})


class AuthController(Controller):
    """Signing in: a cheap check of a token for the web UI and other clients."""

    path = "/api/auth"
    tags = ["auth"]

    @get("/check", sync_to_thread=False)
    def check(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        """200 when the request may use the API: ``auth_required`` says whether a token is
        needed at all, ``token_id`` names the token sent (null when none was needed). 401 with
        a reason when a token is required and missing, unknown or revoked."""
        auth = dict(request.scope.get("state", {}).get("auth") or {})
        return {
            "ok": True,
            "auth_required": bool(auth.get("auth_required")),
            "token_id": auth.get("token_id"),
        }
