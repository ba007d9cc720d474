"""OpenAI-compatible API: chat completions (plain or grounded), embeddings, models."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import numpy as np
from anyio import to_thread
from litestar import Controller, MediaType, Request, Response, get, post
from litestar.datastructures import State
from litestar.response import Stream

from core.errors import HearthError, InvalidInputError
from service.bridge import in_thread
from service.errors import log_unexpected, status_for
from service.openai_compat import token_ids
from service.openai_compat.chat import (
    ChatPlan,
    Finish,
    Piece,
    Progress,
    admit,
    model_ids,
    plan_chat,
    run_chat,
)
from service.openai_compat.errors import OPENAI_ERROR_HANDLERS
from service.openai_compat.schemas import (
    EMBED_IGNORED,
    ChatRequest,
    EmbeddingRequest,
    chunk,
    completion,
    completion_id,
    embedding_item,
    openai_error,
    parse,
    refuse_fields,
    unknown_model,
    usage,
)
from service.state import Hearth

log = logging.getLogger(__name__)
EMBED_ALIAS = "hearth-embed"
#: Inputs of one /v1/embeddings request decoded and embedded at a time (memory stays bounded).
EMBED_BATCH = 64


def finish_reason(plan: ChatPlan, end: Finish) -> str:
    """``length`` when the reply used every token it was allowed, else ``stop`` (always for a
    whole-document result, whose model calls each have their own limit)."""
    if plan.whole is not None:
        return "stop"
    return "length" if end.completion_tokens >= plan.params.max_tokens else "stop"


def sse(payload: dict[str, Any] | str) -> bytes:
    """One server-sent event in OpenAI's framing (``data: ...`` and a blank line)."""
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"data: {data}\n\n".encode()


