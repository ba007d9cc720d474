"""API fuzzing: schemathesis against Hearth's own OpenAPI document on a real loopback server
(SmolLM2, answers capped at 16 tokens, a small corpus). Every operation gets a bounded number of
generated cases, valid and invalid (fixed seed, no shrinking): no 5xx, status codes, content types
and bodies as documented, and every 4xx a JSON body whose message is readable and names what is
wrong."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from bench.load import SERVER_ENV, write_corpus
from tests.integration.conftest import Server, run_hearth, start_server

# Generated cases per operation; operations that run the model or Whisper get fewer.
EXAMPLES = 20
HEAVY = {
    "POST /api/ask": 8,
    "POST /api/ask/stream": 8,
    "POST /api/ask/voice": 6,
    "POST /api/answers/{answer_id}/replay": 6,
    "POST /v1/chat/completions": 8,
}
# Operations not fuzzed, with why: adding a mail account logs in to the host the request names,
# and generated host names would send DNS look-ups and connections beyond loopback. Its bad
# fields are tested in tests/unit/test_mail_fields.py and against a real dovecot.
SKIPPED = {"POST /api/mail/accounts"}
# Words every error message must carry one of, besides the field it names: what went wrong.
_WORDS = re.compile(r"[A-Za-z]{3,}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("fuzz")
    write_corpus(root / "docs")
    assert run_hearth(root / "data", "ingest", "-q", str(root / "docs")).returncode == 0
    srv = start_server(root / "data", model="smollm2-135m", **SERVER_ENV)
    yield srv
    srv.stop()


def error_message(body: Any) -> tuple[str, str | None]:
    """The human message of an error body and the field it blames (Hearth's shape, Litestar's
    validation shape with ``extra``, or OpenAI's ``error.message``/``error.param``)."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):  # /v1 (OpenAI) shape
        err = body["error"]
        return str(err.get("message") or ""), err.get("param")
    assert isinstance(body, dict), f"error body is not a JSON object: {body!r}"
    message = str(body.get("detail") or "")
    blamed = body.get("field")
    extra = body.get("extra")
    if isinstance(extra, list) and extra:
        keys = [e.get("key") for e in extra if isinstance(e, dict)]
        blamed = blamed or ", ".join(k for k in keys if k)
        message += " " + "; ".join(str(e.get("message", "")) for e in extra if isinstance(e, dict))
    return message.strip(), blamed


def clear_error(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx: a JSON body with a readable message; a 400/422 on a request that the schema
    rejects names the field or parameter (in the message or a ``field``/``param``/``extra``)."""
    if not 400 <= response.status_code < 500:
        return None
    assert response.headers.get("content-type", [""])[0].startswith("application/json"), (
        f"{response.status_code} is not JSON: {response.headers.get('content-type')}"
    )
    body = json.loads(response.text)
    message, blamed = error_message(body)
    assert len(_WORDS.findall(message)) >= 2, f"unclear error message: {body!r}"
    assert "Traceback" not in message and 'File "' not in message, f"internals leak: {body!r}"
    if response.status_code in (400, 422) and not blamed:
        names = {p.name for p in case.operation.iter_parameters()}
        names |= _body_fields(case)
        named = [n for n in names if n and n in message]
        # a body that cannot be decoded at all has no field to name: it must say so
        generic = any(w in message.lower() for w in ("body", "json", "multipart"))
        assert named or generic, f"{response.status_code} names no field or parameter: {body!r}"
    return None


def _body_fields(case: Any) -> set[str]:
    try:
        body = case.operation.body
        return {
            str(k)
            for b in body
            for k in (b.definition.get("schema", {}).get("properties", {}) or {})
        }
    except Exception:
        return set()


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    clear_error,
]


def describe(exc: BaseException) -> str:
    """A failure in one line: its kind, its first lines and the request that caused it."""
    text = str(exc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    curl = next((ln for ln in lines if ln.startswith("curl ")), "")
    head = " ".join(lines[:3])[:300]
    return f"{type(exc).__name__}: {head} | {curl[:300]}"


def fuzz_operation(op: Any, url: str, count: int) -> list[str]:
    """Run ``count`` positive and ``count`` negative cases; return the failures found."""
    failures: list[str] = []
    strategy = st.one_of(
        op.as_strategy(generation_mode=GenerationMode.POSITIVE),
        op.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    )

    @given(case=strategy)
    @settings(
        max_examples=count * 2,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        try:
            case.call_and_validate(base_url=url, checks=CHECKS, timeout=120)
        except BaseExceptionGroup as group:  # schemathesis' FailureGroup: one per check
            for exc in group.exceptions:
                failures.append(f"{op.label}: {describe(exc)}")
        except Exception as exc:  # one line per failure, the whole set asserted at the end
            failures.append(f"{op.label}: {describe(exc)}")

    run()
    return failures


def test_every_operation_survives_generated_requests(server: Server) -> None:
    schema = schemathesis.openapi.from_url(f"{server.url}/schema/openapi.json")
    labels = []
    failures: list[str] = []
    for result in schema.get_all_operations():
        op = result.ok()
        labels.append(op.label)
        if op.label in SKIPPED:
            continue
        failures += fuzz_operation(op, server.url, HEAVY.get(op.label, EXAMPLES))
    assert {"POST /api/ask", "POST /api/documents", "GET /api/documents"} <= set(labels)
    unique = sorted(set(failures))
    assert not unique, f"{len(unique)} failures:\n" + "\n".join(unique[:40])
    # the server is still whole after it all
    with server.client() as c:
        assert c.get("/api/health").status_code == 200
