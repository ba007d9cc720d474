"""How questions become keyword-index terms, and FAISS filtering with its saved metadata."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from core.filters import Filters
from core.keywords.base import query_terms, searched_words
from core.keywords.postgres_fts import idf
from core.keywords.sqlite_fts import _match
from core.text import month_forms
from core.vectorstores.faiss_store import FaissStore


def test_query_terms_drop_stop_words_and_cut_cjk() -> None:
    terms = query_terms("What are the mutations of 東京大学 and 首都?")
    assert terms.words == ("what", "mutations")  # bm25s's English list, as the old BM25
    assert terms.trigrams == ("東京大", "京大学")
    assert terms.short_cjk == ("首都",)
    assert query_terms("the of and").words == ()


def test_fts_query_quotes_every_term() -> None:
    assert _match(("near", 'a"b')) == '"near" OR "a""b"'


def unit(rows: int, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((rows, 8)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_faiss_filters_inside_the_index_and_keeps_metadata_across_a_restart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "faiss.index"
    store = FaissStore(path, 8)
    vectors = unit(6)
    metas = [
        {"document_id": i // 2, "collection": "a" if i < 4 else "b", "file_type": "text"}
        for i in range(6)
    ]
    store.add(list(range(1, 7)), vectors, metas)
    store.persist()
    again = FaissStore(path, 8)
    assert again.ids() == set(range(1, 7))
    for s in (store, again):
        assert {h.chunk_id for h in s.query(vectors[0], 10, Filters(collection="b"))} == {5, 6}
        assert {h.chunk_id for h in s.query(vectors[0], 10, Filters(document_ids=(1,)))} == {3, 4}
        assert s.query(vectors[0], 10, Filters(file_types=("pdf",))) == []
        assert len(s.query(vectors[0], 10)) == 6


def test_an_index_saved_without_metadata_drops_its_ids_for_the_repair(tmp_path: Path) -> None:
    path = tmp_path / "faiss.index"
    store = FaissStore(path, 8)
    store.add([1, 2], unit(2), [{"document_id": 1, "collection": "a", "file_type": "text"}] * 2)
    store.persist()
    store.meta_path.unlink()  # a file from before filters lived in the store
    reopened = FaissStore(path, 8)
    assert reopened.ids() == set()  # KnowledgeBase.repair re-adds them with their metadata


def test_a_month_is_searched_as_documents_write_it() -> None:
    """ "July 2012" finds a table's "JUL-2012" row (held-out dev h908), and "Jul" finds "July"."""
    assert searched_words(query_terms("Ireland rate for July 2012").words) == (
        "ireland",
        "rate",
        "july",
        "2012",
        "jul",
    )
    assert searched_words(("sept", "jul", "july")) == ("sept", "jul", "july", "september", "sep")
    assert searched_words(("may", "march")) == ("may", "march", "mar")  # "may" is a verb too
    assert month_forms("ireland") == ()


def test_postgres_idf_weighs_a_rare_word_above_a_common_one() -> None:
    """BM25's idf: "ISIN" in 1 of 40 chunks outweighs "Microsoft" in 30 of them; always > 0,
    also for a word in every chunk or counted past a stale total."""
    assert idf(40, 1) > 3 * idf(40, 30)
    assert 0 < idf(40, 40) < idf(40, 39)
    assert idf(10, 25) == idf(25, 25) > 0
