"""`/api/mail` on a real `hearth serve` against a real dovecot: add an account (a refused login
is a 400 naming it), the server's follower syncs it and, through IDLE, a new message soon after
it arrives; sync now; remove the account with its documents. The password is in no response and
no line of the server's DEBUG log."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from samples.mailserver import PASSWORD, USER, Dovecot, make_message
from tests.integration.conftest import needs_dovecot, start_server

pytestmark = needs_dovecot


@pytest.fixture(scope="module")
def dovecot(dovecot: Dovecot) -> Dovecot:
    """The module's dovecot with three messages in INBOX."""
    dovecot.append([make_message(i, f"Greeting {i}", f"Hello number {i}.") for i in range(3)])
    return dovecot


def mail_documents(client: httpx.Client) -> list[dict[str, object]]:
    """The server's documents that are IMAP messages or their attachments."""
    docs = client.get("/api/documents").json()
    return [d for d in docs if str(d["path"]).startswith("imap://")]


def wait_for(check: object, seconds: float) -> bool:
    """Poll ``check()`` until true or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.25)
    return False


def test_accounts_over_http_with_an_idle_follower(dovecot: Dovecot, tmp_path: Path) -> None:
    server = start_server(tmp_path / "data", HEARTH_LOG_LEVEL="DEBUG")
    body = {
        "host": "127.0.0.1",
        "port": dovecot.imaps_port,
        "user": USER,
        "ca_file": str(dovecot.cert),
        "name": "web",
    }
    try:
        with server.client() as client:
            refused = client.post("/api/mail/accounts", json={**body, "password": "wrong-8Kp"})
            assert refused.status_code == 400, refused.text
            assert "mail account web" in refused.json()["detail"]
            assert "wrong-8Kp" not in refused.text
            bad_tls = client.post(
                "/api/mail/accounts", json={**body, "password": PASSWORD, "tls": "maybe"}
            )
            assert bad_tls.status_code == 400 and bad_tls.json()["field"] == "tls"

            made = client.post("/api/mail/accounts", json={**body, "password": PASSWORD})
            assert made.status_code == 201, made.text
            assert made.json()["followed_folders"] == ["INBOX"]
            assert PASSWORD not in made.text
            twice = client.post("/api/mail/accounts", json={**body, "password": PASSWORD})
            assert twice.status_code == 409

            assert wait_for(lambda: len(mail_documents(client)) == 3, 60)
            dovecot.append([make_message(9, "Parcel", "The parcel locker PIN is 5511.")])
            arrived = time.monotonic()
            assert wait_for(lambda: len(mail_documents(client)) == 4, 60), "IDLE did not wake"
            print(f"new message in the library {time.monotonic() - arrived:.1f} s after it arrived")

            synced = client.post("/api/mail/sync", json={"account": "web"})
            assert synced.status_code == 200, synced.text
            assert synced.json()[0]["unchanged"] == 4 and synced.json()[0]["added"] == 0

            listed = client.get("/api/mail/accounts").json()
            assert listed[0]["name"] == "web" and listed[0]["messages"] == 4
            assert listed[0]["last_error"] is None
            assert PASSWORD not in str(listed)

            removed = client.delete("/api/mail/accounts/web")
            assert removed.status_code == 200, removed.text
            assert removed.json()["removed_documents"] == 4
            assert mail_documents(client) == []
            assert client.get("/api/mail/accounts").json() == []
            assert client.delete("/api/mail/accounts/web").status_code == 404
    finally:
        out, err = server.output()
    assert PASSWORD not in out + err
    assert "wrong-8Kp" not in out + err
