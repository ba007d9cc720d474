"""Access tokens (hashed, checked, revoked), loopback detection, OpenAI request validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.db.session import Database
from core.errors import InvalidInputError, NotFoundError
from service.openai_compat.schemas import ChatRequest, EmbeddingRequest, openai_error, parse
from service.tokens.service import TokenStore, hash_token, is_loopback


@pytest.fixture
def store(tmp_path: Path) -> TokenStore:
    db = Database(f"sqlite:///{tmp_path / 'c.db'}")
    db.migrate()
    return TokenStore(db)


def test_token_is_stored_only_as_its_hash_and_checks_until_revoked(store: TokenStore) -> None:
    assert store.check(None) == (0, None)
    info, secret = store.create("laptop")
    assert secret.startswith(f"hth_{info.token_id}_") and len(secret) > 40
    assert store.check(secret) == (1, info.token_id)
    assert store.check(secret + "x") == (1, None)
    assert store.check(None) == (1, None)
    with store.db.engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT token_hash FROM access_tokens").all()
    assert rows == [(hash_token(secret),)]
    assert [t.name for t in store.revoke(info.token_id)] == ["laptop"]
    assert store.check(secret) == (0, None)
    assert [t.active for t in store.all()] == [False]
    with pytest.raises(NotFoundError):
        store.revoke(info.token_id)


def test_revoke_by_name_and_bad_names(store: TokenStore) -> None:
    store.create("a")
    store.create("b")
    store.revoke("b")
    assert store.active_count() == 1
    with pytest.raises(InvalidInputError):
        store.create("bad\x00name")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.0.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.org", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_chat_request_validation_names_the_field() -> None:
    ok = parse(ChatRequest, {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert ok.chat_messages() == [{"role": "user", "content": "hi"}]
    parts = parse(
        ChatRequest,
        {
            "model": "m",
            "messages": [{"role": "developer", "content": [{"type": "text", "text": "be brief"}]}],
        },
    )
    assert parts.chat_messages() == [{"role": "system", "content": "be brief"}]
    cases = [
        ({"model": "m", "messages": []}, "messages"),
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "top_p": 0}, "top_p"),
        ({"messages": [{"role": "user", "content": "x"}]}, "model"),
    ]
    for body, field in cases:
        with pytest.raises(InvalidInputError) as err:
            parse(ChatRequest, body)
        assert err.value.field == field
    for extra, field in [({"n": 2}, "n"), ({"tools": [{"type": "function"}]}, "tools")]:
        req = parse(
            ChatRequest, {"model": "m", "messages": [{"role": "user", "content": "x"}]} | extra
        )
        with pytest.raises(InvalidInputError) as err:
            req.chat_messages()
        assert err.value.field == field
    image = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}
    with pytest.raises(InvalidInputError):
        parse(ChatRequest, {"model": "m", "messages": [image]}).chat_messages()
    with pytest.raises(InvalidInputError):
        parse(ChatRequest, {"model": "m", "messages": [image], "stop": ["a"] * 5}).stops()
    with pytest.raises(InvalidInputError):
        parse(ChatRequest, [1, 2])


def test_embedding_inputs_and_error_shape() -> None:
    assert parse(EmbeddingRequest, {"model": "e", "input": "x"}).items() == ["x"]
    # token ids, as LangChain's OpenAIEmbeddings sends them: one array, or one per input
    assert parse(EmbeddingRequest, {"model": "e", "input": [1, 2]}).items() == [[1, 2]]
    assert parse(EmbeddingRequest, {"model": "e", "input": [[1], [2, 3]]}).items() == [[1], [2, 3]]
    assert len(parse(EmbeddingRequest, {"model": "e", "input": ["x"] * 2048}).items()) == 2048
    bads: list[Any] = [[], [""], [[]], [[-1]], [[0] * 8193], ["x"] * 2049]
    for bad in bads:
        with pytest.raises(InvalidInputError):
            parse(EmbeddingRequest, {"model": "e", "input": bad}).items()
    body = openai_error(429, "busy", None, "queue_full")
    assert body == {
        "error": {
            "message": "busy",
            "type": "rate_limit_error",
            "param": None,
            "code": "queue_full",
        }
    }
