"""Keyword search on SQLite: FTS5 tables over the chunks (alembic 0005), ranked by bm25().

``chunks_fts`` indexes title and text with the ``porter`` stemmer over ``unicode61`` (so
"mutations" finds "mutation"); ``chunks_cjk`` indexes the chunks holding CJK characters by
character trigrams. Both are external-content tables filled by triggers on ``chunks``, so they
change in the same transaction as the chunk rows and cost time proportional to the file.
"""

from __future__ import annotations

import math
import time
from functools import partial
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

#: bm25() column weights (title, text): the title is repeated in every chunk of a document.
TITLE_WEIGHT = 0.5
TEXT_WEIGHT = 1.0
TABLES = ("chunks_fts", "chunks_cjk")
#: Word counts of a large catalogue are taken among this many of its oldest chunks ...
SAMPLE_CHUNKS = 50_000
#: ... once it holds this many times as many.
SAMPLE_FROM = 4
#: A word the sample holds fewer times than this is counted over every chunk.
MIN_SAMPLED = 32
#: How long the catalogue's size and the sample's bound are reused, seconds.
SAMPLE_TTL_S = 3600.0


def _match(terms: tuple[str, ...]) -> str:
    """An FTS5 query OR-ing each term as a quoted string (no FTS syntax gets through)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


class SqliteKeywordIndex:
    """FTS5 search of one SQLite catalogue; each query scores at most ``max_postings``
    (term, chunk) pairs, its commonest terms dropped past that (``cap_terms``)."""

    def __init__(self, db: Database, max_postings: int) -> None:
        self.db = db
        self.max_postings = max_postings
        self._df = {table: FrequencyCache(partial(self._count, table)) for table in TABLES}
        self._sampled_at: float | None = None
        self._sample_bound: tuple[int, int] | None = None

    def _sample(self) -> tuple[int, int] | None:
        """(chunks in the catalogue, id of its ``SAMPLE_CHUNKS``-th chunk), read at most once
        per ``SAMPLE_TTL_S``; None while the catalogue is too small to sample."""
        now = time.monotonic()
        if self._sampled_at is None or now - self._sampled_at > SAMPLE_TTL_S:
            with self.db.session() as s:
                total = int(s.execute(text("SELECT count(*) FROM chunks")).scalar_one())
                bound = s.execute(
                    text("SELECT id FROM chunks ORDER BY id LIMIT 1 OFFSET :n"),
                    {"n": SAMPLE_CHUNKS - 1},
                ).scalar()
            big = bound is not None and total > SAMPLE_FROM * SAMPLE_CHUNKS
            self._sample_bound = (total, int(bound)) if big and bound is not None else None
            self._sampled_at = now
        return self._sample_bound

    def _bounded_counts(
        self, table: str, terms: tuple[str, ...], limit: int, below: int | None = None
    ) -> list[int]:
        """Chunks holding each term (ids up to ``below`` only, when given), each count stopped
        at ``limit``; every term in one statement."""
        rowid = " AND rowid <= :r" if below is not None else ""
        hits = f"SELECT 1 FROM {table} WHERE {table} MATCH :q{{i}}{rowid}"
        sql = text(counts_sql(hits, len(terms)))
        params: dict[str, object] = {f"q{i}": _match((t,)) for i, t in enumerate(terms)}
        params["n"] = limit
        if below is not None:
            params["r"] = below
        with self.db.session() as s:
            return [int(c) for c in s.execute(sql, params).one()]

    def _count(self, table: str, terms: tuple[str, ...]) -> dict[str, int]:
        """Chunks holding each term, up to ``max_postings + 1`` (all the cap needs to know).

        Counting reads a term's postings: "from" at a million chunks has 441,026 (18.5 ms in
        full, 4.2 ms stopped at 60,001, and one statement for every term of a question took
        18 ms). Past ``SAMPLE_FROM`` x ``SAMPLE_CHUNKS`` chunks the words are counted among the
        first ``SAMPLE_CHUNKS`` chunks and scaled up (2.5 ms a question at a million chunks;
        error p50 2%, p90 8% for words in 500 to 60,000 chunks); a word the sample holds fewer
        than ``MIN_SAMPLED`` times (rare, or only in newer files) is counted in full.
        """
        cap = self.max_postings + 1
        sample = self._sample() if table == "chunks_fts" else None
        if sample is None:
            return dict(zip(terms, self._bounded_counts(table, terms, cap), strict=True))
        total, bound = sample
        scale = total / SAMPLE_CHUNKS
        sampled = self._bounded_counts(table, terms, math.ceil(cap / scale), bound)
        out = {t: min(cap, round(c * scale)) for t, c in zip(terms, sampled, strict=True)}
        rare = tuple(t for t, c in zip(terms, sampled, strict=True) if c < MIN_SAMPLED)
        if rare:
            out.update(zip(rare, self._bounded_counts(table, rare, cap), strict=True))
        return out

    def _fts(
        self, table: str, terms: tuple[str, ...], k: int, filters: Filters | None
    ) -> list[Hit]:
        terms = cap_terms(terms, self._df[table], self.max_postings)
        if not terms:
            return []
        joins, where, params, binds = filter_sql(filters)
        join_chunks = " JOIN chunks c ON c.id = f.rowid" + joins if joins else ""
        sql = text(
            f"SELECT f.rowid, bm25({table}, {TITLE_WEIGHT}, {TEXT_WEIGHT}) AS s "
            f"FROM {table} f{join_chunks} WHERE {table} MATCH :q{where} ORDER BY s LIMIT :k"
        ).bindparams(*binds)
        with self.db.session() as s:
            rows = s.execute(sql, {"q": _match(terms), "k": k, **params}).all()
        return [Hit(int(r[0]), -float(r[1])) for r in rows]

    def _substrings(self, patterns: tuple[str, ...], k: int, filters: Filters | None) -> list[Hit]:
        # Only chunks in the CJK index (its docsize table lists their ids) are scanned.
        joins, where, params, binds = filter_sql(filters)
        score, cond, likes = substring_score_sql(patterns)
        sql = text(
            f"SELECT c.id, {score} AS s FROM chunks_cjk_docsize z JOIN chunks c ON c.id = z.id"
            f"{joins} WHERE {cond}{where} ORDER BY s DESC, c.id LIMIT :k"
        ).bindparams(*binds)
        with self.db.session() as s:
            rows = s.execute(sql, {"k": k, **likes, **params}).all()
        return [Hit(int(r[0]), float(r[1])) for r in rows]

    def search(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """Top ``k`` chunks by bm25 (words, CJK trigrams; rankings merged by reciprocal rank)."""
        terms = query_terms(query)
        rankings: list[list[Hit]] = []
        if terms.words:
            rankings.append(self._fts("chunks_fts", searched_words(terms.words), k, filters))
        if terms.trigrams:
            rankings.append(self._fts("chunks_cjk", terms.trigrams, k, filters))
        if terms.short_cjk:
            rankings.append(self._substrings(terms.short_cjk, k, filters))
        return merge(*rankings)[:k]
