"""Settings from the environment, offline switches, and the one-way import rule."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from core.settings import load_settings

REPO = Path(__file__).resolve().parents[2]


def test_nested_settings_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HEARTH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("HEARTH_LLM__N_CTX", "2048")
    monkeypatch.setenv("HEARTH_RETRIEVAL__TOP_K", "7")
    s = load_settings()
    assert s.data_dir == tmp_path.resolve()
    assert s.llm.n_ctx == 2048 and s.retrieval.top_k == 7
    assert s.sqlalchemy_url == f"sqlite:///{tmp_path.resolve() / 'catalogue.db'}"


def test_invalid_setting_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEARTH_LLM__N_CTX", "12")
    with pytest.raises(ValueError, match="n_ctx"):
        load_settings()


def test_every_setting_is_described() -> None:
    from core.settings import HearthSettings

    def walk(model: type) -> list[str]:
        missing = []
        for name, field in model.model_fields.items():  # type: ignore[attr-defined]
            if not field.description:
                missing.append(name)
            ann = field.annotation
            if isinstance(ann, type) and hasattr(ann, "model_fields"):
                missing += [f"{name}.{m}" for m in walk(ann)]
        return missing

    assert walk(HearthSettings) == []


def test_importing_core_switches_hubs_offline() -> None:
    import core  # noqa: F401

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["ANONYMIZED_TELEMETRY"] == "False"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(
    ("package", "pattern", "forbidden"),
    [
        ("core", "*.py", {"ingest", "service", "litestar"}),
        ("ingest", "*.py", {"service", "litestar"}),
        # Controllers speak HTTP and call their feature's service; SQL stays in the services.
        ("service", "*controller*.py", {"sqlalchemy"}),
    ],
)
def test_imports_go_one_way(package: str, pattern: str, forbidden: set[str]) -> None:
    files = list((REPO / package).rglob(pattern))
    assert files, f"no {pattern} under {package}/"
    offenders = {
        str(p.relative_to(REPO)): sorted(_imports(p) & forbidden)
        for p in files
        if _imports(p) & forbidden
    }
    assert offenders == {}
