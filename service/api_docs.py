"""What the generated OpenAPI document cannot know by itself: the error answers of every
operation (the shapes ``service/errors.py`` and the /v1 handlers really send, not Litestar's
default ``status_code``/``detail`` body), and the server-sent event streams.

Applied once to the app's OpenAPI object when the app is built (it is rendered lazily)."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIResponse, Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType

# Status codes every operation may answer, and why (service/errors.py maps HearthErrors to them).
ERROR_STATUSES = {
    "400": "The request is malformed; the body names the field or parameter.",
    "401": "An access token is required and was missing or not valid.",
    "403": "A cross-site request (Origin or Sec-Fetch-Site of another site) was refused.",
    "404": "The thing asked for (document, conversation, answer, template, model) does not exist.",
    "409": "The request clashes with the current state (another writer, a template conflict).",
    "413": "The request body or an upload is larger than the configured limit.",
    "415": "No loader handles this kind of file, or the body is text/plain or form-encoded.",
    "421": "The Host header names a host this server does not serve (DNS rebinding).",
    "422": "The file or recording could not be read; the body says which and why.",
    "429": "The model's queue is full: retry after the Retry-After header's seconds.",
    "503": "A component (model, store) is not ready or failed to load.",
}

HEARTH_ERROR = Schema(
    type=OpenAPIType.OBJECT,
    required=["error", "detail"],
    properties={
        "error": Schema(type=OpenAPIType.STRING, description="The kind of error."),
        "detail": Schema(type=OpenAPIType.STRING, description="What is wrong, for a person."),
        "field": Schema(type=OpenAPIType.STRING, description="The field or parameter at fault."),
        "extra": Schema(
            type=[OpenAPIType.NULL, OpenAPIType.OBJECT, OpenAPIType.ARRAY],
            description="Validation details: each with the key at fault and a message.",
        ),
    },
)

OPENAI_ERROR = Schema(
    type=OpenAPIType.OBJECT,
    required=["error"],
    properties={
        "error": Schema(
            type=OpenAPIType.OBJECT,
            required=["message", "type"],
            properties={
                "message": Schema(type=OpenAPIType.STRING),
                "type": Schema(type=OpenAPIType.STRING),
                "param": Schema(type=[OpenAPIType.STRING, OpenAPIType.NULL]),
                "code": Schema(type=[OpenAPIType.STRING, OpenAPIType.NULL]),
            },
        )
    },
)

# Operations that answer 200 with a stream of server-sent events (always, or on request).
EVENT_STREAMS = {("/api/ask/stream", "post"): True, ("/v1/chat/completions", "post"): False}
SSE = OpenAPIMediaType(
    schema=Schema(
        type=OpenAPIType.OBJECT,
        description="One server-sent event; ``data`` is JSON (or ``[DONE]`` on /v1).",
        properties={
            "event": Schema(type=OpenAPIType.STRING),
            "data": Schema(type=OpenAPIType.STRING),
            "id": Schema(type=OpenAPIType.STRING),
            "retry": Schema(type=OpenAPIType.INTEGER),
        },
    )
)


#: Operations whose 200 body is not JSON: (path, method) -> (media types, JSON kept too?).
BINARY = Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.BINARY)
OTHER_BODIES: dict[tuple[str, str], tuple[tuple[str, ...], bool]] = {
    ("/api/backup", "get"): (("application/x-tar",), False),
    ("/v1/audio/speech", "post"): (("audio/wav",), False),
    ("/v1/audio/transcriptions", "post"): (("text/plain",), True),
    ("/api/documents/{document_id}/original", "get"): (("*/*",), False),
    ("/api/documents/{document_id}/pages/{page}", "get"): (("image/png",), False),
}


def document_responses(app: Litestar) -> None:
    """Add the error responses and event-stream media types to the app's OpenAPI document."""
    openapi = app.openapi_schema
    for path, item in (openapi.paths or {}).items():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(item, method, None)
            if operation is None:
                continue
            responses: dict[str, Any] = dict(operation.responses or {})
            schema = OPENAI_ERROR if path.startswith("/v1/") else HEARTH_ERROR
            for status, description in ERROR_STATUSES.items():
                responses[status] = OpenAPIResponse(
                    description=description,
                    content={"application/json": OpenAPIMediaType(schema=schema)},
                )
            only_events = EVENT_STREAMS.get((path, method))
            if only_events is not None:
                ok = responses.get("200")
                if isinstance(ok, OpenAPIResponse):
                    content = {} if only_events else dict(ok.content or {})
                    content["text/event-stream"] = SSE
                    ok.content = content
            other = OTHER_BODIES.get((path, method))
            if other is not None:
                ok = responses.get("200")
                if isinstance(ok, OpenAPIResponse):
                    media_types, keep_json = other
                    content = dict(ok.content or {}) if keep_json else {}
                    for media_type in media_types:
                        content[media_type] = OpenAPIMediaType(schema=BINARY)
                    ok.content = content
            operation.responses = responses
