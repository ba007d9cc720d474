"""Log-probabilities of generated tokens from the last row of logits, without ``logits_all``.

llama-cpp-python 0.3 only fills ``Llama.scores`` (and so its own ``logprobs``) when the model was
created with ``logits_all=True``, which keeps ``n_ctx x n_vocab`` floats. The logits that produce
each sampled token are always in the context after a decode (``llama_get_logits_ith``), so the
runtime reads that one row before the sampler picks, and this module turns it into OpenAI's
``logprobs.content[]`` items: the log-softmax over the whole vocabulary of the model's raw logits
(before temperature, top-p or a grammar), the chosen token's value and the ``top`` best.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

#: OpenAI's bound for ``top_logprobs``.
MAX_TOP_LOGPROBS = 20


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token: its text, natural-log probability (<= 0), UTF-8 bytes, and the
    ``top`` most likely tokens at that step as ``(token, logprob, bytes)``, best first."""

    token: str
    logprob: float
    bytes: tuple[int, ...]
    top: tuple[tuple[str, float, tuple[int, ...]], ...] = ()

    def as_openai(self) -> dict[str, object]:
        """OpenAI's ``ChatCompletionTokenLogprob`` shape."""
        return {
            "token": self.token,
            "logprob": self.logprob,
            "bytes": list(self.bytes),
            "top_logprobs": [
                {"token": t, "logprob": lp, "bytes": list(b)} for t, lp, b in self.top
            ],
        }


def log_softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """``logits - logsumexp(logits)`` in float64 (shape kept)."""
    x = logits.astype(np.float64)
    peak = float(x.max())
    return x - (peak + float(np.log(np.exp(x - peak).sum())))


def token_logprob(
    logits: npt.NDArray[np.float32], token: int, top: int, piece: Callable[[int], bytes]
) -> TokenLogprob:
    """The record of ``token`` sampled from ``logits`` (shape ``(n_vocab,)``); ``piece`` gives a
    token id's bytes."""
    lp = log_softmax(logits)
    best: list[tuple[str, float, tuple[int, ...]]] = []
    if top > 0:
        ids = np.argpartition(-lp, top - 1)[:top]
        for i in sorted(ids.tolist(), key=lambda i: (-lp[i], i)):
            raw = piece(int(i))
            best.append((raw.decode("utf-8", errors="replace"), float(lp[i]), tuple(raw)))
    raw = piece(token)
    return TokenLogprob(
        raw.decode("utf-8", errors="replace"), float(lp[token]), tuple(raw), tuple(best)
    )


@dataclass
class LogprobRecorder:
    """Records of one generation, handed out as the reply's text covers their bytes (a token
    whose text is held back, such as a stop sequence or the end-of-generation token, is never
    handed out)."""

    top: int
    records: list[TokenLogprob] = field(default_factory=list)
    _given: int = 0
    _bytes_given: int = 0

    def take(self, text_bytes: int) -> list[TokenLogprob]:
        """Records not yet handed out whose bytes end within the first ``text_bytes`` bytes of
        the reply."""
        out: list[TokenLogprob] = []
        while self._given < len(self.records):
            rec = self.records[self._given]
            if self._bytes_given + len(rec.bytes) > text_bytes:
                break
            out.append(rec)
            self._given += 1
            self._bytes_given += len(rec.bytes)
        return out


class LoggedPiece(str):
    """A piece of reply text (a ``str``) that also carries the log-probabilities of the tokens
    it completes; runtimes yield it instead of ``str`` when logprobs were asked for."""

    logprobs: tuple[TokenLogprob, ...]

    def __new__(cls, text: str, logprobs: Sequence[TokenLogprob]) -> LoggedPiece:
        obj = super().__new__(cls, text)
        obj.logprobs = tuple(logprobs)
        return obj
