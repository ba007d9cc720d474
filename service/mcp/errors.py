"""Hearth's errors as MCP errors: a tool's failure is one line naming the argument, a resource's
failure the SDK's resource error; anything unexpected is logged without the user's text
(``service.errors.log_unexpected``) and reported without internals."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from pydantic import ValidationError

from core.errors import HearthError, NotFoundError
from service.errors import log_unexpected

log = logging.getLogger(__name__)


def argument_errors(exc: ValidationError) -> str:
    """One line per wrong argument, named: ``k: Input should be a valid integer (got str)``."""
    lines = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"]) or "arguments"
        got = type(err["input"]).__name__ if err["type"] != "missing" else None
        lines.append(f"{where}: {err['msg']}" + (f" (got {got})" if got else ""))
    return "invalid arguments: " + "; ".join(lines)


def tool_message(exc: HearthError) -> str:
    """The line a client reads for a Hearth error: its message, which names the field."""
    message = exc.message
    if exc.field and not message.startswith(exc.field):
        message = f"{exc.field}: {message}"
    return message


@contextmanager
def as_tool_errors(during: str) -> Iterator[None]:
    """Hearth errors become ``ToolError`` (their message names the field); anything else is
    logged without user text and reported as an internal error."""
    try:
        yield
    except (ToolError, ResourceError):
        raise
    except HearthError as exc:
        raise ToolError(tool_message(exc)) from exc
    except Exception as exc:
        log_unexpected(log, during, exc)
        raise ToolError(f"internal error during {during} (see the server's log)") from exc


def resource_errors(exc: HearthError) -> ResourceError:
    """A Hearth error of a resource read as the SDK's resource error."""
    kind = ResourceNotFoundError if isinstance(exc, NotFoundError) else ResourceError
    return kind(tool_message(exc))
