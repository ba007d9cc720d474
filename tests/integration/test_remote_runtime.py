"""The OpenAI-compatible runtime against a real llama_cpp.server on loopback (bundled smollm2)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from core.bundled import resolve_llm
from core.errors import ModelError
from core.settings import HearthSettings
from service.llm.base import SamplingParams
from service.llm.planner import plan_from_settings
from service.llm.pool import ModelPool
from service.llm.runtimes.remote_openai import OpenAIRuntime
from tests.integration.conftest import free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.embedded_only("the embedded pass already runs it against its own llama_cpp.server"),
]
pytest.importorskip("llama_cpp.server.app", reason="needs llama-cpp-python[server] (test extra)")


@pytest.fixture(scope="module")
def remote_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` with the bundled smollm2 on a free loopback port."""
    from core.settings import load_settings

    log = (tmp_path_factory.mktemp("remote") / "server.log").open("w+")
    path = resolve_llm("smollm2-135m", load_settings().models_dir)
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(path),
            "--model_alias",
            "smol",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--n_threads",
            "2",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,  # a pipe would fill and block it
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"llama_cpp.server exited: {log.read()[-2000:]}")
            try:
                if httpx.get(f"{url}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        else:
            raise RuntimeError("llama_cpp.server did not answer within 120 s")
        yield url
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def test_streams_and_counts_tokens(remote_url: str) -> None:
    rt = OpenAIRuntime("remote", "smol", remote_url, 2048, timeout_s=120)
    try:
        pieces = list(
            rt.stream_chat(
                [{"role": "user", "content": "Name three colours."}],
                SamplingParams(max_tokens=24),
                threading.Event(),
            )
        )
        assert len(pieces) > 1 and "".join(pieces).strip()
        assert rt.count_tokens("hello there, keeper") > 1
        assert len(rt.model_sha256()) == 64
    finally:
        rt.close()


def test_stop_event_ends_the_stream(remote_url: str) -> None:
    rt = OpenAIRuntime("remote", "smol", remote_url, 2048, timeout_s=120)
    stop = threading.Event()
    got = []
    try:
        for piece in rt.stream_chat(
            [{"role": "user", "content": "Tell a long story."}],
            SamplingParams(max_tokens=200),
            stop,
        ):
            got.append(piece)
            if len(got) == 3:
                stop.set()
        assert len(got) == 3
    finally:
        rt.close()


STORY = [{"role": "user", "content": "Tell a long story about a lighthouse keeper."}]


def test_counting_tokens_while_streaming_does_not_cut_the_answer(remote_url: str) -> None:
    """llama_cpp.server cuts the stream it serves short when another request arrives; the
    runtime's own token counts (another request's context check) must not be that request."""
    rt = OpenAIRuntime("remote", "smol", remote_url, 2048, timeout_s=120)
    try:
        exact = rt.count_tokens("The keeper counted the ships that passed the rock. " * 4)
        counted: list[int] = []
        pieces: list[str] = []
        for piece in rt.stream_chat(
            STORY, SamplingParams(max_tokens=80, seed=1), threading.Event()
        ):
            pieces.append(piece)
            if len(pieces) in (3, 6, 9):
                counted.append(
                    rt.count_tokens("The keeper counted the ships that passed the rock. " * 4)
                )
        assert len(pieces) > 20, pieces  # cut after a few pieces before
        # Estimated from the exact counts' characters per token, never under the exact count.
        assert all(exact <= n <= exact * 1.3 for n in counted), (exact, counted)
    finally:
        rt.close()


def test_a_stream_cut_short_by_the_server_is_an_error_not_an_answer(remote_url: str) -> None:
    """Another client's request interrupts the stream (``[DONE]`` without a finish reason):
    a ModelError naming the server and the cause, not a short answer taken for whole."""
    rt = OpenAIRuntime("remote", "smol", remote_url, 2048, timeout_s=120)
    got: list[str] = []
    try:
        with pytest.raises(ModelError, match=r"without a finish reason.*interrupt_requests"):
            for piece in rt.stream_chat(STORY, SamplingParams(max_tokens=80), threading.Event()):
                got.append(piece)
                if len(got) == 3:
                    other = httpx.post(f"{remote_url}/extras/tokenize", json={"input": "hi"})
                    assert other.status_code == 200
        assert 3 <= len(got) < 40, got
    finally:
        rt.close()


def test_settings_choose_the_remote_backend(remote_url: str, settings: HearthSettings) -> None:
    settings.llm.backend = "openai"
    settings.llm.remote_url = remote_url
    settings.llm.model = "smol"
    plan = plan_from_settings(settings)
    assert plan.models[0].backend == "openai" and plan.models[0].total == 0
    pool = ModelPool.load(settings, plan)  # warms up through the server
    try:
        slot = pool.select()
        assert isinstance(slot.runtime, OpenAIRuntime)
        assert slot.measured["warmup_warm"]["pieces"] > 0
    finally:
        pool.close()
