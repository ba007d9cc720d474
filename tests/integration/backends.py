"""The shared backends of the scaled test pass: Postgres, a Chroma server, llama_cpp.server.

``HEARTH_TEST_BACKENDS=scaled`` runs the integration tier against them instead of the embedded
defaults. Each is a real server on a loopback port in a temporary folder, started once per
session: Postgres from Debian's packages (``initdb`` + ``pg_ctl``, as the ``postgres`` user when
run as root), ``chroma run`` from the chromadb package, ``python -m llama_cpp.server`` with the
bundled smollm2. Every data directory a test uses gets its own database and Chroma collection,
named from the directory, so tests stay as independent as on SQLite.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx

MODE = os.environ.get("HEARTH_TEST_BACKENDS", "embedded").strip().lower() or "embedded"
SCALED = MODE == "scaled"
MODEL_ALIAS = "smollm2-135m"


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


def postgres_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (Debian keeps them off PATH), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    return Path(versions[0]).parent if versions else None


def missing_reason() -> str | None:
    """Why the scaled backends cannot start here, or None when they can."""
    if postgres_bin() is None:
        return "PostgreSQL (initdb, pg_ctl) is not installed"
    if os.geteuid() == 0:
        import pwd

        if shutil.which("runuser") is None:
            return "running as root without runuser to start Postgres as the postgres user"
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run Postgres as"
    try:
        import chromadb  # noqa: F401
        import llama_cpp.server.app  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (pip install -e '.[test]')"
    return None


@dataclass
class Postgres:
    """A throw-away Postgres cluster on a loopback port (trust auth, loopback only)."""

    root: Path
    port: int
    bindir: Path
    created: set[str] = field(default_factory=set)

    @property
    def admin_url(self) -> str:
        """URL of the maintenance database."""
        return f"postgresql+psycopg://hearth@127.0.0.1:{self.port}/postgres"

    def url(self, name: str) -> str:
        """URL of database ``name``, created on first use."""
        if name not in self.created:
            import psycopg

            with psycopg.connect(
                f"host=127.0.0.1 port={self.port} user=hearth dbname=postgres", autocommit=True
            ) as conn:
                exists = conn.execute(
                    "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
                ).fetchone()
                if not exists:
                    conn.execute(f'CREATE DATABASE "{name}"')
            self.created.add(name)
        return f"postgresql+psycopg://hearth@127.0.0.1:{self.port}/{name}"

    def _run(self, *cmd: str) -> None:
        argv = list(cmd)
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        subprocess.run(argv, check=True, capture_output=True, text=True, timeout=120)

    @classmethod
    def start(cls) -> Postgres:
        """initdb + pg_ctl start in a temporary folder."""
        bindir = postgres_bin()
        assert bindir is not None
        root = Path(tempfile.mkdtemp(prefix="hearth-pg-"))
        if os.geteuid() == 0:
            shutil.chown(root, "postgres", "postgres")
        pg = cls(root, free_port(), bindir)
        data = root / "data"
        pg._run(
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            "hearth",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
        )
        opts = f"-h 127.0.0.1 -p {pg.port} -k {root} -c fsync=off -c full_page_writes=off"
        pg._run(
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(root / "log"),
            "-o",
            opts,
            "-w",
            "-t",
            "60",
            "start",
        )
        return pg

    def stop(self) -> None:
        """pg_ctl stop, then remove the folder."""
        try:
            self._run(
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.root / "data"),
                "-m",
                "fast",
                "-w",
                "stop",
            )
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


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
