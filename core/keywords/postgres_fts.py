"""Keyword search on Postgres: the chunks' generated ``search_vector`` (English stemming of the
words left when ASCII punctuation is a space, as SQLite's index and ``query_terms`` cut them:
alembic 0012; the title weighted A) behind a GIN index, ranked by each word's ts_rank weighted
by its BM25 idf; CJK substrings through pg_trgm's GIN index on the text (alembic 0005).
Replicas share it: no private copy of any text."""

from __future__ import annotations

import math
import time
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


#: How long the catalogue's chunk count (the N of idf) is reused, seconds.
TOTAL_TTL_S = 60.0
#: How many of ``ts_rank``'s first chunks per chunk asked for are ranked again with idf.
RERANKED = 20
#: Bound of a document-frequency count when ``max_postings`` is 0 (no cap).
UNBOUNDED = 2**31 - 1


def idf(total: int, df: int) -> float:
    """BM25's inverse document frequency (Robertson-Sparck Jones, as Lucene's BM25Similarity
    and SQLite FTS5's ``bm25()``): ln(1 + (N - n + 0.5) / (n + 0.5)) for a word in ``df`` = n of
    ``total`` = N chunks; always > 0 (N is raised to n when a count outran it)."""
    total = max(total, df)
    return math.log(1 + (total - df + 0.5) / (df + 0.5))


class PostgresKeywordIndex:
    """Full-text search of one Postgres catalogue; each query scores at most ``max_postings``
    (term, chunk) pairs, its commonest words dropped past that (``cap_terms``)."""

    def __init__(self, db: Database, max_postings: int) -> None:
        self.db = db
        self.max_postings = max_postings
        self._df = FrequencyCache(self._count)
        self._total: tuple[float, int] | None = None

    def _chunks(self) -> int:
        """Chunks in the catalogue, counted at most once per ``TOTAL_TTL_S``."""
        now = time.monotonic()
        if self._total is None or now - self._total[0] > TOTAL_TTL_S:
            with self.db.session() as s:
                count = int(s.execute(text("SELECT count(*) FROM chunks")).scalar_one())
            self._total = (now, count)
        return self._total[1]

    def _count(self, words: tuple[str, ...]) -> dict[str, int]:
        """Chunks holding each word (the GIN index's posting list), up to ``max_postings + 1``
        (uncounted past that, where a word never fits the cap beside another: ``cap_terms``),
        every word in one statement."""
        hits = "SELECT 1 FROM chunks WHERE search_vector @@ to_tsquery('english', :q{i})"
        sql = text(counts_sql(hits, len(words)))
        params: dict[str, object] = {f"q{i}": w for i, w in enumerate(words)}
        with self.db.session() as s:
            bound = self.max_postings + 1 if self.max_postings else UNBOUNDED
            row = s.execute(sql, {**params, "n": bound}).one()
        return {w: int(c) for w, c in zip(words, row, strict=True)}

    def _words(self, words: tuple[str, ...], k: int, filters: Filters | None) -> list[Hit]:
        """Chunks holding any of ``words``: the first ``RERANKED`` x ``k`` by ``ts_rank`` of
        their OR, ranked again by sum_w idf(w) * ts_rank(chunk, w). ``ts_rank`` has no idf: a
        question's common word ("Microsoft" in a company's profile) outranked its rare one
        ("ISIN"), unlike SQLite's BM25; scoring every match word by word instead cost 2.5x
        the time at 100k chunks (bench/postgres_keywords.py)."""
        words = cap_terms(words, self._df, self.max_postings)
        if not words:
            return []
        joins, where, params, binds = filter_sql(filters)
        if len(words) == 1:
            weights = [1.0]
        else:
            counts, total = self._df(words), self._chunks()
            weights = [idf(total, counts[w]) for w in words]
        # Words are letters and digits only (query_terms), so each is a valid tsquery.
        score = " + ".join(
            f":w{i} * ts_rank(t.search_vector, to_tsquery('english', :q{i}), 1)"
            for i in range(len(words))
        )
        sql = text(
            "WITH t AS (SELECT c.id, c.search_vector FROM chunks c"
            f"{joins}, to_tsquery('english', :q) q WHERE c.search_vector @@ q{where} "
            "ORDER BY ts_rank(c.search_vector, q, 1) DESC, c.id LIMIT :n) "
            f"SELECT t.id, {score} AS s FROM t ORDER BY s DESC, t.id LIMIT :k"
        ).bindparams(*binds)
        terms: dict[str, object] = {f"q{i}": w for i, w in enumerate(words)}
        terms.update({f"w{i}": w for i, w in enumerate(weights)})
        bound = {"q": " | ".join(words), "k": k, "n": RERANKED * k}
        with self.db.session() as s:
            rows = s.execute(sql, {**bound, **terms, **params}).all()
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
        """Top ``k`` chunks: stemmed words by idf-weighted ts_rank, CJK trigrams and short CJK
        words by how many of them a chunk contains; the rankings merged by reciprocal rank."""
        terms = query_terms(query)
        rankings: list[list[Hit]] = []
        if terms.words:
            rankings.append(self._words(searched_words(terms.words), k, filters))
        cjk = terms.trigrams + terms.short_cjk
        if cjk:
            rankings.append(self._substrings(cjk, k, filters))
        return merge(*rankings)[:k]
