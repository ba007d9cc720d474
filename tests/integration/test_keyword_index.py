"""The keyword index inside the catalogue (SQLite FTS5 / Postgres full-text search): stemming,
CJK words, titles, filters on both arms, a killed ingest, and the migration of an old catalogue.

Runs on both passes: the embedded one (SQLite, FAISS) and the scaled one (Postgres, Chroma
server), where the same assertions hold against the database's own full-text search.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from core.db.models import Chunk, Document
from core.db.session import Database
from core.embedder import Embedder
from core.filters import Filters
from core.keywords import open_keyword_index
from core.knowledge import KnowledgeBase
from ingest.pipeline import IngestPipeline
from service.answering.retrieval import Retriever
from tests.integration.conftest import backend_settings, spawn_hearth
from tests.integration.old_catalogues import store_document, upgrade_to

LONG_BODY = " ".join(
    f"Sentence {i} tells how the harbour crane lifted timber beside the gate." for i in range(80)
)


def names(passages: list) -> list[str]:  # type: ignore[type-arg]
    return [Path(p.path).name for p in passages]


def test_stemmed_words_and_a_two_character_cjk_word_are_found(
    tmp_path: Path, pipeline: IngestPipeline, kb: KnowledgeBase, embedder: Embedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bio.txt").write_text("Genetics\n\nA mutation changes one letter of a gene.")
    (docs / "tokyo.md").write_text("# 日本\n\n東京は日本の首都です。大学が多い町です。")
    (docs / "ai.txt").write_text("人工智能的发展非常快。机器学习是其中一部分。")
    (docs / "other.txt").write_text("Cooking notes\n\nBoil the kettle before the tea.")
    assert pipeline.ingest_paths([docs]).count("failed") == 0
    retriever = Retriever(kb, embedder)

    def keyword(q: str) -> list[str]:
        return names(retriever.retrieve(q, method="bm25", cut=False))

    assert keyword("mutations") == ["bio.txt"]  # stemmed: today's BM25 missed it
    assert keyword("首都") == ["tokyo.md"]  # two characters: below a trigram
    assert keyword("大学") == ["tokyo.md"]
    assert keyword("机器学习") == ["ai.txt"]  # four characters: trigrams
    assert keyword("量子") == []  # a two-character word in no document


def test_a_postings_budget_drops_the_commonest_words_and_keeps_the_rare_one(
    tmp_path: Path, pipeline: IngestPipeline, kb: KnowledgeBase
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):  # "harbour" is in every file, "quince" in one
        extra = " The quince orchard grew beside it." if i == 7 else ""
        (docs / f"note{i:02d}.txt").write_text(f"Note {i}. The harbour was busy today.{extra}")
    assert pipeline.ingest_paths([docs]).count("failed") == 0

    def found(max_postings: int) -> list[int]:
        return [
            h.chunk_id for h in open_keyword_index(kb.db, max_postings).search("harbour quince", 20)
        ]

    full, capped = found(0), found(5)
    assert len(full) == 12  # every chunk holds one of the words
    assert capped == full[:1]  # "harbour" (12 chunks) is over the budget: only quince's chunk
    with kb.db.session() as s:
        path = s.execute(
            select(Document.path)
            .join(Chunk, Chunk.document_id == Document.id)
            .where(Chunk.id == capped[0])
        ).scalar_one()
    assert Path(path).name == "note07.txt"
    assert found(1_000) == full  # a budget that fits changes nothing


def test_every_chunk_carries_its_title_for_both_arms(
    tmp_path: Path, pipeline: IngestPipeline, kb: KnowledgeBase, embedder: Embedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "zanzibar.txt").write_text(f"Zanzibar port records\n\n{LONG_BODY}")
    (docs / "plain.txt").write_text(LONG_BODY)  # the same words without the title
    pipeline.ingest_paths([docs])
    with kb.db.session() as s:
        rows = s.execute(
            select(Chunk.ordinal, Chunk.title)
            .join(Document, Chunk.document_id == Document.id)
            .where(Document.path.like("%zanzibar.txt"))
        ).all()
    assert len(rows) >= 2, "the body must span several chunks"
    assert {title for _, title in rows} == {"Zanzibar port records"}
    later = {o for o, _ in rows if o > 0}
    found = Retriever(kb, embedder).retrieve("Zanzibar", k=10, method="bm25", cut=False)
    assert set(names(found)) == {"zanzibar.txt"}
    assert later <= {ordinal_of(kb, p.chunk_id) for p in found}
    # Dense: each later chunk of the titled file is nearer to its subject than the very same
    # words in the untitled file (the embedder saw "title\ntext").
    dense = Retriever(kb, embedder).retrieve("Zanzibar port", k=30, method="dense", cut=False)
    first_plain = names(dense).index("plain.txt")
    assert names(dense)[:first_plain] == ["zanzibar.txt"] * first_plain
    assert first_plain == len(rows)


def ordinal_of(kb: KnowledgeBase, chunk_id: int) -> int:
    with kb.db.session() as s:
        return int(s.scalar(select(Chunk.ordinal).where(Chunk.id == chunk_id)) or -1)


def test_filters_apply_inside_both_arms(
    tmp_path: Path, pipeline: IngestPipeline, kb: KnowledgeBase, embedder: Embedder
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "kettle.txt").write_text("The copper kettle whistles on the stove.")
    (a / "kettle.md").write_text("# Kettles\n\nA copper kettle whistles when the water boils.")
    (b / "kettle2.txt").write_text("Another copper kettle whistles in the cabin.")
    pipeline.ingest_paths([a], collection="kitchen")
    pipeline.ingest_paths([b], collection="cabin")
    retriever = Retriever(kb, embedder)
    with kb.db.session() as s:
        md_id = s.scalar(select(Document.id).where(Document.path.like("%kettle.md")))
    assert md_id is not None
    cases = {
        Filters(collection="kitchen"): {"kettle.txt", "kettle.md"},
        Filters(collection="cabin"): {"kettle2.txt"},
        Filters(file_types=("markdown",)): {"kettle.md"},
        Filters(document_ids=(md_id,)): {"kettle.md"},
        Filters(collection="cabin", file_types=("markdown",)): set(),
    }
    for method in ("bm25", "dense"):
        assert len(retriever.retrieve("copper kettle", k=10, method=method, cut=False)) == 3
        for filters, expected in cases.items():
            got = retriever.retrieve(
                "copper kettle whistles", k=10, filters=filters, method=method, cut=False
            )
            assert set(names(got)) == expected, (method, filters)
    # The arms' own entry points, without the Retriever.
    vector = embedder.embed(["copper kettle"])[0]
    for store in kb.stores.values():
        hits = store.query(vector, 10, Filters(collection="cabin"))
        assert len(hits) == 1, store.name
    keyword = open_keyword_index(kb.db)
    assert len(keyword.search("kettle", 10, Filters(collection="kitchen"))) == 2


PARAGRAPH = "Record {i}: the harbour crane lifted {i} tonnes of timber by the gate.\n\n"


def test_a_killed_ingest_leaves_keyword_index_and_catalogue_in_step(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(80):
        body = "".join(PARAGRAPH.format(i=i * 10 + j) for j in range(12))
        (corpus / f"log{i:03d}.txt").write_text(body)
    data = tmp_path / "data"
    settings = backend_settings(data)
    proc = spawn_hearth(data, "ingest", "-q", str(corpus))
    db = Database(settings.sqlalchemy_url)
    try:
        deadline = time.monotonic() + 300
        count = 0
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with db.session() as s:
                    count = s.scalar(select(func.count(Document.id))) or 0
            except Exception:  # tables not created yet
                count = 0
            if count >= 5:
                break
            time.sleep(0.2)
        assert proc.poll() is None, "ingest finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with db.session() as s:
            chunk_ids = set(s.scalars(select(Chunk.id)))
        assert chunk_ids, "the kill came before any chunk was committed"
        # Every committed chunk is in the keyword index, and nothing else is.
        found = {h.chunk_id for h in open_keyword_index(db).search("harbour", 100_000)}
        assert found == chunk_ids
        if db.engine.dialect.name == "sqlite":
            with db.engine.begin() as conn:  # raises if the index and its content disagree
                conn.exec_driver_sql(
                    "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)"
                )
    finally:
        if proc.poll() is None:
            proc.kill()
        db.dispose()


def test_migration_builds_the_index_of_a_catalogue_that_has_chunks(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    url = backend_settings(tmp_path / "data").sqlalchemy_url
    upgrade_to(url, "0004")
    store_document(url, ["Kettle notes\nmutations kept", "boiled"])

    db = Database(url)
    try:
        db.migrate()
        index = open_keyword_index(db)
        assert [h.chunk_id for h in index.search("mutation", 10)] == [7]
        # The title (first line of the first chunk) reaches the second chunk too.
        assert {h.chunk_id for h in index.search("kettle", 10)} == {7, 8}
        assert {h.chunk_id for h in index.search("boiled", 10)} == {8}
    finally:
        db.dispose()


def test_word_counts_of_a_large_sqlite_catalogue_are_sampled_and_rare_words_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A million chunks in miniature: counts among the oldest 40 of 400 chunks, scaled by 10.
    from core.keywords import sqlite_fts

    monkeypatch.setattr(sqlite_fts, "SAMPLE_CHUNKS", 40)
    monkeypatch.setattr(sqlite_fts, "MIN_SAMPLED", 8)
    url = f"sqlite:///{tmp_path / 'catalogue.db'}"
    db = Database(url)
    db.migrate()
    texts = [
        "harbour " + ("gull " if i % 2 else "") + ("kettle" if i >= 350 else "") for i in range(400)
    ]
    store_document(url, texts, first_id=1)
    index = open_keyword_index(db, 1_000)
    counted = index._count("chunks_fts", ("harbour", "gull", "kettle", "nowhere"))  # type: ignore[attr-defined]
    assert counted["harbour"] == 400  # 40 of the 40 sampled, times 10
    assert counted["gull"] == 200  # every other chunk: 20 sampled
    assert counted["kettle"] == 50  # only in the newest chunks: none sampled, counted in full
    assert counted["nowhere"] == 0
    assert open_keyword_index(db, 300)._count("chunks_fts", ("harbour",)) == {"harbour": 301}  # type: ignore[attr-defined]
    db.dispose()
