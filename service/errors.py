"""The one place where errors become HTTP responses."""

from __future__ import annotations

import logging
import traceback
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import ClientException, HTTPException, SerializationException

from core.errors import (
    ConfigError,
    ConflictError,
    HearthError,
    InvalidInputError,
    LoaderError,
    ModelError,
    NotFoundError,
    OverloadedError,
    PayloadTooLargeError,
    UnavailableError,
    UnsupportedTypeError,
)
from service.viewer.errors import OriginalGoneError

log = logging.getLogger(__name__)

# Most specific first.
STATUS: list[tuple[type[HearthError], int]] = [
    (PayloadTooLargeError, 413),
    (InvalidInputError, 400),
    (OriginalGoneError, 410),
    (NotFoundError, 404),
    (ConflictError, 409),
    (UnsupportedTypeError, 415),
    (LoaderError, 422),
    (OverloadedError, 429),
    (UnavailableError, 503),
    (ModelError, 503),
    (ConfigError, 503),
]


def status_for(exc: HearthError) -> int:
    """The HTTP status of a Hearth error."""
    for cls, code in STATUS:
        if isinstance(exc, cls):
            return code
    return 400


def error_body(exc: HearthError) -> dict[str, object]:
    """The JSON body of an error response or an SSE ``error`` event."""
    body: dict[str, object] = {"error": type(exc).__name__, "detail": exc.message}
    if exc.field:
        body["field"] = exc.field
    return body


def hearth_error_handler(
    _: Request[Any, Any, Any], exc: HearthError
) -> Response[dict[str, object]]:
    """HearthError -> 4xx (or 503) with a clear body."""
    headers = {}
    if isinstance(exc, OverloadedError):
        headers["Retry-After"] = str(exc.retry_after)
    return Response(
        error_body(exc), status_code=status_for(exc), headers=headers, media_type=MediaType.JSON
    )


def http_error_detail(exc: HTTPException) -> str:
    """The message of a framework error; a body that cannot be decoded says so (Litestar passes
    the decoder's bare words, e.g. "Input data was truncated")."""
    detail = str(exc.detail)
    if isinstance(exc, ClientException) and isinstance(exc.__cause__, SerializationException):
        return f"the request body could not be decoded: {detail}"
    return detail


def redacted_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` (and its causes) with file, line and function of every frame
    but without the exceptions' messages, which may quote the user's text."""
    lines: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        frames = traceback.format_list(traceback.extract_tb(current.__traceback__))
        lines.append(f"{type(current).__module__}.{type(current).__qualname__} (message withheld)")
        lines.extend(line.rstrip("\n") for line in frames)
        current = current.__cause__ or current.__context__
    return "\n".join(lines)


def log_unexpected(logger: logging.Logger, during: str, exc: BaseException) -> None:
    """Log an unexpected error with its traceback at ERROR (the default level shows it), the
    user's text left out; the full message only at DEBUG."""
    logger.error("unexpected %s during %s\n%s", type(exc).__name__, during, redacted_traceback(exc))
    logger.debug("unexpected error", exc_info=exc)


def unexpected_error_handler(
    _: Request[Any, Any, Any], exc: Exception
) -> Response[dict[str, object]]:
    """Anything else: logged (type only at default level), answered without internals."""
    if isinstance(exc, HTTPException):
        return Response(
            {
                "error": type(exc).__name__,
                "detail": http_error_detail(exc),
                **({"extra": exc.extra} if exc.extra else {}),
            },
            status_code=exc.status_code,
            headers=exc.headers,
            media_type=MediaType.JSON,
        )
    log_unexpected(log, "a request", exc)
    return Response(
        {"error": "InternalError", "detail": "an unexpected error occurred"},
        status_code=500,
        media_type=MediaType.JSON,
    )


EXCEPTION_HANDLERS = {HearthError: hearth_error_handler, Exception: unexpected_error_handler}
