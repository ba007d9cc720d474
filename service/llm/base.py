"""The runtime Protocol every LLM backend implements."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

if TYPE_CHECKING:
    from core.settings import KVType


class ChatMessage(TypedDict):
    """One chat message."""

    role: str
    content: str


@dataclass(frozen=True)
class ModelConfig:
    """One configured model with the defaults of ``llm.*`` applied (``service.llm.config``
    builds them; a runtime factory opens one)."""

    name: str
    model: str
    n_ctx: int
    kv_type: KVType
    backend: str
    url: str | None


@dataclass(frozen=True)
class SamplingParams:
    """Sampling settings; recorded with every answer so it can be replayed."""

    temperature: float = 0.0
    top_p: float = 0.95
    max_tokens: int = 384
    seed: int = 0
    stop: tuple[str, ...] = ()
    #: JSON Schema (JSON text) the reply must be valid against, enforced while sampling
    #: (llama.cpp grammar); None for free text.
    json_schema: str | None = None
    #: GBNF grammar (llama.cpp's grammar format) the reply must follow, enforced while
    #: sampling; None for free text. Ignored when ``json_schema`` is set (the schema's own).
    grammar: str | None = None
    #: Log-probabilities of each generated token with this many alternatives (0-20), yielded
    #: as ``LoggedPiece``s; None: not computed. Sampling is the same either way.
    logprobs: int | None = None
    #: Not sampling but evaluation, and not stored: reuse at most this many prompt tokens from
    #: the KV cache (live or saved). A replay passes the original's ``prompt_cached_tokens``,
    #: so its prompt is evaluated in the same batches and a near-tie falls the same way.
    reuse_at_most: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for storage and responses."""
        out = asdict(self)
        out.pop("reuse_at_most")
        return out


@dataclass
class PromptStats:
    """How one prompt was evaluated: ``prompt_tokens`` in all, ``cached_tokens`` reused from the
    KV cache (live or restored), ``new_tokens`` evaluated in ``eval_s`` seconds, and
    ``restore_s`` spent copying a saved state back; on ``threads`` threads (the generation
    then on ``generation_threads``), of ``cores`` this process may use while other programs
    kept ``cores_busy`` of them busy (core/cpuload.py; 0 where not known)."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    new_tokens: int = 0
    eval_s: float = 0.0
    restore_s: float = 0.0
    threads: int = 0
    generation_threads: int = 0
    cores: int = 0
    cores_busy: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return asdict(self)


class LLMRuntime(Protocol):
    """A chat model that streams text pieces."""

    model_name: str
    model_path: str
    n_ctx: int

    def model_sha256(self) -> str:
        """sha256 of the model file (computed once)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` in this model's vocabulary."""
        ...

    def stream_chat(
        self, messages: list[ChatMessage], params: SamplingParams, stop: threading.Event
    ) -> Iterator[str]:
        """Yield pieces of the reply; stops early once ``stop`` is set."""
        ...

    def close(self) -> None:
        """Free the model."""
        ...