class OpenAIController(Controller):
    """Point OpenAI clients (SDKs, LangChain, editors) at ``/v1``. Model ``hearth-rag`` answers
    from every document, ``hearth-rag:<collection>`` from one collection, with the passages it
    used in the extra field ``hearth.sources``; a model's own name chats without retrieval."""

    path = "/v1"
    tags = ["openai"]
    exception_handlers = OPENAI_ERROR_HANDLERS

    @get("/models", sync_to_thread=True)
    def models(self, state: State) -> dict[str, Any]:
        """The chat models (local models and retrieval-augmented assistants) and the embedder."""
        hearth: Hearth = state.hearth
        created = int(getattr(state, "started_at", 0))
        ids = [*model_ids(hearth), hearth.settings.embedder.model]
        return {
            "object": "list",
            "data": [
                {"id": i, "object": "model", "created": created, "owned_by": "hearth"} for i in ids
            ],
        }

    @post("/embeddings", status_code=200)
    async def embeddings(self, data: dict[str, Any], state: State) -> dict[str, Any]:
        """Embed text with the bundled embedder (the one retrieval uses); unit-length vectors.
        ``input``: a text, up to 2,048 texts, or arrays of cl100k_base token ids (what
        LangChain's OpenAI embeddings send), embedded ``EMBED_BATCH`` at a time."""
        hearth: Hearth = state.hearth
        req = parse(EmbeddingRequest, data)
        refuse_fields(req.model_extra or {}, EMBED_IGNORED, {})
        name = hearth.settings.embedder.model
        if req.model not in (name, EMBED_ALIAS):
            raise unknown_model(req.model, [name, EMBED_ALIAS])
        items = req.items()
        if req.dimensions not in (None, hearth.embedder.dimension):
            raise InvalidInputError(
                f"dimensions: this embedder produces {hearth.embedder.dimension}",
                field="dimensions",
            )
        out: list[dict[str, Any]] = []
        tokens = 0
        for start in range(0, len(items), EMBED_BATCH):
            batch = await to_thread.run_sync(_embed_batch, hearth, items, start)
            out.extend(
                embedding_item(start + i, v, req.encoding_format) for i, v in enumerate(batch[0])
            )
            tokens += batch[1]
        return {
            "object": "list",
            "data": out,
            "model": name,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    @post("/chat/completions", status_code=200)
    async def chat(
        self, data: dict[str, Any], state: State, request: Request[Any, Any, Any]
    ) -> Response[Any] | Stream:
        """Chat completion, whole or streamed (``stream: true``); 429 when the queue is full.
        A client that disconnects stops the generation (or its place in the queue).
        ``hearth-rag`` takes Hearth's ``mode`` (answer, summarise, extract, compare) with
        ``documents`` and ``what``: a whole-document result, its items and sources in
        ``hearth``; an unknown mode is a 400 naming ``mode``."""
        hearth: Hearth = state.hearth
        req = parse(ChatRequest, data)
        plan = await to_thread.run_sync(plan_chat, hearth, req)
        ticket = admit(plan)  # a full queue is a 429 before anything starts
        items = in_thread(
            lambda stop: run_chat(hearth, plan, ticket, stop),
            ticket,
            "hearth-openai",
            # A stream's client leaving closes the stream; a whole reply's is watched for.
            request=None if req.stream else request,
            generations=hearth.generations,
        )
        if req.stream:
            return Stream(
                _chunks(plan, items, req.include_usage()),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache"},
            )
        end = Finish("", 0)
        async for item in items:
            if isinstance(item, Finish):
                end = item
        body = completion(
            completion_id(),
            plan.model_id,
            end.text,
            finish_reason(plan, end),
            usage(end.prompt_tokens or plan.prompt_tokens, end.completion_tokens),
            end.logprobs,
        )
        if end.extension is not None:
            body["hearth"] = end.extension
        return Response(body, media_type=MediaType.JSON)


def _embed_batch(
    hearth: Hearth, items: list[str | list[int]], start: int
) -> tuple[np.ndarray, int]:
    """The vectors of ``items[start : start + EMBED_BATCH]`` (token ids decoded first) and
    their tokens as the embedder counts them: one batch's texts and vectors are held at a time."""
    texts = [
        item if isinstance(item, str) else token_ids.decode(item, start + i)
        for i, item in enumerate(items[start : start + EMBED_BATCH])
    ]
    return hearth.embedder.embed(texts), sum(hearth.embedder.count_tokens(texts))


async def _chunks(
    plan: ChatPlan, items: AsyncGenerator[Piece | Progress | Finish, None], with_usage: bool
) -> AsyncIterator[bytes]:
    """The stream: a role chunk, content chunks, a final chunk (finish reason, ``hearth``
    extension), optionally usage, then ``[DONE]``; an error after the start is an error event.
    A whole-document run's progress goes in chunks with an empty delta and ``hearth.progress``."""
    cid = completion_id()
    yield sse(chunk(cid, plan.model_id, {"role": "assistant", "content": ""}))
    try:
        async for item in items:
            if isinstance(item, Progress):
                step = chunk(cid, plan.model_id, {})
                step["hearth"] = {"progress": item.data}
                yield sse(step)
                continue
            if isinstance(item, Piece):
                yield sse(chunk(cid, plan.model_id, {"content": item.text}, None, item.logprobs))
                continue
            last = chunk(cid, plan.model_id, {}, finish_reason(plan, item))
            if item.extension is not None:
                last["hearth"] = item.extension
            yield sse(last)
            if with_usage:
                tail = chunk(cid, plan.model_id, {})
                tail["choices"] = []
                read = item.prompt_tokens or plan.prompt_tokens
                tail["usage"] = usage(read, item.completion_tokens)
                yield sse(tail)
    except HearthError as exc:
        yield sse(openai_error(status_for(exc), exc.message, exc.field, None))
    except Exception as exc:
        log_unexpected(log, "an OpenAI generation", exc)
        yield sse(openai_error(500, "generation failed", None, None))
    finally:
        await items.aclose()  # the client may have gone: stop generating, free the queue
    yield sse("[DONE]")
