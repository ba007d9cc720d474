"""An OpenAI-compatible HTTP server (llama.cpp's server, vLLM) behind the LLMRuntime Protocol."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx

from core.errors import ModelError, UnavailableError
from service.llm.base import ChatMessage, SamplingParams


class OpenAIRuntime:
    """Streams chat completions from ``{url}/v1/chat/completions``; nothing loads in process.

    A JSON schema is sent as OpenAI's ``{"type": "json_schema", ...}`` response format; a server
    that rejects that form (llama-cpp-python's ``llama_cpp.server`` accepts only ``text`` and
    ``json_object``) is asked again with the llama.cpp form
    ``{"type": "json_object", "schema": ...}``, and that form is used for it from then on.
    """

    def __init__(self, name: str, model: str, url: str, n_ctx: int, timeout_s: float) -> None:
        self.model_name = name
        self.remote_model = model
        self.model_path = url.rstrip("/")
        self.n_ctx = n_ctx
        self._client = httpx.Client(base_url=self.model_path, timeout=timeout_s)
        self._schema_form = "openai"  # or "llama.cpp" once the server has refused OpenAI's form

    def model_sha256(self) -> str:
        """No file here: a stable digest of the server URL and model name stands in."""
        return hashlib.sha256(f"{self.model_path}|{self.remote_model}".encode()).hexdigest()

    def count_tokens(self, text: str) -> int:
        """Tokens by the server's ``/extras/tokenize`` (llama.cpp), else ~4 characters a token."""
        try:
            resp = self._client.post("/extras/tokenize", json={"input": text})
            if resp.status_code == 200:
                return len(resp.json()["tokens"])
        except (httpx.HTTPError, KeyError, ValueError):
            pass
        return max(1, len(text) // 4)

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
        try:
            with self._client.stream("POST", "/v1/chat/completions", json=body) as resp:
                if resp.status_code != 200:
                    resp.read()
                    raise _Refused(
                        f"remote model {self.model_name} at {self.model_path} answered "
                        f"{resp.status_code}: {resp.text[:200]}",
                        resp.text,
                    )
                for line in resp.iter_lines():
                    if stop.is_set():
                        break
                    piece = _delta(line)
                    if piece is None:
                        break
                    if piece:
                        yield piece
        except httpx.HTTPError as exc:
            raise UnavailableError(
                f"remote model {self.model_name} at {self.model_path} is unreachable: "
                f"{type(exc).__name__}"
            ) from exc

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()


class _Refused(ModelError):
    """The server answered a status other than 200; ``text`` is its whole reply."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


def _delta(line: str) -> str | None:
    """The content of one SSE line; ``None`` at ``[DONE]``; ``""`` for anything else."""
    if not line.startswith("data:"):
        return ""
    data = line[5:].strip()
    if data == "[DONE]":
        return None
    try:
        choice = json.loads(data)["choices"][0]
    except (ValueError, KeyError, IndexError):
        return ""
    return str((choice.get("delta") or {}).get("content") or "")
