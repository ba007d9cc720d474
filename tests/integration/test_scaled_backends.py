"""Scale-out on real shared backends: Postgres, a Chroma server and llama_cpp.server.

These run on the scaled pass (``HEARTH_TEST_BACKENDS=scaled``, started by scripts/test.sh when
Postgres is installed); the embedded pass skips them with that reason.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select, text

import core.db  # noqa: F401 - every model on Base.metadata
from core.db.models import Base, Chunk, Document
from core.db.session import Database
from core.embedder import Embedder
from core.errors import ConflictError
from core.keywords.base import include_object
from core.knowledge import KnowledgeBase
from core.lock import WriterLock
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever
from tests.integration import backends
from tests.integration.conftest import REPO, backend_settings, start_server

FACT = "The lighthouse keeper on Skerrow Rock feeds the gulls at half past five."


@pytest.fixture
def shared() -> backends.ScaledBackends:
    """The session's scaled backends; skip on the embedded pass."""
    active = backends.active()
    if active is None:
        pytest.skip("needs the scaled pass (HEARTH_TEST_BACKENDS=scaled) and its servers")
    return active


def test_postgres_migrations_match_the_models_and_keep_json_and_bytes(
    shared: backends.ScaledBackends, tmp_path: Path
) -> None:
    db = Database(shared.postgres.url(shared.name_for(tmp_path / "migr")))
    try:
        db.migrate()
        db.migrate()  # idempotent, as every start runs it
        with db.engine.connect() as conn:
            assert db.engine.dialect.name == "postgresql"
            assert (
                compare_metadata(
                    MigrationContext.configure(conn, opts={"include_object": include_object}),
                    Base.metadata,
                )
                == []
            )
        vector = bytes(range(256)) * 6
        with db.session() as s:
            doc = Document(path="/x/a.txt", collection="c", file_type="text", status="ingested")
            s.add(doc)
            s.flush()
            s.add(
                Chunk(
                    document_id=doc.id,
                    ordinal=0,
                    text="t",
                    token_count=1,
                    provenance={"page": 3, "heading": "Ünïcode"},
                    embedding=vector,
                )
            )
        with db.session() as s:
            chunk = s.scalars(select(Chunk)).one()
            assert chunk.provenance == {"page": 3, "heading": "Ünïcode"}
            assert chunk.embedding == vector
        # Rows seeded with explicit ids (0002's templates) do not move a Postgres sequence: each
        # table's next id must be past its largest, or the next insert (migration 0009's
        # templates, `hearth templates add`) fails with a unique violation.
        with db.engine.connect() as conn:
            behind = []
            inspector = inspect(conn)
            for table in inspector.get_table_names():
                if "id" not in {c["name"] for c in inspector.get_columns(table)}:
                    continue
                sequence = conn.execute(
                    text("SELECT pg_get_serial_sequence(:t, 'id')"), {"t": table}
                ).scalar_one_or_none()
                if sequence is None:
                    continue
                last, called = conn.execute(
                    text(f"SELECT last_value, is_called FROM {sequence}")
                ).one()
                largest = conn.execute(text(f'SELECT MAX(id) FROM "{table}"')).scalar() or 0
                if (last + 1 if called else last) <= largest:
                    behind.append((table, last, largest))
            assert behind == []
            assert conn.execute(text(
                "SELECT COUNT(*) FROM prompt_templates WHERE name LIKE 'wholedoc-%'"
            )).scalar() == 4
    finally:
        db.dispose()


def test_one_writer_per_catalogue_across_processes(
    shared: backends.ScaledBackends, tmp_path: Path
) -> None:
    url = shared.postgres.url(shared.name_for(tmp_path / "lock"))
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; from pathlib import Path; from core.lock import WriterLock; "
            f"WriterLock(Path({str(tmp_path / 'a')!r}), {url!r}).acquire(); "
            "print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        # Another data directory (another machine's replica) on the same catalogue is refused.
        other = WriterLock(tmp_path / "b", url)
        assert other.kind == "advisory"
        with pytest.raises(ConflictError) as err:
            other.acquire()
        assert f"pid {holder.pid} on " in err.value.message
        assert "password" not in err.value.message and not other.held
    finally:
        holder.kill()
        holder.wait()
    with WriterLock(tmp_path / "b", url) as again:  # the session died: so did its lock
        assert again.held
        with WriterLock(tmp_path / "c", url) as nested:  # re-entrant in one process
            assert nested.held
        assert again.held


