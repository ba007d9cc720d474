"""An OpenAI-compatible HTTP server (llama.cpp's server, vLLM) behind the LLMRuntime Protocol."""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Iterator
from typing import Any

import httpx

from core.errors import ModelError, UnavailableError
from service.llm.base import ChatMessage, SamplingParams

#: An estimated token count is this much over the characters' share (context fitting errs long).
ESTIMATE_MARGIN = 1.15


class OpenAIRuntime:
    """Streams chat completions from ``{url}/v1/chat/completions``; nothing loads in process.

    A JSON schema is sent as OpenAI's ``{"type": "json_schema", ...}`` response format; a server
    that rejects that form (llama-cpp-python's ``llama_cpp.server`` accepts only ``text`` and
    ``json_object``) is asked again with the llama.cpp form
    ``{"type": "json_object", "schema": ...}``, and that form is used for it from then on. A GBNF
    grammar (``SamplingParams.grammar``) is sent as ``grammar``, the field llama.cpp's servers
    read (OpenAI's own API has none).

    A server may serve one request at a time and cut the one it is streaming short when another
    arrives (llama-cpp-python's ``llama_cpp.server`` does so by default, ``interrupt_requests``:
    it sends ``[DONE]`` with no finish reason). So no token count is sent to the server while this
    runtime streams from it (the count is then estimated from the characters per token the
    server's earlier counts showed, with a margin), and a stream that ends without a finish
    reason is an error, never a complete answer.
    """

    def __init__(self, name: str, model: str, url: str, n_ctx: int, timeout_s: float) -> None:
        self.model_name = name
        self.remote_model = model
        self.model_path = url.rstrip("/")
        self.n_ctx = n_ctx
        self._client = httpx.Client(base_url=self.model_path, timeout=timeout_s)
        self._schema_form = "openai"  # or "llama.cpp" once the server has refused OpenAI's form
        self._gate = threading.Lock()  # a token count's call, or a stream's start or end
        self._streams = 0  # completions streaming from the server now
        self._counted = [0, 0]  # characters and tokens of the server's exact counts so far

    def model_sha256(self) -> str:
        """No file here: a stable digest of the server URL and model name stands in."""
        return hashlib.sha256(f"{self.model_path}|{self.remote_model}".encode()).hexdigest()

    def count_tokens(self, text: str) -> int:
        """Tokens by the server's ``/extras/tokenize`` (llama.cpp) when it is not streaming an
        answer of this runtime; else (or without that route) an estimate from the characters
        per token its exact counts showed (4 before any), 15% over."""
        with self._gate:
            if not self._streams:
                try:
                    resp = self._client.post("/extras/tokenize", json={"input": text})
                    if resp.status_code == 200:
                        tokens = len(resp.json()["tokens"])
                        if len(text) >= 64:
                            self._counted[0] += len(text)
                            self._counted[1] += tokens
                        return tokens
                except (httpx.HTTPError, KeyError, ValueError, TypeError):
                    pass
        chars, tokens = self._counted
        per_token = chars / tokens if tokens else 4.0
        return max(1, math.ceil(len(text) / per_token * ESTIMATE_MARGIN))

    def stream_chat(
        self, messages: list[ChatMessage], params: SamplingParams, stop: threading.Event
    ) -> Iterator[str]:
        """Yield content deltas of a streamed completion; closing the stream on ``stop``."""
        body: dict[str, Any] = {
            "model": self.remote_model,
            "messages": list(messages),
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_tokens,
            "seed": params.seed,
            "stream": True,
        }
        if params.stop:
            body["stop"] = list(params.stop)
        if params.grammar is not None and params.json_schema is None:
            body["grammar"] = params.grammar  # llama.cpp's servers' field (not OpenAI's)
        if params.json_schema is None:
            yield from self._stream(body, stop)
            return
        schema = json.loads(params.json_schema)
        if self._schema_form == "openai":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "response", "schema": schema, "strict": True},
            }
            try:
                yield from self._stream(body, stop)
                return
            except _Refused as refused:
                if "json_schema" not in refused.text:
                    raise
                self._schema_form = "llama.cpp"
        body["response_format"] = {"type": "json_object", "schema": schema}
        yield from self._stream(body, stop)

    def _stream(self, body: dict[str, Any], stop: threading.Event) -> Iterator[str]:
        """POST ``body`` and yield its content deltas.

        Raises:
            _Refused: the server answered anything but 200 before streaming.
            UnavailableError: the server could not be reached.
        """
        with self._gate:
            self._streams += 1
        try:
            yield from self._stream_counted(body, stop)
        finally:
            with self._gate:
                self._streams -= 1

    def _stream_counted(self, body: dict[str, Any], stop: threading.Event) -> Iterator[str]:
        pieces = 0
        try:
            with self._client.stream("POST", "/v1/chat/completions", json=body) as resp:
                if resp.status_code != 200:
                    resp.read()
                    raise _Refused(
                        f"remote model {self.model_name} at {self.model_path} answered "
                        f"{resp.status_code}: {resp.text[:200]}",
                        resp.text,
                    )
                finished = False
                for line in resp.iter_lines():
                    if stop.is_set():
                        return
                    event = _event(line)
                    if event is None:
                        break
                    piece, reason = event
                    finished = finished or reason is not None
                    if piece:
                        pieces += 1
                        yield piece
        except httpx.HTTPError as exc:
            raise UnavailableError(
                f"remote model {self.model_name} at {self.model_path} is unreachable: "
                f"{type(exc).__name__}"
            ) from exc
        if not finished and not stop.is_set():
            raise ModelError(
                f"remote model {self.model_name} at {self.model_path} ended its answer after "
                f"{pieces} pieces without a finish reason: the server cut it short (llama-cpp-"
                "python's llama_cpp.server does when another request reaches it; start it with "
                "--interrupt_requests False)"
            )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()


class _Refused(ModelError):
    """The server answered a status other than 200; ``text`` is its whole reply."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


def _event(line: str) -> tuple[str, str | None] | None:
    """One SSE line as (content, finish reason); ``None`` at ``[DONE]``; ``("", None)`` for
    anything else (comments, keep-alives, chunks without a choice)."""
    if not line.startswith("data:"):
        return "", None
    data = line[5:].strip()
    if data == "[DONE]":
        return None
    try:
        choice = json.loads(data)["choices"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return "", None
    reason = choice.get("finish_reason")
    content = str((choice.get("delta") or {}).get("content") or "")
    return content, (str(reason) if reason else None)
