"""Integration fixtures: the real embedder (loaded once), knowledge bases, a real server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from core.embedder import Embedder, create_embedder
from core.knowledge import KnowledgeBase
from core.settings import HearthSettings, load_settings
from ingest.pipeline import IngestPipeline
from samples.mailserver import Dovecot, running_dovecot, why_no_dovecot
from tests.integration import backends

if TYPE_CHECKING:
    import openai

REPO = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """On the scaled pass, skip tests marked ``embedded_only`` with their reason."""
    if not backends.SCALED:
        return
    for item in items:
        marker = item.get_closest_marker("embedded_only")
        if marker is not None:
            reason = marker.args[0] if marker.args else "embedded backends only"
            item.add_marker(pytest.mark.skip(reason=f"scaled pass: {reason}"))


@pytest.fixture(scope="session", autouse=True)
def scaled_backends() -> Iterator[backends.ScaledBackends | None]:
    """With ``HEARTH_TEST_BACKENDS=scaled``: Postgres, a Chroma server and llama_cpp.server for
    the whole session (every fixture and helper below then points Hearth at them)."""
    if not backends.SCALED:
        yield None
        return
    reason = backends.missing_reason()
    if reason:
        pytest.skip(f"scaled backends: {reason}")
    started = backends.start_scaled()
    try:
        yield started
    finally:
        backends.release()


def backend_overrides(data_dir: Path) -> dict[str, Any]:
    """``load_settings`` keywords for the backends of this pass (none on the embedded pass)."""
    active = backends.active()
    return active.overrides(data_dir) if active else {}


def backend_settings(data_dir: Path, **overrides: Any) -> HearthSettings:
    """Settings on ``data_dir`` and the backends of this pass (SQLite or Postgres, ...)."""
    return load_settings(data_dir=data_dir, **{**backend_overrides(data_dir), **overrides})


@pytest.fixture
def settings(tmp_path: Path) -> Iterator[HearthSettings]:
    """Settings on a fresh temporary data directory and the backends of this pass."""
    yield backend_settings(tmp_path / "data")


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The bundled all-MiniLM-L6-v2, loaded once per session."""
    return create_embedder(load_settings().embedder)


@pytest.fixture
def kb(settings: HearthSettings) -> Iterator[KnowledgeBase]:
    """A knowledge base on a fresh data directory."""
    base = KnowledgeBase(settings)
    yield base
    base.close()


@pytest.fixture
def pipeline(kb: KnowledgeBase, embedder: Embedder) -> IngestPipeline:
    """The real ingest pipeline on a fresh knowledge base."""
    return IngestPipeline(kb, embedder)


free_port = backends.free_port


#: Why no dovecot can run here (None when one can); the mail modules' skip mark.
NO_DOVECOT = why_no_dovecot()
needs_dovecot = pytest.mark.skipif(NO_DOVECOT is not None, reason=NO_DOVECOT or "")


@pytest.fixture(scope="module")
def dovecot() -> Iterator[Dovecot]:
    """A real dovecot on loopback for one module (samples/mailserver.py), stopped and deleted
    after it; a module that needs messages in it seeds them in a fixture of the same name that
    takes this one."""
    with running_dovecot() as server:
        yield server


def hearth_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """Environment for a `hearth` subprocess on ``data_dir`` (and the backends of this pass)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEARTH_")}
    env["HEARTH_DATA_DIR"] = str(data_dir)
    active = backends.active()
    if active is not None:
        env.update(active.env(data_dir))
    env.update(extra)
    return env


def run_hearth(
    data_dir: Path, *args: str, timeout: float = 600, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run the real `hearth` command and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        env=hearth_env(data_dir, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
    )


def spawn_hearth(data_dir: Path, *args: str) -> subprocess.Popen[bytes]:
    """Start the real `hearth` command in the background (its output discarded), for a test
    that stops or kills it part-way."""
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", *args],
        env=hearth_env(data_dir),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@dataclass
class Server:
    """A `hearth serve` process on a loopback port."""

    url: str
    process: subprocess.Popen[str]
    data_dir: Path

    def client(self, timeout: float = 300) -> httpx.Client:
        """An HTTP client for this server."""
        return httpx.Client(base_url=self.url, timeout=timeout)

    def openai_client(self, api_key: str = "unused") -> openai.OpenAI:
        """The openai SDK pointed at this server's ``/v1`` (no retries: a refusal shows)."""
        import openai

        return openai.OpenAI(base_url=f"{self.url}/v1", api_key=api_key, max_retries=0)

    def output(self) -> tuple[str, str]:
        """Stop the server and return its stdout and stderr."""
        self.stop()
        out, err = self.process.communicate(timeout=30)
        return out, err

    def stop(self) -> None:
        """Terminate the process."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()


def start_server(data_dir: Path, model: str = "smollm2-135m", **env: str) -> Server:
    """Start `hearth serve` on a free loopback port and wait until it answers health.

    Warmup (two timed generations and the system prompts' prefill, ~9 s a start here) is off
    unless ``HEARTH_LLM__WARMUP`` is given: only the tests of warmup itself need it."""
    env.setdefault("HEARTH_LLM__WARMUP", "false")
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "service.cli",
            "--model",
            model,
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=hearth_env(data_dir, **env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _out, err = proc.communicate()
            raise RuntimeError(f"hearth serve exited with {proc.returncode}: {err[-2000:]}")
        try:
            if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                return Server(url, proc, data_dir)
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise RuntimeError("hearth serve did not become healthy within 300 s")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`hearth serve` with the small bundled model on an empty data directory, for one module;
    a module that needs documents or other settings defines its own ``server``."""
    srv = start_server(tmp_path_factory.mktemp("server") / "data", model="smollm2-135m")
    yield srv
    srv.stop()


def hearth_on_library(root: Path, write_library: Callable[[Path], Path]) -> Iterator[Any]:
    """A module fixture's body: Hearth with the default model (warm-up off) on the library
    ``write_library(root / "docs")`` writes, ingested into ``root / "data"``; closed after."""
    from service.state import Hearth

    settings = backend_settings(root / "data")
    settings.llm.warmup = False
    started = Hearth.start(settings)
    try:
        IngestPipeline(started.kb, started.embedder).ingest_paths([write_library(root / "docs")])
        yield started
    finally:
        started.close()


def cited_names(answer: dict[str, object]) -> set[str]:
    """The file names an answer's ``as_dict()`` cites."""
    citations = answer["citations"]
    assert isinstance(citations, list)
    return {Path(c["path"]).name for c in citations}


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample in a Prometheus exposition."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    pattern = rf"^{re.escape(name)}{re.escape('{' + want + '}') if want else ''} (\S+)$"
    found = re.search(pattern, text, re.M)
    assert found, f"{name} {labels} not in /metrics"
    return float(found.group(1))