def test_a_replica_sees_chunks_another_wrote(
    shared: backends.ScaledBackends, tmp_path: Path, embedder: Embedder
) -> None:
    """Two knowledge bases on one Postgres + Chroma server: B's FAISS follows A's writes, and a
    replica without FAISS answers dense queries from the Chroma server."""
    env_key = tmp_path / "shared"
    a = KnowledgeBase(backend_settings(tmp_path / "a", **shared.overrides(env_key)))
    b = KnowledgeBase(backend_settings(tmp_path / "b", **shared.overrides(env_key)))
    no_faiss = shared.overrides(env_key)
    no_faiss["retrieval"] = {"faiss": False, "dense_backend": "chroma"}
    c = KnowledgeBase(backend_settings(tmp_path / "c", **no_faiss))
    try:
        assert set(c.stores) == {"chroma"}
        rb, rc = Retriever(b, embedder), Retriever(c, embedder)
        assert rb.retrieve("gulls lighthouse", method="dense") == []
        doc = tmp_path / "keeper.txt"
        doc.write_text(FACT)
        with WriterLock.for_settings(a.settings):
            IngestPipeline(a, embedder).ingest([doc])
        for r in (rb, rc):
            hits = r.retrieve("Who feeds the gulls on Skerrow Rock?", method="dense")
            assert hits and hits[0].text == FACT
        assert b.stores["faiss"].ids() == a.catalogue_ids()
        with WriterLock.for_settings(a.settings):
            from ingest.remove import remove_documents

            remove_documents(a, [doc])
        assert rb.retrieve("Who feeds the gulls on Skerrow Rock?", method="dense") == []
        assert b.stores["faiss"].ids() == set()
    finally:
        for kb in (a, b, c):
            kb.close()


def test_two_replicas_ingest_through_one_and_answer_through_the_other(
    shared: backends.ScaledBackends, tmp_path: Path
) -> None:
    env = shared.env(tmp_path / "shared")
    first = start_server(tmp_path / "one", **env)
    second = start_server(tmp_path / "two", **env)
    try:
        with first.client() as c1, second.client() as c2:
            files = {"file": ("keeper.md", f"# Lighthouse\n{FACT}\n".encode())}
            resp = c1.post("/api/documents", files=files)
            assert resp.status_code == 201, resp.text
            assert [d["path"] for d in c2.get("/api/documents").json()] == [
                resp.json()["document"]["path"]
            ]
            ask = c2.post("/api/ask", json={"question": "Who feeds the gulls on Skerrow Rock?"})
            assert ask.status_code == 200, ask.text
            body = ask.json()
            assert body["sources"] and body["sources"][0]["text"].endswith(FACT)
            assert body["answer"]

            # Uploads to both replicas at once: one writer at a time, each either stored or
            # refused with 409, and the shared stores agree with the catalogue afterwards.
            statuses: list[int] = []

            def upload(client_url: str, name: str) -> None:
                import httpx

                with httpx.Client(base_url=client_url, timeout=300) as c:
                    data = f"{name} is a boat moored at the north jetty.".encode()
                    statuses.append(
                        c.post("/api/documents", files={"file": (name, data)}).status_code
                    )

            threads = [
                threading.Thread(target=upload, args=(srv.url, f"{n}-{i}.txt"))
                for i in range(3)
                for n, srv in (("one", first), ("two", second))
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(300)
            assert len(statuses) == 6 and set(statuses) <= {201, 409}, statuses
            assert 201 in statuses
            names = {Path(d["path"]).name for d in c1.get("/api/documents").json()}
            assert names == {Path(d["path"]).name for d in c2.get("/api/documents").json()}
            assert len(names) == 1 + statuses.count(201)
    finally:
        first.stop()
        second.stop()
    kb = KnowledgeBase(
        backend_settings(tmp_path / "check", **shared.overrides(tmp_path / "shared"))
    )
    try:
        truth = kb.catalogue_ids()
        assert truth and kb.stores["chroma"].ids() == truth
    finally:
        kb.close()
