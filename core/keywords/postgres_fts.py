"""Keyword search on Postgres: the chunks' generated ``search_vector`` (English stemming, the
title weighted A) behind a GIN index, ranked by ts_rank; CJK substrings through pg_trgm's GIN
index on the text (alembic 0005). Replicas share it: no private copy of any text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import text

from core.filters import Filters
from core.keywords.base import (
    FrequencyCache,
    cap_terms,
    counts_sql,
    filter_sql,
    merge,
    query_terms,
    searched_words,
    substring_score_sql,
)
from core.types import Hit

if TYPE_CHECKING:
    from core.db.session import Database


class PostgresKeywordIndex:
    """Full-text search of one Postgres catalogue; each query scores at most ``max_postings``
    (term, chunk) pairs, its commonest words dropped past that (``cap_terms``)."""

    def __init__(self, db: Database, max_postings: int) -> None:
        self.db = db
        self.max_postings = max_postings
        self._df = FrequencyCache(self._count)

    def _count(self, words: tuple[str, ...]) -> dict[str, int]:
        """Chunks holding each word (the GIN index's posting list), up to ``max_postings + 1``,
        every word in one statement."""
        hits = "SELECT 1 FROM chunks WHERE search_vector @@ to_tsquery('english', :q{i})"
        sql = text(counts_sql(hits, len(words)))
        params: dict[str, object] = {f"q{i}": w for i, w in enumerate(words)}
        with self.db.session() as s:
            row = s.execute(sql, {**params, "n": self.max_postings + 1}).one()
        return {w: int(c) for w, c in zip(words, row, strict=True)}

    def _words(self, words: tuple[str, ...], k: int, filters: Filters | None) -> list[Hit]:
        words = cap_terms(words, self._df, self.max_postings)
        if not words:
            return []
        joins, where, params, binds = filter_sql(filters)
        # Words are letters and digits only (query_terms), so OR-ing them is a valid tsquery.
        sql = text(
            "SELECT c.id, ts_rank(c.search_vector, q, 1) AS s FROM chunks c"
            f"{joins}, to_tsquery('english', :q) q WHERE c.search_vector @@ q{where} "
            "ORDER BY s DESC, c.id LIMIT :k"
        ).bindparams(*binds)
        with self.db.session() as s:
            rows = s.execute(sql, {"q": " | ".join(words), "k": k, **params}).all()
        return [Hit(int(r[0]), float(r[1])) for r in rows]

    def _substrings(self, patterns: tuple[str, ...], k: int, filters: Filters | None) -> list[Hit]:
        joins, where, params, binds = filter_sql(filters)
        score, cond, likes = substring_score_sql(patterns)
        sql = text(
            f"SELECT c.id, {score} AS s FROM chunks c{joins} WHERE {cond}{where} "
            "ORDER BY s DESC, c.id LIMIT :k"
        ).bindparams(*binds)
        with self.db.session() as s:
            rows = s.execute(sql, {"k": k, **likes, **params}).all()
        return [Hit(int(r[0]), float(r[1])) for r in rows]

    def search(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top ``k`` chunks: stemmed words by ts_rank, CJK trigrams and short CJK words by how
        many of them a chunk contains; the rankings merged by reciprocal rank."""
        terms = query_terms(query)
        rankings: list[list[Hit]] = []
        if terms.words:
            rankings.append(self._words(searched_words(terms.words), k, filters))
        cjk = terms.trigrams + terms.short_cjk
        if cjk:
            rankings.append(self._substrings(cjk, k, filters))
        return merge(*rankings)[:k]
