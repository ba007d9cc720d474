"""Access tokens on a real server: open without tokens, 401 once one exists, revoke; and
`hearth serve` refusing to listen beyond loopback without any token."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from tests.integration.conftest import Server, free_port, run_hearth, start_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """SmolLM2, no documents, warm-up off (only the gate is under test)."""
    srv = start_server(tmp_path_factory.mktemp("tok") / "data", HEARTH_LLM__WARMUP="false")
    yield srv
    srv.stop()


def _create(data_dir: Path, name: str) -> dict[str, str]:
    done = run_hearth(data_dir, "tokens", "create", "--name", name, "--json", timeout=120)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_tokens_lock_the_api_and_revoke_stops_one(server: Server) -> None:
    url = server.url
    # No token yet: open, and the UI's check says no sign-in is needed.
    assert httpx.get(f"{url}/api/system", timeout=30).status_code == 200
    check = httpx.get(f"{url}/api/auth/check", timeout=30)
    assert check.status_code == 200 and check.json()["auth_required"] is False

    first = _create(server.data_dir, "laptop")
    second = _create(server.data_dir, "phone")
    token = first["token"]
    assert token.startswith(f"hth_{first['id']}_") and first["token"] != second["token"]

    # The secret is never stored nor listed.
    listed = run_hearth(server.data_dir, "tokens", "list", "--json", timeout=120)
    assert [t["name"] for t in json.loads(listed.stdout)] == ["laptop", "phone"]
    assert token not in listed.stdout
    db = (server.data_dir / "catalogue.db").read_bytes()
    assert token.encode() not in db

    # A token exists: everything but health needs it.
    assert httpx.get(f"{url}/api/health", timeout=30).status_code == 200
    for path in ("/api/system", "/metrics", "/api/documents", "/schema/openapi.json"):
        resp = httpx.get(f"{url}{path}", timeout=30)
        assert resp.status_code == 401, path
        assert "Authorization: Bearer" in resp.json()["detail"]
        assert resp.headers["www-authenticate"].startswith("Bearer")
    assert httpx.get(f"{url}/api/auth/check", timeout=30).status_code == 401
    wrong = httpx.get(f"{url}/api/system", headers={"Authorization": "Bearer hth_x_y"}, timeout=30)
    assert wrong.status_code == 401 and "not valid" in wrong.json()["detail"]

    with pytest.raises(openai.AuthenticationError) as denied:
        openai.OpenAI(base_url=f"{url}/v1", api_key="wrong", max_retries=0).models.list()
    assert denied.value.code == "invalid_api_key"
    client = openai.OpenAI(base_url=f"{url}/v1", api_key=token, max_retries=0)
    assert "smollm2-135m" in [m.id for m in client.models.list()]

    auth = {"Authorization": f"Bearer {token}"}
    check = httpx.get(f"{url}/api/auth/check", headers=auth, timeout=30)
    assert check.status_code == 200
    assert check.json() == {"ok": True, "auth_required": True, "token_id": first["id"]}
    metrics = httpx.get(f"{url}/metrics", headers=auth, timeout=30).text
    assert 'method="GET",route="/api/system",status="401"' in metrics

    # Revoked: that token stops at once; the other still works.
    done = run_hearth(server.data_dir, "tokens", "revoke", first["id"], timeout=120)
    assert done.returncode == 0 and first["id"] in done.stdout
    assert httpx.get(f"{url}/api/system", headers=auth, timeout=30).status_code == 401
    with pytest.raises(openai.AuthenticationError):
        client.models.list()
    other = {"Authorization": f"Bearer {second['token']}"}
    assert httpx.get(f"{url}/api/system", headers=other, timeout=30).status_code == 200
    again = run_hearth(server.data_dir, "tokens", "revoke", first["id"], timeout=120)
    assert again.returncode == 1 and "no active token" in again.stderr


def test_refuses_to_listen_beyond_loopback_without_a_token(tmp_path: Path) -> None:
    done = run_hearth(
        tmp_path / "data",
        "--model",
        "smollm2-135m",
        "serve",
        "--host",
        "0.0.0.0",
        "--port",
        str(free_port()),
        timeout=120,
    )
    assert done.returncode == 2
    assert "refusing to listen on 0.0.0.0" in done.stderr
    assert "hearth tokens create" in done.stderr
    assert "loading" not in done.stderr  # stopped before any model loaded
