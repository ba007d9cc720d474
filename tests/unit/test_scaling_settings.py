"""Settings that choose the scaled backends, and the writer lock each one implies."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from core.lock import WriterLock
from core.settings import load_settings
from core.vectorstores.base import configured_stores


def test_defaults_are_embedded(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path)
    assert s.chroma.mode == "embedded" and s.retrieval.faiss and not s.shared_catalogue
    assert configured_stores(s) == {"chroma": "chroma", "faiss": "faiss"}
    assert WriterLock.for_settings(s).kind == "flock"


def test_chroma_server_and_postgres(tmp_path: Path) -> None:
    s = load_settings(
        data_dir=tmp_path,
        database_url="postgresql://u:p@db:5432/hearth",
        chroma={"mode": "server", "url": "http://chroma:8000"},
        retrieval={"faiss": False, "dense_backend": "chroma"},
    )
    assert s.sqlalchemy_url == "postgresql+psycopg://u:p@db:5432/hearth"  # psycopg 3, not 2
    assert s.shared_catalogue
    assert configured_stores(s) == {"chroma": "chroma-server"}
    assert WriterLock.for_settings(s).kind == "advisory"


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"chroma": {"mode": "server"}}, "chroma.url is not set"),
        ({"chroma": {"mode": "server", "url": "chroma:8000"}}, "http(s)://host"),
        ({"retrieval": {"faiss": False}}, "set dense_backend = chroma"),
        ({"database_url": "mysql://x/y"}, "postgresql+psycopg"),
        ({"chroma": {"collection": "a b"}}, "collection"),
    ],
)
def test_bad_backend_settings_are_clear(
    tmp_path: Path, overrides: dict[str, object], words: str
) -> None:
    with pytest.raises(ValidationError) as err:
        load_settings(data_dir=tmp_path, **overrides)
    assert words in str(err.value)


def test_environment_chooses_the_backends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEARTH_CHROMA__MODE", "server")
    monkeypatch.setenv("HEARTH_CHROMA__URL", "https://vectors.example:9000")
    monkeypatch.setenv("HEARTH_RETRIEVAL__FAISS", "false")
    monkeypatch.setenv("HEARTH_RETRIEVAL__DENSE_BACKEND", "chroma")
    s = load_settings(data_dir=tmp_path)
    assert s.chroma.url == "https://vectors.example:9000" and not s.retrieval.faiss
