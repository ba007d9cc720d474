"""KV prefix reuse for llama-cpp-python: saved context states keyed by their tokens, and a
``Llama`` that restores the longest matching one before evaluating a prompt.

``Llama.generate`` (llama-cpp-python 0.3) already keeps the KV cache of the longest common prefix
between the new prompt and the tokens last evaluated (``self._input_ids``), but a context holds
one sequence: condensing a follow-up (another template) evicts the answer's prefix. Its own
``LlamaRAMCache`` would keep states, but each ``LlamaState`` also copies ``scores`` — up to
``n_batch x n_vocab x 4`` bytes (311 MB for Qwen 2.5 at n_batch 512) — per entry. Here a state is
only llama.cpp's own state bytes (``llama_state_get_data``: the used KV cells and one row of
logits) plus its token ids; restoring marks the logits stale so ``generate`` re-evaluates at least
the last token (its ``_requires_eval`` path).

Each prompt's figures (tokens, tokens reused, tokens evaluated, evaluation seconds) are kept in
:class:`PromptStats` for the answer's timings.
"""

from __future__ import annotations

import ctypes
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp import Llama

from service.llm.base import PromptStats
from service.llm.logprobs import LogprobRecorder, token_logprob

#: States shorter than this are not worth a slot (a chat header and a few words).
MIN_STATE_TOKENS = 32


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass
class _State:
    tokens: tuple[int, ...]
    data: bytes


class StateCache:
    """Saved context states, least recently used dropped first beyond ``capacity`` bytes."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._states: OrderedDict[tuple[int, ...], _State] = OrderedDict()
        self.hits = 0
        self.saves = 0

    @property
    def size(self) -> int:
        """Bytes held."""
        return sum(len(s.data) for s in self._states.values())

    def __len__(self) -> int:
        return len(self._states)

    def best(self, tokens: Sequence[int]) -> tuple[_State | None, int]:
        """The saved state sharing the longest prefix with ``tokens``, and that length."""
        found: _State | None = None
        length = 0
        for state in self._states.values():
            n = common_prefix(state.tokens, tokens)
            if n > length:
                found, length = state, n
        if found is not None:
            self._states.move_to_end(found.tokens)
        return found, length

    def put(self, tokens: tuple[int, ...], data: bytes) -> None:
        """Keep a state; states that are a prefix of it are dropped (it serves them too)."""
        if len(data) > self.capacity:
            return
        for key in [k for k in self._states if k == tokens[: len(k)]]:
            del self._states[key]
        self._states[tokens] = _State(tokens, data)
        self.saves += 1
        while self.size > self.capacity and len(self._states) > 1:
            self._states.popitem(last=False)


class PrefixCachingLlama(Llama):
    """``Llama`` that saves its state after each generation and, before the next, restores the
    saved state sharing the longest prefix with the prompt when that beats the live context."""

    def __init__(self, *args: Any, prompt_cache_bytes: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.states = StateCache(prompt_cache_bytes)
        self.last_prompt: PromptStats | None = None
        self._pending: PromptStats | None = None
        #: Set by the runtime for one generation to record each sampled token's logprobs.
        self.recorder: LogprobRecorder | None = None
        #: Set by the runtime for one generation: reuse at most this many prompt tokens.
        self.reuse_limit: int | None = None

    def _restore(self, tokens: list[int], limit: int) -> float:
        live = common_prefix(self._input_ids.tolist(), tokens) if self.n_tokens else 0
        state, length = self.states.best(tokens)
        if state is None or min(length, limit) <= min(live, limit):
            return 0.0
        started = time.perf_counter()
        buf = (ctypes.c_uint8 * len(state.data)).from_buffer_copy(state.data)
        if llama_cpp.llama_state_set_data(self._ctx.ctx, buf, len(state.data)) != len(state.data):
            self.reset()  # type: ignore[no-untyped-call]  # state not taken: evaluate anew
            return 0.0
        n = len(state.tokens)
        self.input_ids[:n] = state.tokens
        self.n_tokens = n
        self._requires_eval = True  # the saved logits are not restored: re-evaluate one token
        self.states.hits += 1
        return time.perf_counter() - started

    def _save(self) -> None:
        n = self.n_tokens
        if self.states.capacity <= 0 or n < MIN_STATE_TOKENS:
            return
        size = int(llama_cpp.llama_state_get_size(self._ctx.ctx))
        buf = (ctypes.c_uint8 * size)()
        written = int(llama_cpp.llama_state_get_data(self._ctx.ctx, buf, size))
        self.states.put(tuple(self._input_ids[:n].tolist()), bytes(buf)[:written])

    def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:  # type: ignore[override]
        """``Llama.generate`` after restoring the best saved prefix; the state is saved when
        the generation ends (finished, stopped or abandoned)."""
        tokens = list(tokens)
        stats = PromptStats(prompt_tokens=len(tokens))
        limit = len(tokens) if self.reuse_limit is None else self.reuse_limit
        if self.states.capacity > 0:
            stats.restore_s = round(self._restore(tokens, limit), 4)
        if self.reuse_limit is not None and self.n_tokens > limit:
            # generate() keeps the common prefix of the first n_tokens and evaluates the rest
            # (eval drops the KV cells past n_tokens first); the live logits are not those of
            # token n_tokens - 1 any more, so at least one token is evaluated again.
            self.n_tokens = limit
            self._requires_eval = True
        self._pending = stats
        self.last_prompt = stats
        try:
            yield from super().generate(tokens, *args, **kwargs)
        finally:
            self._pending = None
            self._save()

    def sample(self, **kwargs: Any) -> int:  # type: ignore[override]
        """``Llama.sample``; with a ``recorder`` set, the row of logits the sampler reads is
        copied first (the sampler itself is untouched) and the chosen token's logprobs kept."""
        rec = self.recorder
        if rec is None:
            return int(super().sample(**kwargs))
        idx = kwargs.get("idx")
        ridx = idx - self.n_tokens if idx is not None else -1
        row = llama_cpp.llama_get_logits_ith(self._ctx.ctx, ridx)
        logits = np.ctypeslib.as_array(row, shape=(self._n_vocab,)).copy()
        token = int(super().sample(**kwargs))
        if not llama_cpp.llama_vocab_is_eog(self._model.vocab, token):
            rec.records.append(token_logprob(logits, token, rec.top, self._piece))
        return token

    def _piece(self, token: int) -> bytes:
        return bytes(self._model.detokenize([token]))

    def eval(self, tokens: Sequence[int]) -> None:
        """``Llama.eval``; the prompt's evaluation (first call of a generation) is measured."""
        stats, self._pending = self._pending, None
        if stats is None:
            super().eval(tokens)
            return
        stats.cached_tokens = self.n_tokens
        stats.new_tokens = len(tokens)
        started = time.perf_counter()
        super().eval(tokens)
        stats.eval_s = round(time.perf_counter() - started, 4)
