"""How the /v1 routes answer an error: OpenAI's error body (``error.message``, ``param``,
``code``) with the status ``service/errors.py`` maps each error to; shared by every /v1
controller (chat and embeddings, audio)."""

from __future__ import annotations

import logging
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException
from litestar.types import ExceptionHandlersMap

from core.errors import HearthError, OverloadedError
from service.errors import http_error_detail, log_unexpected, status_for
from service.openai_compat.schemas import openai_error

log = logging.getLogger(__name__)


def hearth_error(_: Request[Any, Any, Any], exc: HearthError) -> Response[dict[str, Any]]:
    """A ``HearthError`` as OpenAI's error body; 429 carries ``Retry-After`` and ``queue_full``,
    an unknown model ``model_not_found``."""
    status = status_for(exc)
    code = "model_not_found" if status == 404 and exc.field == "model" else None
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, OverloadedError) else {}
    if status == 429:
        code = "queue_full"
    return Response(
        openai_error(status, exc.message, exc.field, code),
        status_code=status,
        headers=headers,
        media_type=MediaType.JSON,
    )


def other_error(_: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    """A Litestar HTTP error (a validation error names its fields) or, logged, an unexpected
    one (500) as OpenAI's error body."""
    if isinstance(exc, HTTPException):
        # a validation error names the fields at fault in ``extra``: say them in the message
        wrong = [e for e in exc.extra or [] if isinstance(e, dict) and e.get("key")]
        message = http_error_detail(exc)
        if wrong:
            message += ": " + "; ".join(f"{e['key']}: {e.get('message', 'invalid')}" for e in wrong)
        param = str(wrong[0]["key"]) if wrong else None
        body = openai_error(exc.status_code, message, param, None)
        return Response(body, status_code=exc.status_code, media_type=MediaType.JSON)
    log_unexpected(log, "an OpenAI request", exc)
    body = openai_error(500, "an unexpected error occurred", None, None)
    return Response(body, status_code=500, media_type=MediaType.JSON)


#: The /v1 controllers' ``exception_handlers``.
OPENAI_ERROR_HANDLERS: ExceptionHandlersMap = {HearthError: hearth_error, Exception: other_error}
