"""A question's embedding goes ahead of an ingest batch (the encoder is a fake that sleeps, so
the order of calls is the thing measured, not speed)."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest

from core.embedder import BULK_SLICE, SentenceTransformerEmbedder


class SlowModel:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def encode(self, texts: list[str], **_: Any) -> np.ndarray:
        self.calls.append(len(texts))
        time.sleep(0.05)
        return np.ones((len(texts), 4), dtype=np.float32)


def _embedder() -> tuple[SentenceTransformerEmbedder, SlowModel]:
    emb = SentenceTransformerEmbedder.__new__(SentenceTransformerEmbedder)
    model = SlowModel()
    emb._model = model
    emb.batch_size = 32
    emb.dimension = 4
    emb._lock = threading.Lock()
    emb._turns = threading.Condition()
    emb._urgent = 0
    return emb, model


def test_question_waits_for_one_slice_not_the_whole_batch() -> None:
    emb, model = _embedder()
    texts = [f"chunk {i}" for i in range(BULK_SLICE * 10)]
    bulk = threading.Thread(target=emb.embed, args=(texts,))
    bulk.start()
    time.sleep(0.08)  # the batch is under way
    vectors = emb.embed(["the question?"])
    done_at = len(model.calls)
    bulk.join()
    assert vectors.shape == (1, 4)
    assert model.calls.count(1) == 1
    assert model.calls.index(1) <= 3  # after at most a couple of slices, not after all ten
    assert done_at < len(model.calls)  # the batch went on after the question
    assert sum(c for c in model.calls if c != 1) == len(texts)
    assert emb.embed(texts[:20]).shape == (20, 4)  # slices put back together in order


def test_one_question_is_encoded_on_one_torch_thread_and_batches_on_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import torch

    from core.threads import budget

    # The batch takes the cores free now (core/threads.py); as if both were (CI's machine had
    # other work on one, and the batch rightly got 1).
    monkeypatch.setattr(budget(), "ingest_threads", lambda load=None: 2)
    emb, _ = _embedder()
    seen: list[int] = []

    class Recording(SlowModel):
        def encode(self, texts: list[str], **kw: Any) -> np.ndarray:
            seen.append(torch.get_num_threads())
            return np.ones((len(texts), 4), dtype=np.float32)

    emb._model = Recording()
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        emb.embed(["a question?"])
        emb.embed(["one chunk", "another chunk"])
        assert seen == [1, 2]
        assert torch.get_num_threads() == 2  # put back after the question
    finally:
        torch.set_num_threads(before)
