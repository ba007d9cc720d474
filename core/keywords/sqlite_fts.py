"""Keyword search on SQLite: FTS5 tables over the chunks (alembic 0005), ranked by bm25().

``chunks_fts`` indexes title and text with the ``porter`` stemmer over ``unicode61`` (so
"mutations" finds "mutation"); ``chunks_cjk`` indexes the chunks holding CJK characters by
character trigrams. Both are external-content tables filled by triggers on ``chunks``, so they
change in the same transaction as the chunk rows and cost time proportional to the file.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from core.filters import Filters
from core.keywords.base import (
    FrequencyCache,
    cap_terms,
    filter_sql,
    merge,
    query_terms,
    register_keyword_index,
    substring_score_sql,
)
from core.types import Hit

if TYPE_CHECKING:
    from core.db.session import Database

#: bm25() column weights (title, text): the title is repeated in every chunk of a document.
TITLE_WEIGHT = 0.5
TEXT_WEIGHT = 1.0
TABLES = ("chunks_fts", "chunks_cjk")


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

    def _count(self, table: str, term: str) -> int:
        """Chunks holding ``term``, counted up to ``max_postings + 1`` (all the cap needs to
        know: "from" at a million chunks, 441,026 postings, 18.5 ms in full, 4.2 ms bounded)."""
        sql = text(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH :q LIMIT :n)")
        with self.db.session() as s:
            return int(
                s.execute(sql, {"q": _match((term,)), "n": self.max_postings + 1}).scalar_one()
            )

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
            rankings.append(self._fts("chunks_fts", terms.words, k, filters))
        if terms.trigrams:
            rankings.append(self._fts("chunks_cjk", terms.trigrams, k, filters))
        if terms.short_cjk:
            rankings.append(self._substrings(terms.short_cjk, k, filters))
        return merge(*rankings)[:k]


@register_keyword_index("sqlite")
def _open(db: Database, max_postings: int) -> Any:
    return SqliteKeywordIndex(db, max_postings)
