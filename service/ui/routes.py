"""Serve the web UI: the page at ``/`` and its assets at ``/static/...``, all from this package.

Every response carries a Content-Security-Policy that allows only this origin, so the page can
load nothing from elsewhere and never runs inline script."""

from __future__ import annotations

from pathlib import Path

from litestar import Response, Router, get
from litestar.datastructures import CacheControlHeader
from litestar.handlers import HTTPRouteHandler
from litestar.static_files import create_static_files_router

STATIC_DIR = Path(__file__).resolve().parent / "static"

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "media-src 'self' blob:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def _secure(response: Response[object]) -> Response[object]:
    """After-request hook: add the security headers to a UI response."""
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


# The page and its assets are public: the page itself asks for a token when the API needs one.
@get("/", include_in_schema=False, sync_to_thread=False, opt={"public": True})
def index() -> Response[bytes]:
    """The single page of the web UI."""
    html = (STATIC_DIR / "index.html").read_bytes()
    return Response(html, media_type="text/html", headers=SECURITY_HEADERS)


def ui_routes() -> list[HTTPRouteHandler | Router]:
    """Route handlers for the app factory: the page and the static files router."""
    static = create_static_files_router(
        path="/static",
        directories=[STATIC_DIR],
        name="ui-static",
        after_request=_secure,
        cache_control=CacheControlHeader(no_cache=True),
        include_in_schema=False,
        opt={"public": True},
    )
    return [index, static]
