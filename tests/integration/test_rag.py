"""Collections, conversations, stored answers and replay, tasks and templates — through a real
server (SmolLM2 for speed) with the real embedder and stores."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.conftest import Server, run_hearth, start_server
from tests.integration.sse import read_events

BOATS = "# Boats\nThe red dinghy named Puffin is moored at jetty four in Kelby harbour.\n"
BEES = "# Bees\nThe beekeeper Ines Varga keeps eleven hives on the hill above Kelby.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("rag")
    for name, text, coll in (("boats.md", BOATS, "sea"), ("bees.md", BEES, "land")):
        (root / name).write_text(text)
        done = run_hearth(root / "data", "ingest", "-q", "--collection", coll, str(root / name))
        assert done.returncode == 0, done.stderr
    srv = start_server(root / "data", model="smollm2-135m")
    yield srv
    srv.stop()


def test_collection_limits_what_a_question_sees(server: Server) -> None:
    with server.client() as c:
        for coll, name in (("sea", "boats.md"), ("land", "bees.md")):
            body = c.post(
                "/api/ask", json={"question": "What is in Kelby?", "collection": coll}
            ).json()
            assert {s["name"] for s in body["sources"]} == {name}
        assert c.post("/api/ask", json={"question": "x", "collection": ""}).status_code == 400


def test_answers_are_stored_with_their_recipe_and_replay_the_same(server: Server) -> None:
    with server.client() as c:
        body = c.post("/api/ask", json={"question": "Where is the dinghy Puffin moored?"}).json()
        answer_id = body["answer_id"]
        assert body["template"]["name"] == "qa" and body["template"]["version"] == 2
        assert set(body["grounding"]) >= {"grounded", "unsupported", "invalid_citations"}
        rec = c.get(f"/api/answers/{answer_id}").json()
        assert rec["answer"] == body["answer"]
        assert rec["model"] == "smollm2-135m" and len(rec["model_sha256"]) == 64
        assert rec["embedder"] == "all-MiniLM-L6-v2"
        assert rec["sampling"]["temperature"] == 0.0 and rec["sampling"]["seed"] == 0
        assert rec["template_hash"] == body["template"]["content_hash"]
        assert [r["chunk_id"] for r in rec["retrieved"]] == [s["chunk_id"] for s in body["sources"]]
        assert all(isinstance(r["score"], float) for r in rec["retrieved"])

        replayed = c.post(f"/api/answers/{answer_id}/replay").json()
        assert replayed["same_sources"] is True
        assert replayed["same_text"] is True, replayed
        assert c.get("/api/answers/999999").status_code == 404


def test_conversation_follow_up_is_condensed_and_stored(server: Server) -> None:
    with server.client() as c:
        conv = c.post("/api/conversations", json={"title": ""}).json()
        first = c.post(
            "/api/ask",
            json={"question": "Who keeps hives above Kelby?", "conversation_id": conv["id"]},
        ).json()
        assert first["standalone_question"] == "Who keeps hives above Kelby?"
        events = read_events(
            c,
            "/api/ask/stream",
            {"question": "How many does she keep?", "conversation_id": conv["id"]},
        )
        done = events[-1][1]
        assert events[-1][0] == "done"
        assert done["standalone_question"] != "How many does she keep?"  # rewritten by the model
        detail = c.get(f"/api/conversations/{conv['id']}").json()
        assert [m["role"] for m in detail["messages"]] == ["user", "assistant"] * 2
        assert detail["conversation"]["title"] == "Who keeps hives above Kelby?"
        rec = c.get(f"/api/answers/{done['answer_id']}").json()
        assert [t["role"] for t in rec["history"]] == ["user", "assistant"]

        renamed = c.patch(f"/api/conversations/{conv['id']}", json={"title": "Bees"}).json()
        assert renamed["title"] == "Bees"
        assert c.delete(f"/api/conversations/{conv['id']}").status_code == 204
        assert c.get(f"/api/conversations/{conv['id']}").status_code == 404
        missing = c.post("/api/ask", json={"question": "x", "conversation_id": 424242})
        assert missing.status_code == 404


def test_task_chooses_its_template_and_activated_versions_are_used(server: Server) -> None:
    with server.client() as c:
        body = c.post("/api/ask", json={"question": "the boats", "task": "summarize"}).json()
        assert body["template"]["name"] == "summarize"
        added = c.post(
            "/api/templates/qa/versions",
            json={
                "system": "Answer in one short sentence from the sources; cite [n].",
                "note": "short",
                "activate": True,
            },
        ).json()
        again = c.post("/api/ask", json={"question": "Where is Puffin moored?"}).json()
        assert again["template"] == {
            "name": "qa",
            "version": added["version"],
            "content_hash": added["content_hash"],
        }
        c.post("/api/templates/qa/rollback")
        assert c.post("/api/ask", json={"question": "x", "task": "poetry"}).status_code == 400


def test_nothing_relevant_means_dont_know_without_the_model(server: Server) -> None:
    with server.client() as c:
        body = c.post(
            "/api/ask",
            json={"question": "What is the boiling point of tungsten?", "collection": "sea"},
        ).json()
    assert body["sources"] == []
    assert body["answer"].startswith("I don't know")
    assert body["grounding"]["declined"] is True
