"""Stopping `hearth serve` mid-answer (issue 28, item 7): SIGTERM and SIGINT stop the
generations, the clients get a 503 or an SSE ``error`` saying why, the stores close cleanly (the
clean-close mark is written), the process exits with status 0, and the next start trusts the
stores.

A real `hearth serve` process and a real signal; today's main kept generating to the end (more
than 10 s), then died by the re-raised SIGTERM (status -15). The one bound on time is liveness.
"""

from __future__ import annotations

import signal
import socket
import subprocess
from pathlib import Path

import pytest

from core.knowledge import IN_STEP_MARK, KnowledgeBase
from tests.integration.conftest import Server, backend_settings
from tests.integration.test_abandoned import MODEL, ROUTES, generating, send_and_keep, serve_keeper
from tests.integration.test_serve_llm import queue_of, wait_until

pytestmark = pytest.mark.slow

#: Liveness bound on the exit after the signal (the generation alone would take minutes).
EXIT_BOUND_S = 60


def read_all(sock: socket.socket) -> str:
    """Everything the server sent until it closed the connection."""
    sock.settimeout(EXIT_BOUND_S)
    parts = []
    while chunk := sock.recv(65536):
        parts.append(chunk)
    sock.close()
    return b"".join(parts).decode("utf-8", "replace")


def stop_with(server: Server, signum: int) -> tuple[int, str]:
    """Send ``signum``; the exit status and stderr once the process has ended."""
    server.process.send_signal(signum)
    try:
        _out, err = server.process.communicate(timeout=EXIT_BOUND_S)
    except subprocess.TimeoutExpired:
        server.process.kill()
        raise AssertionError(
            f"hearth serve still running {EXIT_BOUND_S} s after the signal"
        ) from None
    return server.process.returncode, err


def assert_closed_cleanly(data_dir: Path) -> None:
    """The mark of a clean close is there, and the next start trusts the stores by it."""
    assert (data_dir / IN_STEP_MARK).is_file()
    kb = KnowledgeBase(backend_settings(data_dir))
    try:
        assert kb.repair(trust_clean_close=True).trusted
    finally:
        kb.close()


def test_sigterm_mid_answer_stops_generating_and_closes_the_stores(tmp_path: Path) -> None:
    server = serve_keeper(tmp_path)
    try:
        asking = send_and_keep(server, *ROUTES["ask"])
        wait_until(lambda: generating(server), "the answer under way")
        streaming = send_and_keep(server, *ROUTES["chat-stream"])
        wait_until(lambda: queue_of(server, MODEL)["waiting"] == 1, "a stream waiting its turn")
        status, err = stop_with(server, signal.SIGTERM)
    finally:
        server.stop()
    assert status == 0, err[-3000:]
    whole = read_all(asking)
    assert whole.startswith("HTTP/1.1 503"), whole[:500]
    assert "Hearth is stopping" in whole, whole[:500]
    stream = read_all(streaming)
    assert stream.startswith("HTTP/1.1 200"), stream[:500]
    assert "Hearth is stopping" in stream and "[DONE]" in stream, stream[-500:]
    assert_closed_cleanly(server.data_dir)


def test_sigint_mid_stream_stops_generating_and_closes_the_stores(tmp_path: Path) -> None:
    server = serve_keeper(tmp_path)
    try:
        streaming = send_and_keep(server, *ROUTES["ask-stream"])
        wait_until(lambda: generating(server), "the streamed answer under way")
        status, err = stop_with(server, signal.SIGINT)
    finally:
        server.stop()
    assert status == 0, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    stream = read_all(streaming)
    assert stream.startswith("HTTP/1.1 200"), stream[:500]
    assert "event: error" in stream and "Hearth is stopping" in stream, stream[-500:]
    assert "event: done" not in stream, stream[-500:]
    assert_closed_cleanly(server.data_dir)
