"""GET /api/eval/last on a real `hearth serve`: the last `hearth eval` report as written to
<data_dir>/eval/last.json, 404 with the way out when none was run, 4xx (never 5xx) when the file is
corrupt, and its typed schema in the OpenAPI document."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from service.evaluation.report import LAST_REPORT
from tests.integration.conftest import Server

pytestmark = pytest.mark.embedded_only("reads the eval report file only: one pass")


REPORT: dict[str, Any] = {
    "version": 1,
    "created": "2026-11-29T20:40:00+00:00",
    "gold": "squad_sample.jsonl",
    "kind": "jsonl",
    "collection": None,
    "model": "smollm2-135m",
    "k": 8,
    "retrieval": {
        "questions": 40,
        "recall@1": 0.625,
        "recall@5": 0.875,
        "recall@10": 0.925,
        "recall@k": 0.9,
        "mrr": 0.7431,
        "ndcg@10": 0.7812,
    },
    "answers": {
        "questions": 20,
        "containment": 0.55,
        "abstention_accuracy": 0.7,
        "declined_unanswerable": 0.6,
        "declined_answerable": 0.1,
        "ttft_s": {"median": 0.41, "p95": 0.93},
        "tokens_per_s": {"median": 38.5, "p95": 44.1},
    },
    "seconds": 73.2,
}


def report_path(server: Server) -> Path:
    path = Path(server.data_dir) / LAST_REPORT
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_absent_report_is_404_with_the_way_out(server: Server) -> None:
    report_path(server).unlink(missing_ok=True)
    with server.client() as c:
        r = c.get("/api/eval/last")
    assert r.status_code == 404
    assert r.json()["detail"] == "no evaluation has been run yet; run `hearth eval GOLD.jsonl`"


@pytest.mark.parametrize("answers", [True, False], ids=["with-answers", "retrieval-only"])
def test_written_report_is_returned_as_written(server: Server, answers: bool) -> None:
    report = copy.deepcopy(REPORT)
    if not answers:
        report["answers"] = None
        report["kind"] = "beir"
        report["collection"] = "squad"
    report_path(server).write_text(json.dumps(report))
    with server.client() as c:
        r = c.get("/api/eval/last")
    assert r.status_code == 200, r.text
    assert r.json() == report


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "not a valid report"),
        ('{"version": 1, "created": "x"}', "not a valid report"),
        (json.dumps({**REPORT, "retrieval": {**REPORT["retrieval"], "mrr": "high"}}), "mrr"),
        (json.dumps({**REPORT, "kind": "csv"}), "kind"),
        (json.dumps({**REPORT, "version": 2}), "version 2"),
        ("", "not a valid report"),
    ],
    ids=["not-json", "missing-fields", "wrong-type", "unknown-kind", "newer-version", "empty"],
)
def test_corrupt_report_is_a_clear_4xx(server: Server, content: str, says: str) -> None:
    report_path(server).write_text(content)
    with server.client() as c:
        r = c.get("/api/eval/last")
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    body = r.json()
    assert says in body["detail"]
    assert "last.json" in body["detail"]


def test_unreadable_report_is_a_clear_4xx(server: Server) -> None:
    path = report_path(server)
    path.unlink(missing_ok=True)
    path.mkdir()  # a directory where the file should be: reading it fails
    try:
        with server.client() as c:
            r = c.get("/api/eval/last")
    finally:
        path.rmdir()
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    assert "cannot be read" in r.json()["detail"]


def test_openapi_documents_the_typed_report(server: Server) -> None:
    with server.client() as c:
        doc = c.get("/schema/openapi.json").json()
    op = doc["paths"]["/api/eval/last"]["get"]
    ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    schema = doc["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert {"version", "created", "gold", "kind", "retrieval", "answers", "seconds"} <= set(
        schema["properties"]
    )
    retrieval = json.dumps(doc["components"]["schemas"])
    assert "recall@10" in retrieval and "ndcg@10" in retrieval
