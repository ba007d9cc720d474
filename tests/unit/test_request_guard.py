"""The request guard's rules (service/security/): which hosts and origins are this server's, and
which requests are refused and how; the Docker files' proxy and replicas agree with them.
The guard's behaviour on a real server is tests/integration/test_cross_site.py."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.settings import ServerSettings, load_settings
from service.library.service import safe_filename
from service.security.guard import RequestGuard
from service.security.hosts import HostPort, ServedHosts, parse_host, same_origin

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("127.0.0.1:8377", HostPort("127.0.0.1", 8377)),
        ("LocalHost.", HostPort("localhost", None)),
        ("[::1]:80", HostPort("::1", 80)),
        ("hearth.lan", HostPort("hearth.lan", None)),
        ("", None),
        ("a@b", None),
        ("a/b", None),
        ("host:port", None),
        ("[::1", None),
    ],
)
def test_parse_host(value: str, expected: HostPort | None) -> None:
    assert parse_host(value) == expected


def serves(bind: str, host: str, allowed: list[str] | None = None) -> bool:
    parsed = parse_host(host)
    assert parsed is not None
    return ServedHosts(bind, allowed or []).serves(parsed)


def test_loopback_bind_serves_loopback_and_configured_names_only() -> None:
    for host in ("127.0.0.1:1", "127.8.0.1", "localhost:9", "[::1]:9", "[0:0::1]"):
        assert serves("127.0.0.1", host), host
    for host in ("rebind.attacker.example", "localhost.attacker.example", "192.168.1.5", "[::2]"):
        assert not serves("127.0.0.1", host), host
    assert serves("127.0.0.1", "Hearth.LAN:443", ["hearth.lan"])
    assert serves("127.0.0.1", "hearth.lan", ["Hearth.lan.:8443"])
    assert not serves("127.0.0.1", "sub.hearth.lan", ["hearth.lan"])
    assert serves("127.0.0.1", "anything.example", ["*"])


def test_other_binds_serve_their_own_address_and_wildcards_any_address() -> None:
    assert serves("192.168.1.5", "192.168.1.5:8377")
    assert not serves("192.168.1.5", "192.168.1.6:8377")
    assert serves("::", "[fe80::1]:8377") and serves("0.0.0.0", "10.0.0.7")
    assert not serves("0.0.0.0", "rebind.attacker.example")  # a name needs allowed_hosts
    assert serves("0.0.0.0", "box.lan", ["box.lan"])
    assert serves("box.lan", "box.lan:8377")
    assert serves("fd00::5", "[fd00:0::5]")


def test_same_origin_is_host_and_port() -> None:
    host = HostPort("127.0.0.1", 8377)
    assert same_origin("http://127.0.0.1:8377", host)
    assert not same_origin("http://127.0.0.1:8378", host)
    assert not same_origin("http://localhost:8377", host)
    assert not same_origin("null", host) and not same_origin("file://", host)
    assert not same_origin("http://127.0.0.1:8377/x", host)
    bare = HostPort("hearth.lan", None)  # a proxy on the scheme's default port
    assert same_origin("https://hearth.lan", bare) and same_origin("http://hearth.lan:80", bare)
    assert not same_origin("http://hearth.lan:8377", bare)
    assert same_origin("http://[::1]:8377", HostPort("::1", 8377))


def run(
    method: str,
    headers: dict[str, str],
    path: str = "/api/templates/qa/activate",
    kind: str = "http",
    bind: str = "127.0.0.1",
) -> tuple[list[dict[str, Any]], bool]:
    """The messages the guard sent and whether the app was reached."""
    reached = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope)

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    scope = {
        "type": kind,
        "method": method,
        "path": path,
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    guard = RequestGuard(app, ServerSettings(host=bind))  # type: ignore[call-arg]
    asyncio.run(guard(scope, receive, send))  # type: ignore[arg-type]
    return sent, bool(reached)


HOST = {"Host": "127.0.0.1:8377"}


def test_the_guard_passes_reads_and_programs_and_refuses_the_rest() -> None:
    assert run("GET", {**HOST, "Origin": "http://attacker.example"})[1]
    assert run("OPTIONS", {**HOST, "Sec-Fetch-Site": "cross-site"})[1]
    assert run("POST", {**HOST, "Content-Type": "application/json"})[1]
    assert run("POST", {**HOST, "Content-Type": "multipart/form-data; boundary=x"})[1]
    assert run(
        "DELETE", {**HOST, "Origin": "http://127.0.0.1:8377", "Sec-Fetch-Site": "same-origin"}
    )[1]
    assert run("POST", {**HOST, "Sec-Fetch-Site": "none"})[1]
    for headers, status, field in [
        ({"Host": "evil.example:8377"}, 421, "Host"),
        ({}, 421, "Host"),
        ({**HOST, "Origin": "http://evil.example"}, 403, "Origin"),
        ({**HOST, "Sec-Fetch-Site": "same-site"}, 403, "Sec-Fetch-Site"),
        ({**HOST, "Content-Type": "Text/Plain; charset=utf-8"}, 415, "Content-Type"),
        ({**HOST, "Content-Type": "application/x-www-form-urlencoded"}, 415, "Content-Type"),
    ]:
        sent, reached = run("POST", headers)
        assert not reached and sent[0]["status"] == status, headers
        body = json.loads(sent[1]["body"])
        assert body["field"] == field and field.split("-")[0] in body["detail"]
        assert body["error"] in {"MisdirectedRequest", "CrossSiteRequest", "UnsupportedMediaType"}
    sent, _ = run("POST", {"Host": "evil.example", "Content-Type": "text/plain"}, "/v1/embeddings")
    error = json.loads(sent[1]["body"])["error"]
    assert error["param"] == "Host" and error["code"] == "host_not_served"
    assert "'evil.example'" in error["message"] and "server.allowed_hosts" in error["message"]


def test_websockets_need_the_host_and_the_origin() -> None:
    sent, reached = run("", {**HOST, "Origin": "http://evil.example"}, "/ws", kind="websocket")
    assert not reached and sent == [
        {"type": "websocket.close", "code": 1008, "reason": "CrossSiteRequest"}
    ]
    assert run("", {**HOST, "Origin": "http://127.0.0.1:8377"}, "/ws", kind="websocket")[1]


def test_allowed_hosts_setting_is_read_from_json_and_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HEARTH_SERVER__ALLOWED_HOSTS", '["Hearth.LAN", "box."]')
    assert load_settings().server.allowed_hosts == ["hearth.lan", "box"]
    with pytest.raises(ValueError, match="not a host name"):
        ServerSettings(allowed_hosts=["http://hearth.lan/"])  # type: ignore[call-arg]


def test_the_replicas_accept_the_host_nginx_forwards(monkeypatch: pytest.MonkeyPatch) -> None:
    nginx = (REPO / "docker" / "nginx.conf").read_text()
    # $host would drop the port, and then no same-origin page could post (Origin has it).
    assert re.search(r"proxy_set_header\s+Host\s+\$http_host;", nginx)
    compose = yaml.safe_load((REPO / "docker" / "compose.yaml").read_text())
    env = compose["services"]["hearth"]["environment"]
    dockerfile = (REPO / "docker" / "Dockerfile").read_text()
    bind = re.search(r"HEARTH_SERVER__HOST=(\S+)", dockerfile)
    assert bind is not None
    monkeypatch.setenv("HEARTH_SERVER__ALLOWED_HOSTS", env["HEARTH_SERVER__ALLOWED_HOSTS"])
    served = ServedHosts(bind.group(1), load_settings().server.allowed_hosts)
    for host in ("127.0.0.1:8377", "localhost:8377", "hearth:8377", "proxy:8377", "172.18.0.4"):
        parsed = parse_host(host)
        assert parsed is not None and served.serves(parsed), host


def test_uploaded_names_lose_bidirectional_controls() -> None:
    assert safe_filename("\u202egnp.txt") == "gnp.txt"
    assert safe_filename("\u2066a\u2069\u200eb\u200f\u061c\u202a\u202b\u202c\u202d.pdf") == "ab.pdf"
    assert safe_filename("مرحبا.txt") == "مرحبا.txt"  # right-to-left text itself is kept
