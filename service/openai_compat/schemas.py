"""OpenAI-compatible request and response shapes: validation to clear 4xx errors, and bodies.

Requests are checked with pydantic; a problem becomes an ``InvalidInputError`` naming the field,
which the /v1 routes answer in OpenAI's error shape ``{"error": {message, type, param, code}}``.
Every field of OpenAI's request is either honoured, harmless to ignore (``user``, ``metadata``,
``store``...), or refused with a 400 naming it when set to anything but its default
(``logit_bias``, penalties, tools...); a field OpenAI does not define is refused too, except
Hearth's own whole-document fields of ``hearth-rag`` (``mode``, ``documents``, ``what``,
``confirm``).
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.errors import InvalidInputError, NotFoundError
from service.llm.base import ChatMessage
from service.llm.logprobs import MAX_TOP_LOGPROBS
from service.wholedoc.service import MAX_WHAT_CHARS, MODES

MAX_MESSAGES = 200
#: OpenAI's limits: 2,048 inputs a request, 8,192 tokens an input.
MAX_EMBED_INPUTS = 2048
MAX_EMBED_TOKENS = 8192
MAX_EMBED_CHARS = 100_000
ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
#: ``mode`` of a ``hearth-rag`` request: an ordinary answer, or a whole-document mode.
CHAT_MODES = ("answer", *MODES)


class MessageIn(BaseModel):
    """One chat message as clients send it (text content, or a list of text parts)."""

    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    """``POST /v1/chat/completions``."""

    model_config = ConfigDict(extra="allow")
    model: str = Field(min_length=1, max_length=300)
    messages: list[MessageIn] = Field(min_length=1, max_length=MAX_MESSAGES)
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    top_p: float | None = Field(None, gt=0.0, le=1.0)
    max_tokens: int | None = Field(None, ge=1, le=8192)
    max_completion_tokens: int | None = Field(None, ge=1, le=8192)
    stop: str | list[str] | None = None
    seed: int | None = Field(None, ge=0, le=2**32 - 1)
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    n: int | None = None
    tools: list[Any] | None = None
    response_format: dict[str, Any] | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = Field(None, ge=0, le=MAX_TOP_LOGPROBS)
    #: Hearth's fields (``hearth-rag`` only): ``mode`` answer (the default), summarise,
    #: extract or compare; the ``documents`` it reads (ids, paths, folders or file names; none:
    #: the model's collection or the whole library); ``what`` to list (extract; default the
    #: last user message); ``confirm`` a run estimated over the limit.
    mode: str | None = Field(None, max_length=40)
    documents: list[str | int] | None = Field(None, max_length=1000)
    what: str | None = Field(None, max_length=MAX_WHAT_CHARS)
    confirm: bool = False

    def whole_mode(self) -> str | None:
        """The whole-document mode asked for, None for an ordinary request (``mode`` absent or
        ``answer``); 400 naming ``mode`` for a mode Hearth does not have, and naming
        ``documents`` / ``what`` when they are sent without a whole-document mode."""
        raw = (self.mode or "answer").strip().lower()
        mode = "summarise" if raw == "summarize" else raw
        if mode not in CHAT_MODES:
            raise InvalidInputError(
                f"mode: {self.mode!r} is not one of {', '.join(CHAT_MODES)}", field="mode"
            )
        if mode != "answer":
            return mode
        for name in ("documents", "what"):
            if getattr(self, name):
                raise InvalidInputError(
                    f"{name}: read only in a whole-document mode (mode: {', '.join(MODES)})",
                    field=name,
                )
        return None

    def logprobs_top(self) -> int | None:
        """How many alternatives each token's logprobs list (0-20), None when ``logprobs`` is
        off; 400 for ``top_logprobs`` without ``logprobs: true``."""
        if not self.logprobs:
            if self.top_logprobs is not None:
                raise InvalidInputError("top_logprobs: needs logprobs: true", field="top_logprobs")
            return None
        return self.top_logprobs or 0

    def refuse_unhonoured(self) -> None:
        """400 naming the first field Hearth would otherwise silently ignore."""
        refuse_fields(self.model_extra or {}, CHAT_IGNORED, CHAT_DEFAULTS)

    def json_schema(self) -> str | None:
        """``response_format`` as the JSON Schema text the reply is constrained to (``json_object``
        is any object), None for ``text``; 400 for another type or an invalid schema."""
        fmt = self.response_format
        kind = (fmt or {}).get("type", "text")
        if fmt is None or kind == "text":
            return None
        if kind == "json_object":
            return json.dumps({"type": "object"})
        if kind != "json_schema":
            raise InvalidInputError(
                f"response_format.type: {kind!r} is not one of text, json_object, json_schema",
                field="response_format.type",
            )
        schema = (fmt.get("json_schema") or {}).get("schema")
        if not isinstance(schema, dict):
            raise InvalidInputError(
                "response_format.json_schema.schema: a JSON Schema object is needed",
                field="response_format.json_schema.schema",
            )
        try:
            from jsonschema import Draft202012Validator
            from jsonschema.exceptions import SchemaError

            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise InvalidInputError(
                f"response_format.json_schema.schema: not a valid JSON Schema: {exc.message}",
                field="response_format.json_schema.schema",
            ) from exc
        return json.dumps(schema)

    def stops(self) -> tuple[str, ...]:
        """Stop sequences (at most 4, none empty)."""
        items = [self.stop] if isinstance(self.stop, str) else list(self.stop or [])
        if len(items) > 4 or any(not s for s in items):
            raise InvalidInputError("stop: up to 4 non-empty strings", field="stop")
        return tuple(items)

    def chat_messages(self) -> list[ChatMessage]:
        """The messages as plain role/content pairs the runtimes take."""
        self.refuse_unhonoured()
        if self.n not in (None, 1):
            raise InvalidInputError("n: only 1 choice is supported", field="n")
        if self.tools:
            raise InvalidInputError("tools: tool calling is not supported", field="tools")
        out: list[ChatMessage] = []
        for i, m in enumerate(self.messages):
            if m.role not in ROLES:
                raise InvalidInputError(
                    f"messages[{i}].role: {m.role!r} is not one of system, developer, user, "
                    "assistant",
                    field=f"messages[{i}].role",
                )
            out.append({"role": ROLES[m.role], "content": _text(m.content, i)})
        return out

    def include_usage(self) -> bool:
        """``stream_options.include_usage``: a last chunk with token counts."""
        return bool((self.stream_options or {}).get("include_usage"))


def _text(content: str | list[dict[str, Any]] | None, i: int) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    parts = []
    for part in content:
        if part.get("type") != "text" or not isinstance(part.get("text"), str):
            raise InvalidInputError(
                f"messages[{i}].content: only text parts are supported",
                field=f"messages[{i}].content",
            )
        parts.append(part["text"])
    return "\n".join(parts)


class EmbeddingRequest(BaseModel):
    """``POST /v1/embeddings``."""

    model_config = ConfigDict(extra="allow")
    model: str = Field(min_length=1, max_length=300)
    input: str | list[str] | list[int] | list[list[int]]
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = None

    def items(self) -> list[str | list[int]]:
        """The input as a list of texts (non-blank, at most ``MAX_EMBED_CHARS``) and arrays of
        token ids (1 to ``MAX_EMBED_TOKENS`` non-negative ids each), at most
        ``MAX_EMBED_INPUTS`` in all; ``InvalidInputError`` naming the first item at fault."""
        if isinstance(self.input, str):
            items: list[str | list[int]] = [self.input]
        elif self.input and isinstance(self.input[0], int):
            items = [[int(i) for i in self.input]]  # one array of token ids
        else:
            items = list(self.input)  # type: ignore[arg-type]  # texts or arrays of ids
        if not items:
            raise InvalidInputError("input: must not be empty", field="input")
        if len(items) > MAX_EMBED_INPUTS:
            raise InvalidInputError(
                f"input: {len(items)} items is over the {MAX_EMBED_INPUTS} a request may hold",
                field="input",
            )
        for n, item in enumerate(items):
            if isinstance(item, str):
                if not item.strip() or len(item) > MAX_EMBED_CHARS:
                    raise InvalidInputError(
                        f"input[{n}]: each text must be 1-{MAX_EMBED_CHARS} characters, not blank",
                        field="input",
                    )
            elif not 0 < len(item) <= MAX_EMBED_TOKENS or min(item) < 0:
                raise InvalidInputError(
                    f"input[{n}]: an array of token ids must hold 1-{MAX_EMBED_TOKENS} "
                    "non-negative ids",
                    field="input",
                )
        return items


#: OpenAI request fields that change nothing in the reply: accepted and ignored.
CHAT_IGNORED = frozenset(
    {
        "user",
        "metadata",
        "store",
        "service_tier",
        "prompt_cache_key",
        "safety_identifier",
        "parallel_tool_calls",
    }
)
#: OpenAI request fields Hearth does not honour, with the value that means "not used" (a
#: client sending exactly that is accepted).
CHAT_DEFAULTS: dict[str, Any] = {
    "logit_bias": None,
    "frequency_penalty": 0,
    "presence_penalty": 0,
    "functions": None,
    "function_call": None,
    "tool_choice": "none",
    "audio": None,
    "modalities": ["text"],
    "prediction": None,
    "reasoning_effort": None,
    "web_search_options": None,
    "verbosity": None,
}
EMBED_IGNORED = frozenset({"user"})


def refuse_fields(extra: dict[str, Any], ignored: frozenset[str], defaults: dict[str, Any]) -> None:
    """``InvalidInputError`` naming the first field of ``extra`` (fields outside the model) that
    is neither harmless nor at its "not used" value."""
    for name, value in extra.items():
        if name in ignored or (name in defaults and value in (defaults[name], None)):
            continue
        why = "is not supported by Hearth" if name in defaults else "is not an OpenAI field"
        raise InvalidInputError(f"{name}: {why}; leave it out", field=name)


M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], data: Any) -> M:
    """Validate a JSON body; the first problem becomes an ``InvalidInputError`` naming it."""
    if not isinstance(data, dict):
        raise InvalidInputError("the body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"] if not str(p).startswith(("list[", "str")))
        raise InvalidInputError(f"{where}: {err['msg']}", field=where or None) from exc


def completion_id() -> str:
    """A fresh ``chatcmpl-...`` id."""
    return f"chatcmpl-{uuid.uuid4().hex[:24]}"


def usage(prompt: int, completion: int) -> dict[str, int]:
    """OpenAI's usage object."""
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def chunk(
    cid: str,
    model: str,
    delta: dict[str, Any],
    finish: str | None = None,
    logprobs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` (``logprobs``: the ``content`` items of its tokens)."""
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "delta": delta,
                "logprobs": None if logprobs is None else {"content": logprobs, "refusal": None},
                "finish_reason": finish,
            }
        ],
    }


def completion(
    cid: str,
    model: str,
    text: str,
    finish: str,
    use: dict[str, int],
    logprobs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A whole ``chat.completion`` (``logprobs``: one ``content`` item per generated token)."""
    return {
        "id": cid,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None if logprobs is None else {"content": logprobs, "refusal": None},
                "finish_reason": finish,
            }
        ],
        "usage": use,
    }


def embedding_item(index: int, vector: Any, encoding: str) -> dict[str, Any]:
    """One ``embedding`` object, as floats or base64 of little-endian float32."""
    if encoding == "base64":
        data: Any = base64.b64encode(vector.astype("<f4").tobytes()).decode()
    else:
        data = [float(x) for x in vector]
    return {"object": "embedding", "index": index, "embedding": data}


def unknown_model(name: str, known: list[str]) -> NotFoundError:
    """The 404 of a model name Hearth does not serve."""
    return NotFoundError(
        f"model {name!r} does not exist; available: {', '.join(known)}", field="model"
    )


ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "invalid_request_error",
    413: "invalid_request_error",
    415: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}


def openai_error(status: int, message: str, param: str | None, code: str | None) -> dict[str, Any]:
    """OpenAI's error body."""
    kind = ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}
