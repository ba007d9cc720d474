"""Token budgets: does a prompt fit the model's context, and by how much does it not.

Every prompt Hearth builds (the answer prompt, the condense-question prompt, an OpenAI-style
chat) is counted in the model's own tokens before any model call; what does not fit is either
trimmed by the caller (oldest turns, then passages) or refused with a ``ContextOverflowError``
(a 400) that says what is too long and by how many tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import InvalidInputError
from service.llm.base import ChatMessage, LLMRuntime

#: Tokens a chat template adds around one message (role header and end marker, ChatML: 5).
PER_MESSAGE = 8
#: Tokens kept free for the assistant's header and any template the estimate misses.
MARGIN = 16


class ContextOverflowError(InvalidInputError):
    """A prompt cannot be made to fit the model's context; ``over`` is the excess in tokens."""

    def __init__(self, message: str, *, over: int, field: str | None = "question") -> None:
        super().__init__(message, field=field)
        self.over = over


def counted_tokens(llm: LLMRuntime, messages: Sequence[ChatMessage]) -> int:
    """Tokens of ``messages`` as reported in ``usage``: contents in the model's vocabulary plus
    the chat template's per-message overhead (estimated)."""
    return sum(llm.count_tokens(m["content"]) + PER_MESSAGE for m in messages)


def prompt_tokens(llm: LLMRuntime, messages: Sequence[ChatMessage]) -> int:
    """Tokens the model reads for ``messages`` (contents in its vocabulary plus the chat
    template's per-message overhead, an upper estimate)."""
    return counted_tokens(llm, messages) + MARGIN


def budget(llm: LLMRuntime, max_tokens: int) -> int:
    """Prompt tokens allowed when ``max_tokens`` are kept for the reply."""
    return llm.n_ctx - max_tokens


def overflow(llm: LLMRuntime, used: int, max_tokens: int, what: str) -> ContextOverflowError:
    """The 400 for a prompt of ``used`` tokens that cannot be trimmed further."""
    over = used - budget(llm, max_tokens)
    return ContextOverflowError(
        f"{what} needs {used} tokens but {llm.model_name} reads at most {llm.n_ctx}, "
        f"{max_tokens} of them kept for the answer: shorten it by at least {over} tokens",
        over=over,
    )


def check_fits(llm: LLMRuntime, messages: Sequence[ChatMessage], max_tokens: int, what: str) -> int:
    """The prompt's tokens; ``ContextOverflowError`` when they leave less than ``max_tokens``."""
    used = prompt_tokens(llm, messages)
    if used > budget(llm, max_tokens):
        raise overflow(llm, used, max_tokens, what)
    return used
