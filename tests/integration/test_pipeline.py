"""The real pipeline (embedder, SQLite via Alembic, Chroma, FAISS) on generated files."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select

from core.catalogue import Action
from core.db.models import Chunk, Document, LedgerEntry
from core.embedder import Embedder
from core.knowledge import KnowledgeBase
from core.settings import HearthSettings
from ingest.pipeline import IngestPipeline
from ingest.remove import remove_documents


def store_ids(kb: KnowledgeBase) -> dict[str, set[int]]:
    return {"sql": kb.catalogue_ids(), **{n: s.ids() for n, s in kb.stores.items()}}


def assert_in_step(kb: KnowledgeBase) -> set[int]:
    ids = store_ids(kb)
    assert ids["sql"] == ids["chroma"] == ids["faiss"], {k: len(v) for k, v in ids.items()}
    with kb.db.session() as s:
        total = s.scalar(select(func.count()).select_from(Chunk))
    assert total == len(ids["sql"])  # no duplicate rows
    return ids["sql"]


def make_docs(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "otters.md").write_text(
        "# Otters\nSea otters hold hands while sleeping so they do not drift apart.\n"
        "## Diet\nThey eat sea urchins, crabs and clams, using stones as tools.\n"
    )
    (folder / "kettle.txt").write_text(
        "The blue kettle in the cabin was bought in Oslo in 1987 for forty crowns.\n\n"
        "It whistles when the water boils and has a wooden handle."
    )
    (folder / "page.html").write_text(
        "<html><body><nav>menu</nav><main><h1>Lighthouse</h1>"
        "<p>The lighthouse keeper, Mara Lind, lit the lamp every night for 31 years.</p>"
        "</main></body></html>"
    )
    return sorted(folder.iterdir())


def test_ingest_is_idempotent_and_every_store_agrees(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    make_docs(tmp_path / "docs")
    first = pipeline.ingest_paths([tmp_path / "docs"])
    assert [r.action for r in first.results] == ["added"] * 3
    ids = assert_in_step(kb)
    assert len(ids) == first.chunks > 0

    again = pipeline.ingest_paths([tmp_path / "docs"])
    assert [r.action for r in again.results] == ["unchanged"] * 3
    assert assert_in_step(kb) == ids


def test_changed_file_replaces_its_chunks_and_remove_clears_every_store(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path, embedder: object
) -> None:
    docs = make_docs(tmp_path / "docs")
    pipeline.ingest_paths([tmp_path / "docs"])
    kettle = next(p for p in docs if p.name == "kettle.txt")
    before = assert_in_step(kb)

    kettle.write_text("The red kettle was a gift from Lisbon in 2003.")
    result = pipeline.ingest_file(kettle)
    assert result.action == "updated"
    after = assert_in_step(kb)
    assert len(after - before) == result.chunks and before - after  # old chunks gone
    hits = kb.stores["faiss"].query(pipeline.embedder.embed(["kettle from Lisbon"])[0], 1)
    with kb.db.session() as s:
        assert "Lisbon" in s.get(Chunk, hits[0].chunk_id).text  # type: ignore[union-attr]

    removed = remove_documents(kb, [kettle])
    assert [r.action for r in removed] == ["removed"]
    remaining = assert_in_step(kb)
    assert remaining == after - (after - before)  # exactly the kettle's chunks left
    with kb.db.session() as s:
        assert s.scalar(select(Document).where(Document.path == str(kettle))) is None
        assert s.scalar(select(LedgerEntry).where(LedgerEntry.action == "removed")) is not None


def test_a_bad_file_fails_clearly_and_the_batch_goes_on(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    docs = make_docs(tmp_path / "docs")
    (tmp_path / "docs" / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    (tmp_path / "docs" / "empty.txt").write_bytes(b"")
    report = pipeline.ingest_paths([tmp_path / "docs"])
    actions = {Path(r.path).name: r for r in report.results}
    assert actions["broken.pdf"].action == "failed"
    assert "broken.pdf" in (actions["broken.pdf"].error or "")
    assert actions["empty.txt"].action == "empty"
    assert sum(r.action == "added" for r in report.results) == len(docs)
    with kb.db.session() as s:
        failed = s.scalar(select(Document).where(Document.path.endswith("broken.pdf")))
        assert failed is not None and failed.status == "failed" and failed.error
    assert_in_step(kb)


def test_a_failed_file_carries_its_error_class(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    odd = tmp_path / "notes.xyz"
    odd.write_bytes(b"\x00\x01 not a kind of file Hearth reads")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 truncated")
    good = tmp_path / "kettle.txt"
    good.write_text("The blue kettle in the cabin whistles when the water boils.")
    report = pipeline.ingest([odd, broken, good])
    kinds = {Path(r.path).name: (r.action, r.error_kind) for r in report.results}
    assert kinds == {
        "notes.xyz": (Action.FAILED, "UnsupportedTypeError"),
        "broken.pdf": (Action.FAILED, "LoaderError"),
        "kettle.txt": (Action.ADDED, None),
    }
    with kb.db.session() as s:  # the enums are stored as the strings they always were
        statuses = dict(s.execute(select(Document.path, Document.status)).all())
        actions = set(s.scalars(select(LedgerEntry.action)))
    assert sorted(statuses.values()) == ["failed", "failed", "ingested"]
    assert actions == {"failed", "added"}


def test_failed_update_keeps_what_was_stored(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    page = tmp_path / "doc.docx"
    import docx

    d = docx.Document()
    d.add_paragraph("Glaciers carve valleys over thousands of years.")
    d.save(str(page))
    assert pipeline.ingest_file(page).action == "added"
    before = assert_in_step(kb)
    page.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)  # a damaged zip
    result = pipeline.ingest_file(page)
    assert result.action == "failed" and "doc.docx" in (result.error or "")
    assert assert_in_step(kb) == before


def test_start_after_a_clean_close_trusts_the_stores_and_after_a_crash_compares_them(
    settings: HearthSettings, embedder: Embedder, tmp_path: Path
) -> None:
    from core.knowledge import IN_STEP_MARK

    mark = settings.data_dir / IN_STEP_MARK
    kb = KnowledgeBase(settings)
    make_docs(tmp_path / "docs")
    IngestPipeline(kb, embedder).ingest_paths([tmp_path / "docs"])
    assert not kb.repair(trust_clean_close=True).trusted  # no mark yet: every id compared
    kb.close()
    assert mark.is_file()  # a clean close of a repaired process leaves the mark

    kb = KnowledgeBase(settings)
    assert not mark.exists()  # taken at open: a crash from here leaves none
    assert kb.repair(trust_clean_close=True).trusted
    extra = tmp_path / "docs" / "extra.txt"
    extra.write_text("An extra note about the quince orchard.")
    IngestPipeline(kb, embedder).ingest([extra])
    truth = assert_in_step(kb)
    kb.stores["faiss"].delete(sorted(truth)[:1])  # as if killed before FAISS was saved
    kb.persist()
    kb.db.dispose()  # killed: no close, no mark

    kb = KnowledgeBase(settings)
    report = kb.repair(trust_clean_close=True)
    assert not report.trusted and report.added["faiss"] == 1
    assert assert_in_step(kb) == truth
    kb.close()

    kb = KnowledgeBase(settings)  # a clean close, then a store lost an id while stopped
    kb.stores["faiss"].delete(sorted(truth)[:1])
    report = kb.repair(trust_clean_close=True)
    assert not report.trusted and report.added["faiss"] == 1  # its size gave it away
    kb.close()

    # The store that answers no query (Chroma, beside FAISS) is checked before its first write,
    # so a start does not wait for an embedded Chroma to load: its lost id is mended then, and
    # the process does not vouch for the stores at close.
    kb = KnowledgeBase(settings)
    kb.stores["chroma"].delete(sorted(truth)[:1])
    report = kb.repair(trust_clean_close=True)
    assert report.trusted and report.deferred == ("chroma",)
    later = tmp_path / "docs" / "later.txt"
    later.write_text("A later note about the pear orchard.")
    IngestPipeline(kb, embedder).ingest([later])
    truth = assert_in_step(kb)
    kb.close()
    assert not mark.exists()
    kb = KnowledgeBase(settings)
    assert not kb.repair(trust_clean_close=True).trusted  # so every id is compared again
    kb.close()

    kb = KnowledgeBase(settings)
    kb.close()  # never repaired here: it cannot vouch for the stores
    assert not mark.exists()


def test_repair_mends_stores_that_disagree_with_the_catalogue(
    pipeline: IngestPipeline, kb: KnowledgeBase, tmp_path: Path
) -> None:
    make_docs(tmp_path / "docs")
    pipeline.ingest_paths([tmp_path / "docs"])
    truth = assert_in_step(kb)
    lost = sorted(truth)[:2]
    kb.stores["faiss"].delete(lost)  # as if a crash came before FAISS was saved
    stray = max(truth) + 1000
    vec = pipeline.embedder.embed(["stray"])
    kb.stores["chroma"].add([stray], vec, [{"document_id": 0}])  # as if SQL rolled back
    report = kb.repair()
    assert report.added["faiss"] == 2 and report.removed["chroma"] == 1
    assert assert_in_step(kb) == truth
    assert not kb.repair().changed


def test_a_lazy_embedder_loads_only_for_text_to_embed(kb: KnowledgeBase, tmp_path: Path) -> None:
    """`hearth ingest` builds its pipeline on a LazyEmbedder: unchanged and unreadable files load
    no model; the first new text does, and the sizes read from the model's files without loading
    it are the loaded model's own."""
    from core.embedder import LazyEmbedder, SentenceTransformerEmbedder

    make_docs(tmp_path / "docs")
    eager = IngestPipeline(kb, SentenceTransformerEmbedder(kb.settings.embedder))
    eager.ingest_paths([tmp_path / "docs"])
    (tmp_path / "docs" / "broken.pdf").write_bytes(b"\x00\x01 not a pdf")

    lazy = LazyEmbedder(kb.settings.embedder)
    report = IngestPipeline(kb, lazy).ingest_paths([tmp_path / "docs"])
    assert sorted(r.action for r in report.results) == ["failed"] + ["unchanged"] * 3
    assert not lazy.loaded

    (tmp_path / "docs" / "new.txt").write_text("The ferry to the island leaves at seven.")
    added = IngestPipeline(kb, lazy).ingest_paths([tmp_path / "docs" / "new.txt"])
    assert [r.action for r in added.results] == ["added"] and lazy.loaded
    assert (lazy.dimension, lazy.max_tokens) == (lazy.model.dimension, lazy.model.max_tokens)
    assert lazy.model_id == eager.embedder.model_id
    assert_in_step(kb)
