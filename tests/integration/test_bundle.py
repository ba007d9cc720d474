"""`hearth export` from one data directory and `hearth import` into another (SmolLM2): the same
question is answered with the same model file (sha256) and template version; a bundle with one
byte changed, or cut short, is refused naming the file, and nothing is written."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from core.bundled import packaged_path, sha256_file
from tests.integration.conftest import run_hearth

QUESTION = "What colour is the harbour crane?"


def last_answer(data: Path) -> tuple[object, ...]:
    """(model_sha256, template name, version, hash, answer) of the latest answer."""
    with closing(sqlite3.connect(data / "catalogue.db")) as db:
        row = db.execute(
            "SELECT model_sha256, template_name, template_version, template_hash, answer "
            "FROM answers ORDER BY id DESC LIMIT 1"
        ).fetchone()
    return tuple(row)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(source data dir, bundle, the document) after a new qa version and one answer."""
    root = tmp_path_factory.mktemp("bundle")
    doc = root / "harbour.txt"
    doc.write_text("The harbour crane is painted orange. It lifts forty tonnes.\n")
    system = root / "system.txt"
    system.write_text("Answer only from the numbered sources and cite them like [1].")
    a = root / "a"
    assert run_hearth(a, "ingest", "-q", str(doc)).returncode == 0
    added = run_hearth(a, "templates", "add", "qa", "--system", str(system), "--activate")
    assert added.returncode == 0, added.stderr
    asked = run_hearth(a, "--model", "smollm2-135m", "ask", "--json", QUESTION)
    assert asked.returncode == 0, asked.stderr
    bundle = root / "assistant.tar"
    done = run_hearth(a, "--model", "smollm2-135m", "export", str(bundle))
    assert done.returncode == 0, done.stderr
    return a, bundle, doc


@pytest.mark.embedded_only(
    "the imported assistant answers with the bundle's GGUF in process; the scaled pass answers "
    "through a remote llama_cpp.server and keeps its catalogue in Postgres"
)
def test_imported_assistant_answers_with_the_same_model_and_template(
    exported: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    a, bundle, doc = exported
    b = tmp_path / "b"
    done = run_hearth(b, "import", str(bundle))
    assert done.returncode == 0, done.stderr
    config = b / "imported" / "settings.toml"
    assert f"HEARTH_CONFIG={config}" in done.stdout
    assert run_hearth(b, "ingest", "-q", str(doc), HEARTH_CONFIG=str(config)).returncode == 0
    asked = run_hearth(b, "ask", "--json", QUESTION, HEARTH_CONFIG=str(config))
    assert asked.returncode == 0, asked.stderr
    assert str(b / "imported" / "models" / "llm") in json.loads(asked.stdout)["model"]
    there, here = last_answer(a), last_answer(b)
    assert here[0] == there[0] == sha256_file(packaged_path("smollm2-135m"))
    assert here[1:4] == there[1:4]  # qa, the version added in A (not B's seeded ones), hash
    assert here[4] == there[4]  # temperature 0, same seed, same file: the same answer


@pytest.mark.parametrize("damage", ["one byte", "truncated"])
def test_a_damaged_bundle_is_refused_and_nothing_is_written(
    exported: tuple[Path, Path, Path], tmp_path: Path, damage: str
) -> None:
    _, bundle, _ = exported
    data = bytearray(bundle.read_bytes())
    if damage == "one byte":
        data[data.index(b"models/llm/") + 50_000_000] ^= 0xFF  # inside the 98 MB GGUF member
    else:
        data = data[: len(data) // 2]
    bad = tmp_path / "bad.tar"
    bad.write_bytes(bytes(data))
    c = tmp_path / "c"
    done = run_hearth(c, "import", str(bad))
    assert done.returncode == 1
    if damage == "one byte":
        assert "models/llm/SmolLM2-135M-Instruct.Q4_1.gguf: size or sha256" in done.stderr
    else:
        assert "models/" in done.stderr and "truncated" in done.stderr, done.stderr
    assert not c.exists()
    assert list(tmp_path.iterdir()) == [bad]  # no staging folder left behind
