"""Settings from the environment, offline switches, and the house rules: imports go one way
(and bench/ never into tests/), no private module across packages, text patterns only in
core/text, catalogue SQL only in core/catalogue, seams instead of privates patched by name."""

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
        ("core", "*.py", {"ingest", "service", "litestar", "samples", "bench", "tests"}),
        ("ingest", "*.py", {"service", "litestar", "samples", "bench", "tests"}),
        ("service", "*.py", {"samples", "bench", "tests"}),
        # Controllers speak HTTP and call their feature's service; SQL stays in the services.
        ("service", "*controller*.py", {"sqlalchemy"}),
        # The sample files both use are samples/'s: a benchmark never imports the tests.
        ("bench", "*.py", {"tests"}),
        ("samples", "*.py", {"tests", "bench"}),
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


# -- circles between packages -----------------------------------------------------------------

PRODUCT_DIRS = ("core", "ingest", "service")


def _package_of(module: str) -> str:
    path = REPO.joinpath(*module.split("."))
    return module if path.is_dir() else module.rsplit(".", 1)[0]


def module_graph(dirs: tuple[str, ...] = PRODUCT_DIRS) -> dict[str, set[str]]:
    """Module -> the product modules it imports: every ``import`` wherever it stands (in a
    function, under ``TYPE_CHECKING``), each package ``__init__`` an import runs on its way, and
    a dotted string naming a module (what a registry hands to importlib)."""
    files = {_module_of(p): p for p in _python_files(*dirs)}
    known = set(files)

    def resolve(dotted: str) -> str | None:
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            if ".".join(parts[:i]) in known:
                return ".".join(parts[:i])
        return None

    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names = [node.value] if "." in node.value and node.value in known else []
            else:
                continue
            for name in names:
                if (target := resolve(name)) is None:
                    continue
                parts = target.split(".")
                targets.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        graph[module] = {
            t for t in targets & known if t != module and not module.startswith(t + ".")
        }
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected parts of two or more modules
    (Tarjan's algorithm, without recursion), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def registration_folders(dirs: tuple[str, ...] = PRODUCT_DIRS) -> set[str]:
    """Packages that register a kind's built-in backends (they hold a ``builtin.py``)."""
    return {
        _module_of(p.parent / "__init__.py") for d in dirs for p in (REPO / d).rglob("builtin.py")
    }


def circles_between_packages(graph: dict[str, set[str]], registering: set[str]) -> list[list[str]]:
    """The circles of ``graph`` that cross a package boundary: a circle is allowed only among the
    modules of one package, or anywhere inside one registration folder (its registry, its
    ``builtin`` plugin module and the backends it registers)."""
    crossing = []
    for part in circles(graph):
        if len({_package_of(m) for m in part}) == 1:
            continue
        if any(all(m == f or m.startswith(f + ".") for m in part) for f in registering):
            continue
        crossing.append(part)
    return crossing


def test_no_circle_between_packages() -> None:
    """No two packages of the product import each other, however far round (imports in functions
    and under ``TYPE_CHECKING`` count: a type is a dependence too), except inside a registration
    folder; and retrieval does not import grounding."""
    graph = module_graph()
    assert circles_between_packages(graph, registration_folders()) == []
    retrieval = [m for m in graph if m.startswith("service.answering.retrieval")]
    assert retrieval
    grounding = {
        m: sorted(t for t in graph[m] if t.startswith("service.answering.grounding"))
        for m in retrieval
    }
    assert {m: ts for m, ts in grounding.items() if ts} == {}


def test_the_circle_rule_sees_a_crossing() -> None:
    """The rule itself: a circle through two packages is caught, however long; one inside a
    package (service.mcp), or inside a registration folder and its subpackages, is not; the real
    graph's modules and edges are read (an import in a function, a registry's dotted string)."""
    graph = {
        "service.llm.config": {"service.llm.runtimes"},
        "service.llm.runtimes": {"service.llm.base"},
        "service.llm.base": {"service.llm.config"},
        "ingest.commands": {"ingest.mail.commands"},
        "ingest.mail.commands": {"ingest.mail.sync"},
        "ingest.mail.sync": {"ingest.commands"},
        "service.mcp.tools": {"service.mcp.server"},
        "service.mcp.server": {"service.mcp.tools"},
        "core.keywords.base": {"core.keywords.builtin"},
        "core.keywords.builtin": {"core.keywords.pg.store"},
        "core.keywords.pg.store": {"core.keywords.base"},
    }
    crossing = [
        ["ingest.commands", "ingest.mail.commands", "ingest.mail.sync"],
        ["service.llm.base", "service.llm.config", "service.llm.runtimes"],
    ]
    assert sorted(circles_between_packages(graph, {"core.keywords"})) == crossing
    registry = ["core.keywords.base", "core.keywords.builtin", "core.keywords.pg.store"]
    assert sorted(circles_between_packages(graph, set())) == [registry, *crossing]
    real = module_graph()
    assert "core.keywords.builtin" in real["core.keywords.base"]  # the registry's string
    assert "ingest.mail.commands" in real["ingest.commands"]  # imported inside a function
    assert {"core.keywords", "core.vectorstores", "ingest.loaders"} <= registration_folders()


# -- packages and the text toolkit ------------------------------------------------------------

SOURCE_DIRS = ("core", "ingest", "service", "bench", "samples", "tests")


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


_MONTH_NAMES = {
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
}  # fmt: skip


def month_tables(source: str) -> list[int]:
    """Lines of ``source`` that spell the months out again: a tuple, list or set of three or more
    month names, or a string naming both January and February ("jan|feb", "January February")."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            names = [
                e.value
                for e in node.elts
                if isinstance(e, ast.Constant)
                and isinstance(e.value, str)
                and e.value.lower() in _MONTH_NAMES
            ]
            if len(names) >= 3:
                lines.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            low = node.value.lower()
            if re.search(r"\bjan", low) and re.search(r"\bfeb", low):
                lines.append(node.lineno)
    return lines


def test_month_names_live_in_the_text_toolkit() -> None:
    """How a date is read (month names, month-and-day patterns) is core/text/_dates.py's: one
    place, so "Sept." or "3rd of March" is read the same by retrieval, grounding and arithmetic.
    (bench/ writes dates into documents it makes; that is content, not reading.)"""
    toolkit = REPO / "core" / "text"
    offenders = [
        f"{p.relative_to(REPO)}:{line}"
        for p in _python_files("core", "ingest", "service")
        if toolkit not in p.parents
        for line in month_tables(p.read_text())
    ]
    assert offenders == []


def test_the_month_rule_sees_a_table_and_a_pattern() -> None:
    source = (
        'M = ("january", "february", "march")\n'
        'P = r"\\b(?:jan|feb|mar)\\b"\n'
        'N = ["May", "June"]\n'
        'S = "a march to the sea"\n'
    )
    assert month_tables(source) == [1, 2]


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


# -- the catalogue's one owner, and seams instead of patched privates --------------------------

#: SQL outside core/catalogue that is not a query of the catalogue's tables, with why.
SQL_ELSEWHERE = {
    "core/keywords": "the keyword index's own FTS5 / tsvector tables (a store, like Chroma)",
    "core/pglock.py": "Postgres advisory locks (no table)",
    "service/backup/postgres.py": "server statements around pg_dump (version, snapshot)",
}
_SQL_BUILDERS = {
    "select", "insert", "update", "delete", "text", "func", "bindparam", "table", "column",
    "literal", "cast", "exists", "union", "and_", "or_",
}  # fmt: skip


def _catalogue_models() -> set[str]:
    """The class names of core/db's tables (every class there with a ``__tablename__``)."""
    names: set[str] = set()
    for path in (REPO / "core" / "db").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(t, ast.Name) and t.id == "__tablename__"
                for stmt in node.body
                if isinstance(stmt, ast.Assign)
                for t in stmt.targets
            ):
                names.add(node.name)
    return names


