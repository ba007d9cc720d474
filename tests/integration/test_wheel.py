"""An installed wheel works away from the checkout (issue 29): what is read at run time from
beside the code ships in it (the web UI, the default prompt-template texts as package data, the
Alembic scripts as data files in PREFIX/share/hearth/alembic), and a fresh catalogue migrated
from the installed copy holds the same default templates as one migrated from the checkout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from core.db.session import Database
from service.templates.service import TemplateService

pytestmark = pytest.mark.embedded_only(
    "packaging: the wheel built and installed away from the checkout; no backend"
)

REPO = Path(__file__).resolve().parents[2]
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]

# Run by the installed copy, from a folder outside the checkout: where each part came from, and
# the active templates of a catalogue it migrates.
PROBE = """
import json, sys
import core.db.session as session, service
from core.db.session import ALEMBIC_DIR, Database
from service.templates.service import TemplateService
db = Database(f"sqlite:///{sys.argv[1]}")
db.migrate()
print(json.dumps({
    "session": session.__file__, "service": service.__file__, "alembic": str(ALEMBIC_DIR),
    "templates": [[t.name, t.version, t.content_hash] for t in TemplateService(db).active()],
}))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the tracked files as they are in the working tree (built from a copy, so
    the checkout gets no build/ or egg-info of it)."""
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        if (REPO / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, src / rel)
    out = root / "dist"
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-w", str(out), str(src)],
        check=True,
        capture_output=True,
    )
    (found,) = out.glob("hearth-*.whl")
    return found


def test_the_wheel_carries_what_is_read_at_run_time(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    defaults = sorted(
        p.relative_to(REPO).as_posix()
        for p in (REPO / "service" / "answering" / "prompting" / "defaults").rglob("*.txt")
    )
    migrations = sorted(p.name for p in (REPO / "alembic" / "versions").glob("*.py"))
    assert defaults and set(defaults) <= names
    assert "service/ui/static/index.html" in names
    (env,) = [n for n in names if n.endswith(".data/data/share/hearth/alembic/env.py")]
    data = env.removesuffix("env.py")
    assert data + "script.py.mako" in names
    assert {data + "versions/" + m for m in migrations} <= names
    assert not any(n.startswith(("samples/", "tests/", "bench/", "alembic/")) for n in names)


def test_an_installed_wheel_migrates_a_catalogue_like_the_checkout(
    wheel: Path, tmp_path: Path
) -> None:
    prefix = tmp_path / "prefix"
    subprocess.run(
        # --ignore-installed: without it pip first uninstalls the checkout's own editable
        # install from the running environment (.venv/bin/hearth gone for every later test).
        [
            *PIP,
            "install",
            "--no-deps",
            "--no-compile",
            "--ignore-installed",
            "--prefix",
            str(prefix),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    (site,) = prefix.glob("lib/python3*/site-packages")
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "HEARTH_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "installed.db")],
        cwd=away,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(seen["session"]).is_relative_to(site)
    assert Path(seen["service"]).is_relative_to(site)
    assert Path(seen["alembic"]) == (prefix / "share" / "hearth" / "alembic").resolve()

    checkout = Database(f"sqlite:///{tmp_path / 'checkout.db'}")
    checkout.migrate()
    expected = [[t.name, t.version, t.content_hash] for t in TemplateService(checkout).active()]
    checkout.dispose()
    assert len(expected) >= 6
    assert seen["templates"] == expected
    # The environment running the tests still has its own install.
    assert shutil.which("hearth", path=str(Path(sys.executable).parent)) is not None
