"""The vertical slice on real documents: ingest ../shared/data/docs, ask, edit, remove.

Uses the default assistant model (Qwen2.5-Coder-1.5B) through a real `hearth serve` on loopback.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.knowledge import KnowledgeBase
from tests.integration.conftest import backend_settings, run_hearth, start_server
from tests.integration.sse import read_events

pytestmark = pytest.mark.slow


def ids_everywhere(data: Path) -> tuple[dict[str, set[int]], dict[str, object]]:
    kb = KnowledgeBase(backend_settings(data))
    try:
        ids = {"sql": kb.catalogue_ids(), **{n: s.ids() for n, s in kb.stores.items()}}
        return ids, kb.stats()
    finally:
        kb.close()


def test_typewriter_question_is_answered_from_multi_page_pdf(
    shared_data: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    ingested = run_hearth(data, "ingest", str(shared_data / "docs"))
    assert ingested.returncode == 0, ingested.stderr
    assert "added 6" in ingested.stdout and "failed 0" in ingested.stdout

    server = start_server(data, model="qwen2.5-coder-1.5b")
    try:
        with server.client() as client:
            events = read_events(
                client, "/api/ask/stream", {"question": "Who patented the typewriter in 1868?"}
            )
    finally:
        out, err = server.output()
    kinds = [k for k, _ in events]
    assert kinds[0] == "sources" and kinds[-1] == "done"
    assert kinds.count("token") >= 2  # streamed in pieces, before "done"
    done = events[-1][1]
    cited = {Path(c["path"]).name for c in done["citations"]}
    assert "multi_page.pdf" in cited, done
    assert "Sholes" in done["answer"]
    assert done["citations"][0]["provenance"]["page"] == 1
    # Nothing of the question, the answer or the documents at the default log level.
    for text in ("patented", "Sholes", "Word Processor"):
        assert text not in out + err
    assert " DEBUG " not in err and " INFO " not in err  # quiet by default (bm25s logs at DEBUG)


def test_reingest_edit_and_remove_keep_every_store_in_step(
    shared_data: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(shared_data / "docs", docs)
    data = tmp_path / "data"
    assert run_hearth(data, "ingest", "-q", str(docs)).returncode == 0
    first, stats = ids_everywhere(data)
    assert first["sql"] == first["chroma"] == first["faiss"] and first["sql"]

    again = run_hearth(data, "ingest", "-q", str(docs))
    assert "unchanged 6" in again.stdout
    second, stats2 = ids_everywhere(data)
    assert second == first and stats2["chunks"] == stats["chunks"]

    md = docs / "md" / "wiki.md"
    md.write_text(md.read_text() + "\n\n## Hearth test\nThe archive moved to Reykjavik in 2031.\n")
    edited = run_hearth(data, "ingest", "-q", str(docs))
    assert "updated 1" in edited.stdout and "unchanged 5" in edited.stdout
    third, _ = ids_everywhere(data)
    assert third["sql"] == third["chroma"] == third["faiss"]
    assert third["sql"] != first["sql"]

    removed = run_hearth(data, "remove", str(docs / "pdf"))
    assert removed.returncode == 0 and removed.stdout.count("removed ") == 2
    fourth, stats4 = ids_everywhere(data)
    assert fourth["sql"] == fourth["chroma"] == fourth["faiss"]
    assert stats4["documents"] == 4 and len(fourth["sql"]) < len(third["sql"])

    status = run_hearth(data, "status")
    assert "in step" in status.stdout
