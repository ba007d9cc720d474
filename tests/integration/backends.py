"""The shared backends of the scaled test pass: Postgres, a Chroma server, llama_cpp.server.

``HEARTH_TEST_BACKENDS=scaled`` runs the integration tier against them instead of the embedded
defaults. Each is a real server on a loopback port in a temporary folder, started once per
session: Postgres from Debian's packages (``initdb`` + ``pg_ctl``, as the ``postgres`` user when
run as root), ``chroma run`` from the chromadb package, ``python -m llama_cpp.server`` with the
bundled smollm2. Every data directory a test uses gets its own database and Chroma collection,
named from the directory, so tests stay as independent as on SQLite.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

from samples.postgres import Postgres, free_port, postgres_bin, postgres_missing

__all__ = ["Postgres", "free_port", "postgres_bin"]

MODE = os.environ.get("HEARTH_TEST_BACKENDS", "embedded").strip().lower() or "embedded"
SCALED = MODE == "scaled"
MODEL_ALIAS = "smollm2-135m"


def _wait(
    check: Callable[[], bool],
    proc: subprocess.Popen[Any],
    what: str,
    log: Path,
    timeout: float = 120,
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if check():
                return
        except (httpx.HTTPError, OSError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{what} did not answer within {timeout:.0f} s")


def missing_reason() -> str | None:
    """Why the scaled backends cannot start here, or None when they can."""
    if reason := postgres_missing():
        return reason
    try:
        import chromadb  # noqa: F401
        import llama_cpp.server.app  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (pip install -e '.[test]')"
    return None


@dataclass
class Service:
    """A server process on a loopback port and its log."""

    url: str
    process: subprocess.Popen[str]
    log: IO[str]
    folder: Path

    def stop(self) -> None:
        """Terminate the process and remove its folder."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _serve(argv: list[str], folder: Path, port: int, health: str, what: str) -> Service:
    """Start ``argv`` in ``folder`` (its output in ``folder/server.log``) and wait until
    ``GET health`` on ``port`` answers 200; the process is killed if it never does."""
    log = (folder / "server.log").open("w+")
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    proc = subprocess.Popen(
        argv, stdout=log, stderr=subprocess.STDOUT, text=True, env=env, cwd=folder
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(
            lambda: httpx.get(f"{url}{health}", timeout=2).status_code == 200,
            proc,
            what,
            folder / "server.log",
        )
    except BaseException:
        proc.kill()
        raise
    return Service(url, proc, log, folder)


def start_chroma() -> Service:
    """``chroma run`` (the chromadb package's server) on a free loopback port."""
    port = free_port()
    chroma = Path(sys.executable).with_name("chroma")
    folder = Path(tempfile.mkdtemp(prefix="hearth-chroma-"))
    argv = [
        str(chroma),
        "run",
        "--path",
        str(folder / "data"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    return _serve(argv, folder, port, "/api/v2/heartbeat", "chroma run")


def start_llama_server(model_path: Path, alias: str = MODEL_ALIAS, n_ctx: int = 4096) -> Service:
    """``python -m llama_cpp.server`` with one GGUF on a free loopback port."""
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_path),
        "--model_alias",
        alias,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(os.cpu_count() or 2),
    ]
    folder = Path(tempfile.mkdtemp(prefix="hearth-llama-"))
    return _serve(argv, folder, port, "/v1/models", "llama_cpp.server")


@dataclass
class ScaledBackends:
    """The three shared servers of the scaled pass."""

    postgres: Postgres
    chroma: Service
    llm: Service

    def name_for(self, data_dir: Path) -> str:
        """Database and collection name of a data directory (stable for one path)."""
        digest = hashlib.sha1(str(Path(data_dir).resolve()).encode()).hexdigest()[:16]
        return f"t_{digest}"

    def env(self, data_dir: Path) -> dict[str, str]:
        """``HEARTH_*`` variables that put a `hearth` process on the shared backends."""
        name = self.name_for(data_dir)
        return {
            "HEARTH_DATABASE_URL": self.postgres.url(name),
            "HEARTH_CHROMA__MODE": "server",
            "HEARTH_CHROMA__URL": self.chroma.url,
            "HEARTH_CHROMA__COLLECTION": name,
            "HEARTH_LLM__BACKEND": "openai",
            "HEARTH_LLM__REMOTE_URL": self.llm.url,
        }

    def overrides(self, data_dir: Path) -> dict[str, Any]:
        """The same as keyword arguments of ``load_settings``."""
        env = self.env(data_dir)
        return {
            "database_url": env["HEARTH_DATABASE_URL"],
            "chroma": {
                "mode": "server",
                "url": self.chroma.url,
                "collection": env["HEARTH_CHROMA__COLLECTION"],
            },
            "llm": {"backend": "openai", "remote_url": self.llm.url},
        }

    def stop(self) -> None:
        """Stop every server."""
        for stop in (self.llm.stop, self.chroma.stop, self.postgres.stop):
            try:
                stop()
            except Exception as exc:  # keep stopping the others
                print(f"warning: stopping a test backend failed: {exc}", file=sys.stderr)


_ACTIVE: list[ScaledBackends] = []


def start_scaled() -> ScaledBackends:
    """Start Postgres, Chroma and llama_cpp.server (stop them with :meth:`ScaledBackends.stop`)."""
    from core.bundled import resolve_llm
    from core.settings import load_settings

    pg = Postgres.start()
    try:
        chroma = start_chroma()
        try:
            llm = start_llama_server(resolve_llm(MODEL_ALIAS, load_settings().models_dir))
        except BaseException:
            chroma.stop()
            raise
    except BaseException:
        pg.stop()
        raise
    backends = ScaledBackends(pg, chroma, llm)
    _ACTIVE.append(backends)
    return backends


def active() -> ScaledBackends | None:
    """The running scaled backends of this session, if any."""
    return _ACTIVE[-1] if _ACTIVE else None


def release() -> None:
    """Stop and forget the running backends."""
    while _ACTIVE:
        _ACTIVE.pop().stop()
