"""The core budget with the real components: llama.cpp (SmolLM2) and the embedder (MiniLM) take
every core alone and add up to the cores when an answer and an ingest run at once
(core/threads.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from core.embedder import Embedder
from core.settings import HearthSettings
from core.threads import budget, configure
from service.llm.base import SamplingParams
from service.llm.runtimes.llama_cpp import LlamaCppRuntime

pytestmark = pytest.mark.embedded_only(
    "builds the in-process llama.cpp runtime and embedder whatever the backends: one pass"
)


@pytest.fixture
def two_cores() -> Iterator[None]:
    old = (budget().cores, budget().answer_cores, budget().share, budget().adaptive)
    configure(cores=2, answer_cores=1, adaptive=False)  # whatever else runs on the machine
    yield
    configure(*old)


def _llama_threads(runtime: LlamaCppRuntime) -> int:
    import llama_cpp

    return int(llama_cpp.llama_n_threads(runtime._llm._ctx.ctx))


def _answer(runtime: LlamaCppRuntime) -> str:
    # The whole prompt evaluated each time: a prompt evaluated on top of a reused prefix can take
    # another token at a near-tie (NOTES.md), which is not what this test is about.
    runtime._llm.reset()
    params = SamplingParams(temperature=0.0, top_p=1.0, max_tokens=8, seed=0)
    messages = [{"role": "user", "content": "Name a colour."}]
    return "".join(runtime.stream_chat(messages, params, threading.Event()))  # type: ignore[list-item]


def test_llama_cpp_takes_every_core_alone_and_its_share_beside_ingest(
    settings: HearthSettings, two_cores: None
) -> None:
    from core.bundled import resolve_llm

    config = settings.llm.model_copy(update={"prompt_cache_mib": 0})  # no state restored
    runtime = LlamaCppRuntime(
        "smollm2-135m", resolve_llm("smollm2-135m", settings.models_dir), config
    )
    try:
        alone = _answer(runtime)
        assert _llama_threads(runtime) == 2
        with budget().ingesting():  # as an upload's embedding slice or Whisper would
            beside = _answer(runtime)
            assert _llama_threads(runtime) == 1
        assert beside == alone  # the thread count changes speed, not the greedy answer
        _answer(runtime)
        assert _llama_threads(runtime) == 2
    finally:
        runtime.close()


def test_ingest_embedding_takes_its_share_while_an_answer_is_written(
    embedder: Embedder, two_cores: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    seen: list[int] = []
    model: Any = embedder._model  # type: ignore[attr-defined]
    encode = model.encode

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(torch.get_num_threads())
        return encode(*args, **kwargs)

    monkeypatch.setattr(model, "encode", spy)
    texts = ["The harbour crane lifted timber.", "The quince orchard grew beside the gate."]
    alone = embedder.embed(texts)
    with budget().answering():
        beside = embedder.embed(texts)
    embedder.embed_questions(["Who lifted the timber?"])
    assert seen == [2, 1, 1]  # ingest alone: both cores; beside an answer: one; a question: one
    assert abs(alone - beside).max() < 1e-5
