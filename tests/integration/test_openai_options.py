"""OpenAI options are honoured or refused, never silently ignored (issue 20, kind 4): the real
`openai` package against a real `hearth serve` with SmolLM2."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from tests.integration import backends
from tests.integration.conftest import Server, run_hearth, start_server

FACT = "The ferry to Aldmoor leaves from pier nine at 7:40 every Tuesday."
SCHEMA = {
    "type": "object",
    "properties": {
        "pier": {"type": "integer"},
        "day": {"type": "string", "enum": ["Monday", "Tuesday", "Wednesday"]},
    },
    "required": ["pier", "day"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("oaiopt")
    (root / "ferry.md").write_text(f"# Ferries\n{FACT}\n")
    assert run_hearth(root / "data", "ingest", "-q", str(root / "ferry.md")).returncode == 0
    srv = start_server(root / "data", HEARTH_LLM__MAX_TOKENS="64")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def client(server: Server) -> openai.OpenAI:
    return server.openai_client()


def test_json_schema_response_parses_and_validates(client: openai.OpenAI) -> None:
    resp = client.chat.completions.create(
        model="smollm2-135m",
        messages=[{"role": "user", "content": f"{FACT} Give the pier and the day as JSON."}],
        response_format={"type": "json_schema", "json_schema": {"name": "ferry", "schema": SCHEMA}},
        max_tokens=64,
    )
    value = json.loads(resp.choices[0].message.content or "")
    jsonschema.validate(value, SCHEMA)


def test_json_object_response_is_an_object(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="smollm2-135m",
        messages=[{"role": "user", "content": "Describe a duck as JSON."}],
        response_format={"type": "json_object"},
        max_tokens=64,
        stream=True,
    )
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text.lstrip().startswith("{")
    if text.rstrip().endswith("}"):  # cut at max_tokens otherwise
        assert isinstance(json.loads(text), dict)


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"top_logprobs": 3}, "top_logprobs"),  # without logprobs: true
        ({"logprobs": True, "top_logprobs": 21}, "top_logprobs"),  # OpenAI's bound is 20
        ({"logprobs": True, "top_logprobs": -1}, "top_logprobs"),
        ({"logit_bias": {"50256": -100}}, "logit_bias"),
        ({"presence_penalty": 1.0}, "presence_penalty"),
        ({"tool_choice": "auto"}, "tool_choice"),
        ({"response_format": {"type": "yaml"}}, "response_format.type"),
        ({"mirostat": 2}, "mirostat"),
    ],
)
def test_unhonoured_fields_are_400_naming_them(
    client: openai.OpenAI, extra: dict[str, object], field: str
) -> None:
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(
            model="smollm2-135m",
            messages=[{"role": "user", "content": "Hi"}],
            max_tokens=4,
            extra_body=extra,
        )
    assert err.value.status_code == 400
    assert err.value.body["param"] == field  # type: ignore[index]


def test_harmless_defaults_are_accepted(client: openai.OpenAI) -> None:
    resp = client.chat.completions.create(
        model="smollm2-135m",
        messages=[{"role": "user", "content": "Hi"}],
        max_tokens=4,
        user="me",
        logprobs=False,
        presence_penalty=0,
    )
    assert resp.choices[0].message.content is not None


def test_rag_usage_counts_the_whole_prompt(client: openai.OpenAI) -> None:
    question = "When does the ferry to Aldmoor leave?"
    resp = client.chat.completions.create(
        model="hearth-rag", messages=[{"role": "user", "content": question}], max_tokens=32
    )
    assert resp.usage is not None
    # the question is ~10 tokens; the prompt read holds the template and the passage too
    assert resp.usage.prompt_tokens > 60, resp.usage


LOGPROB_PROMPT: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "Name three colours of the rainbow."}
]
#: A greedy request asking for each token's logprobs with 5 alternatives.
WITH_LOGPROBS: dict[str, Any] = {
    "model": "smollm2-135m",
    "messages": LOGPROB_PROMPT,
    "max_tokens": 24,
    "temperature": 0,
    "logprobs": True,
    "top_logprobs": 5,
}


def _check_logprobs(content: list[openai.types.chat.ChatCompletionTokenLogprob], text: str) -> None:
    assert content, "no logprobs returned"
    assert "".join(t.token for t in content) == text
    for item in content:
        assert item.logprob <= 0.0
        assert bytes(item.bytes or []).decode("utf-8", errors="replace") == item.token
        top = [t.logprob for t in item.top_logprobs]
        assert len(top) == 5
        assert top == sorted(top, reverse=True)
        # temperature 0 is greedy: the chosen token is the most likely one
        assert item.top_logprobs[0].token == item.token
        assert item.top_logprobs[0].logprob == pytest.approx(item.logprob)


#: The scaled pass answers through llama_cpp.server (a remote runtime), which does not report
#: token log-probabilities to Hearth: there a request for them must be a 400 naming the field.
REMOTE_RUNTIME = backends.MODE == "scaled"


def _refused_for_the_runtime(client: openai.OpenAI, **extra: Any) -> None:
    with pytest.raises(openai.BadRequestError) as err:
        body = {k: v for k, v in {**WITH_LOGPROBS, **extra}.items() if v is not None}
        client.chat.completions.create(**body)
    assert err.value.body["param"] == "logprobs"  # type: ignore[index]
    assert "does not report token log-probabilities" in err.value.message


def test_logprobs_whole_and_streamed_leave_the_text_unchanged(client: openai.OpenAI) -> None:
    if REMOTE_RUNTIME:
        _refused_for_the_runtime(client)
        _refused_for_the_runtime(client, stream=True)
        return
    plain = client.chat.completions.create(
        model="smollm2-135m", messages=LOGPROB_PROMPT, max_tokens=24, temperature=0
    )
    assert plain.choices[0].logprobs is None
    text = plain.choices[0].message.content or ""
    assert text

    whole = client.chat.completions.create(**WITH_LOGPROBS)
    assert whole.choices[0].message.content == text  # sampling is unchanged
    assert whole.choices[0].logprobs is not None
    _check_logprobs(whole.choices[0].logprobs.content or [], text)

    stream = client.chat.completions.create(**WITH_LOGPROBS, stream=True)
    pieces: list[str] = []
    content: list[openai.types.chat.ChatCompletionTokenLogprob] = []
    for c in stream:
        if c.choices and c.choices[0].delta.content:
            pieces.append(c.choices[0].delta.content)
            assert c.choices[0].logprobs is not None
            content.extend(c.choices[0].logprobs.content or [])
    assert "".join(pieces) == text
    _check_logprobs(content, text)


def test_logprobs_without_alternatives(client: openai.OpenAI) -> None:
    if REMOTE_RUNTIME:
        _refused_for_the_runtime(client, top_logprobs=None)
        return
    resp = client.chat.completions.create(
        model="smollm2-135m", messages=LOGPROB_PROMPT, max_tokens=8, temperature=0, logprobs=True
    )
    assert resp.choices[0].logprobs is not None
    content = resp.choices[0].logprobs.content or []
    assert content and all(t.top_logprobs == [] and t.logprob <= 0 for t in content)


def test_rag_refuses_logprobs_naming_the_field(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(
            model="hearth-rag", messages=LOGPROB_PROMPT, max_tokens=8, logprobs=True
        )
    assert err.value.body["param"] == "logprobs"  # type: ignore[index]