def sql_in(source: str, models: set[str]) -> list[str]:
    """What in ``source`` builds or runs SQL: a statement builder imported from SQLAlchemy (or
    used as ``sa.select``), a catalogue model constructed (a row added) or handed to a method
    (``s.get(Model, id)``, ``s.query(Model)``), raw SQL through ``exec_driver_sql``."""
    found: list[str] = []
    aliases: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlalchemy"):
            found += [f"import {a.name}" for a in node.names if a.name in _SQL_BUILDERS]
        elif isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name == "sqlalchemy"}
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr in _SQL_BUILDERS
        ):
            found.append(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in models:
                found.append(f"{func.id}(...)")
            elif isinstance(func, ast.Attribute) and func.attr == "exec_driver_sql":
                found.append("exec_driver_sql")
            elif (
                isinstance(func, ast.Attribute)
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in models
            ):
                found.append(f".{func.attr}({node.args[0].id})")
    return found


def test_catalogue_sql_only_in_core_catalogue() -> None:
    """Every query of the catalogue's tables (documents, chunks, ledger, answers,
    conversations, templates, tokens, speakers) is core/catalogue's; core/db declares the tables
    and runs the migrations. Others' SQL is listed in ``SQL_ELSEWHERE`` with why. bench/ and
    tests/ may build and inspect a catalogue directly (a million rows inserted in bulk)."""
    models = _catalogue_models()
    assert {"Document", "Chunk", "AnswerRecord", "Conversation", "AccessToken"} <= models
    owners = (REPO / "core" / "catalogue", REPO / "core" / "db")
    offenders = {
        rel: found
        for p in _python_files("core", "ingest", "service")
        if not any(o in p.parents for o in owners)
        and not any((rel := str(p.relative_to(REPO))).startswith(e) for e in SQL_ELSEWHERE)
        if (found := sql_in(p.read_text(), models))
    }
    assert offenders == {}


def test_the_sql_rule_sees_each_kind() -> None:
    source = (
        "import sqlalchemy as sa\n"
        "from sqlalchemy import func, select\n"
        "from sqlalchemy.orm import Session\n"
        "def f(s, conn):\n"
        "    s.add(Conversation(title='x'))\n"
        "    s.get(Conversation, 1)\n"
        "    s.get('key')\n"
        "    s.query(Conversation).all()\n"
        "    conn.exec_driver_sql('SELECT 1')\n"
        "    return sa.text('SELECT 1'), sa.create_engine\n"
    )
    assert sorted(sql_in(source, {"Conversation"})) == sorted(
        [
            "import func",
            "import select",
            "Conversation(...)",
            ".get(Conversation)",
            ".query(Conversation)",
            "exec_driver_sql",
            "sa.text",
        ]
    )


def patched_privates(path: Path, source: str | None = None) -> list[str]:
    """The targets of ``patch("a.b._c.d")`` / ``setattr("...")`` calls in ``path`` (its text, or
    ``source``) that reach a private module or name of another package: a seam the code should
    offer instead."""
    here = _module_of(path).rsplit(".", 1)[0]
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        name = node.func.id if isinstance(node.func, ast.Name) else name
        target = node.args[0]
        if name not in {"patch", "setattr"} or not isinstance(target, ast.Constant):
            continue
        private = _private_at(target.value) if isinstance(target.value, str) else None
        if private and not (here == private[0] or here.startswith(private[0] + ".")):
            found.append(str(target.value))
    return found


def test_benchmarks_use_seams_not_patched_privates() -> None:
    """bench/ and the product patch no private function by its dotted name (a rename would make
    the benchmark measure something else without failing): bench/injection.py's "before" uses
    ``PromptAssembler.neutralize`` and ``AnswerService.check_injection`` instead."""
    found = {
        str(p.relative_to(REPO)): hits
        for p in _python_files("core", "ingest", "service", "bench")
        if (hits := patched_privates(p))
    }
    assert found == {}
    probe = REPO / "bench" / "probe.py"
    source = (
        "from unittest import mock\n"
        'mock.patch("service.answering.prompting._assemble.neutralize", str)\n'
        'mock.patch("ingest.loaders.html.drop_hidden_html", str)\n'
        'monkeypatch.setattr("core.keywords.sqlite_fts._match", str)\n'
    )
    assert patched_privates(probe, source) == [
        "service.answering.prompting._assemble.neutralize",
        "core.keywords.sqlite_fts._match",
    ]


#: A row of the README's settings table: its variables and its defaults.
_SETTINGS_ROW = re.compile(
    r"^\| `(HEARTH_[A-Z_]+)`((?: / `__[A-Z_]+`)*) \| ([^|]+) \|", re.MULTILINE
)


def test_the_readmes_settings_table_gives_the_defaults() -> None:
    """Every default the README's settings table writes as code (`144`) is the setting's own
    default: the table said 256 passage tokens and a prompt cache of 0 MiB long after both
    changed. Defaults in words ("SQLite in the data dir", "200 MiB") are not compared."""
    from core.settings import HearthSettings

    defaults = HearthSettings.model_construct()
    compared = 0
    for first, more, values in _SETTINGS_ROW.findall((REPO / "README.md").read_text()):
        section, _, name = first.removeprefix("HEARTH_").lower().partition("__")
        names = [name, *(m.strip(" /`_").lower() for m in more.split("/") if m.strip())]
        for field, value in zip(names, values.strip().split(" / "), strict=False):
            if not (field and value.startswith("`") and value.endswith("`")):
                continue
            model = getattr(defaults, section, None)
            if model is None or not hasattr(model, field):
                continue
            default = getattr(model, field)
            written = value.strip("`")
            if isinstance(default, bool):
                same = written == str(default).lower()
            elif isinstance(default, int | float):
                same = float(written) == float(default)
            elif isinstance(default, list):
                same = written == ("[]" if not default else written)
            else:
                same = written == str(getattr(default, "value", default))
            assert same, f"README: {first} {field} = {written}, default {default!r}"
            compared += 1
    assert compared >= 20
