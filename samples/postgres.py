"""A throw-away Postgres cluster on a loopback port, from Debian's packages (``initdb`` +
``pg_ctl``, as the ``postgres`` user when run as root): the scaled test pass's catalogue
(tests/integration/backends.py) and bench/postgres_keywords.py's."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (Debian keeps them off PATH), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    return Path(versions[0]).parent if versions else None


def postgres_missing() -> str | None:
    """Why a Postgres cluster cannot be started here, or None when it can."""
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
