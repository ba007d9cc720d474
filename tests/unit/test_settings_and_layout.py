"""Settings from the environment, offline switches, and the one-way import rule."""

from __future__ import annotations

import ast
import os
import re
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


# -- packages and the text toolkit ------------------------------------------------------------

SOURCE_DIRS = ("core", "ingest", "service", "bench", "tests")


def _python_files(*dirs: str) -> list[Path]:
    return sorted(p for d in dirs for p in (REPO / d).rglob("*.py") if ".venv" not in p.parts)


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _private_at(dotted: str) -> tuple[str, bool] | None:
    """The package that owns the first private part of ``dotted`` ("a.b._c.d" -> "a.b") and
    whether that part is a module (else a name); None when no part is private (dunders are not).
    """
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            owner = ".".join(parts[:i])
            where = REPO.joinpath(*parts[: i + 1])
            is_module = i < len(parts) - 1 or where.with_suffix(".py").exists() or where.is_dir()
            return owner, is_module
    return None


def private_imports_across_packages(
    path: Path, source: str | None = None, names: bool = True
) -> list[str]:
    """The imports of ``path`` (its text, or ``source``) that reach a private module (and with
    ``names``, a private name) of a package ``path`` is not inside: ``from
    service.answering.grounding._check import check`` outside ``service/answering/grounding/``."""
    here = _module_of(path)
    if path.name != "__init__.py":
        here = here.rsplit(".", 1)[0] if "." in here else ""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [f"{node.module}.{a.name}" for a in node.names]
        for dotted in targets:
            private = _private_at(dotted)
            if private is None or not (private[1] or names):
                continue
            owner = private[0]
            if not (here == owner or here.startswith(owner + ".")):
                found.append(dotted)
    return found


def test_no_private_module_is_imported_from_outside_its_package() -> None:
    """Outside a package only its public names are imported: no ``_module`` of it anywhere, and
    no ``_name`` of it in the product and bench (a unit test may test a private helper)."""
    offenders = {
        str(p.relative_to(REPO)): found
        for p in _python_files(*SOURCE_DIRS)
        if (found := private_imports_across_packages(p, names=p.parts[len(REPO.parts)] != "tests"))
    }
    assert offenders == {}


def test_the_private_import_rule_sees_a_crossing() -> None:
    """The rule itself: a module of another package reaching a ``_module`` is caught; the
    package's own modules and its public names are not."""
    source = (
        "from service.answering.grounding._check import check\n"
        "import service.answering.retrieval._passages\n"
        "from service.answering.grounding import review\n"
        "from core.keywords.sqlite_fts import _match\n"
    )
    outside = REPO / "service" / "evaluation" / "probe.py"
    inside = REPO / "service" / "answering" / "grounding" / "probe.py"
    assert private_imports_across_packages(outside, source) == [
        "service.answering.grounding._check.check",
        "service.answering.retrieval._passages",
        "core.keywords.sqlite_fts._match",
    ]
    assert private_imports_across_packages(outside, source, names=False) == [
        "service.answering.grounding._check.check",
        "service.answering.retrieval._passages",
    ]
    assert private_imports_across_packages(inside, source, names=False) == [
        "service.answering.retrieval._passages"
    ]


_CLASS = re.compile(r"(?<!\\)\[(\^?)((?:\\.|[^\]\\])*)\]")


def text_pattern_kind(pattern: str) -> str | None:
    """What a regular expression's text splits or finds, when it is one of the toolkit's kinds:
    ``sentence`` (a character class of ".", "!" and "?"), ``number`` (``\\d[\\d,.]``) or
    ``citation`` (``\\[\\d``); None otherwise."""
    if "\\[\\d" in pattern or "\\[(\\d" in pattern:
        return "citation"
    if "\\d[\\d,." in pattern or "\\d[\\d.," in pattern:
        return "number"
    for negated, members in _CLASS.findall(pattern):
        if not negated and all(c in members for c in ".!?"):
            return "sentence"
    return None


def text_patterns(source: str) -> list[tuple[int, str, str]]:
    """(line, kind, text) of every string constant of ``source`` (docstrings aside) that is a
    sentence, number or citation pattern."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, kind, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and (kind := text_pattern_kind(node.value))
    ]


def test_sentence_number_and_citation_patterns_live_in_the_text_toolkit() -> None:
    """Every pattern that splits sentences or finds numbers or citation markers is core/text's
    (one place to change how Hearth reads a text)."""
    toolkit = REPO / "core" / "text"
    offenders = {
        f"{p.relative_to(REPO)}:{line}": f"{kind} {text!r}"
        for p in _python_files("core", "ingest", "service", "bench")
        if toolkit not in p.parents
        for line, kind, text in text_patterns(p.read_text())
    }
    assert offenders == {}


def test_the_toolkit_rule_knows_each_kind() -> None:
    source = (
        '"""Splits at [.!?] in prose."""\n'
        "import re\n"
        'A = re.compile(r"(?<=[.!?])\\s+")\n'
        'B = re.compile(r"(?<![\\w.])\\d[\\d,.]*\\d")\n'
        'C = re.compile(r"\\[\\d{1,3}\\]")\n'
        'D = re.compile(r"[^.!?\\n]{0,40}")\n'
        'E = re.compile(r"[\\W_]+")\n'
    )
    assert [(line, kind) for line, kind, _ in text_patterns(source)] == [
        (3, "sentence"),
        (4, "number"),
        (5, "citation"),
    ]
