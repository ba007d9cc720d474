"""The KeywordIndex Protocol, the registry choosing a backend by SQL dialect, and how a
question is cut into index terms (stemmed words, and CJK trigrams)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import bindparam
from sqlalchemy.sql.elements import BindParameter

from core.filters import Filters
from core.types import Hit

if TYPE_CHECKING:
    from core.db.session import Database


class KeywordIndex(Protocol):
    """Keyword (full-text) search over the catalogue's chunks, kept by the database itself."""

    def search(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The top ``k`` chunks for ``query`` (higher score is better), best first."""
        ...


IndexFactory = Callable[["Database"], KeywordIndex]
_REGISTRY: dict[str, IndexFactory] = {}


def register_keyword_index(dialect: str) -> Callable[[IndexFactory], IndexFactory]:
    """Register the keyword backend of one SQLAlchemy dialect name (``sqlite``, ``postgresql``)."""

    def deco(factory: IndexFactory) -> IndexFactory:
        _REGISTRY[dialect] = factory
        return factory

    return deco


def open_keyword_index(db: Database) -> KeywordIndex:
    """The keyword index of this catalogue's database (ValueError for an unknown dialect)."""
    from core.keywords import postgres_fts, sqlite_fts  # noqa: F401 - registers the backends

    dialect = db.engine.dialect.name
    if dialect not in _REGISTRY:
        raise ValueError(f"no keyword index for the {dialect!r} database")
    return _REGISTRY[dialect](db)


# Hiragana/Katakana, CJK ideographs (and extension A), Hangul syllables: scripts written
# without spaces between words, indexed by character trigrams instead of words.
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{CJK}]+")
_WORD = re.compile(r"[^\W_]+")


def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


@dataclass(frozen=True)
class QueryTerms:
    """A question cut for the index: lower-cased words (no stop words) and CJK patterns."""

    words: tuple[str, ...]
    trigrams: tuple[str, ...]
    short_cjk: tuple[str, ...]


def query_terms(query: str) -> QueryTerms:
    """Words (deduplicated, English stop words dropped, the index stems them), the character
    trigrams of every CJK run of 3 or more, and CJK runs too short for a trigram (2 characters:
    matched as substrings; single characters are too common to search)."""
    stop = _stopwords()
    words: list[str] = []
    for word in _WORD.findall(_CJK_RUN.sub(" ", query).lower()):
        if word not in stop and word not in words:
            words.append(word)
    trigrams: list[str] = []
    short: list[str] = []
    for run in _CJK_RUN.findall(query):
        if len(run) == 2 and run not in short:
            short.append(run)
        for i in range(len(run) - 2):
            if run[i : i + 3] not in trigrams:
                trigrams.append(run[i : i + 3])
    return QueryTerms(tuple(words), tuple(trigrams), tuple(short))


def filter_sql(
    filters: Filters | None,
) -> tuple[str, str, dict[str, Any], list[BindParameter[Any]]]:
    """(joins, conditions, parameters, expanding bind parameters) restricting ``chunks c`` to
    the filter, for a statement that already names the chunk table ``c``."""
    if filters is None or not filters.active:
        return "", "", {}, []
    joins = " JOIN documents d ON d.id = c.document_id"
    terms: list[str] = []
    params: dict[str, Any] = {}
    binds: list[BindParameter[Any]] = []
    if filters.collection:
        terms.append("d.collection = :f_collection")
        params["f_collection"] = filters.collection
    if filters.document_ids:
        terms.append("d.id IN :f_documents")
        params["f_documents"] = list(filters.document_ids)
        binds.append(bindparam("f_documents", expanding=True))
    if filters.file_types:
        terms.append("d.file_type IN :f_types")
        params["f_types"] = list(filters.file_types)
        binds.append(bindparam("f_types", expanding=True))
    return joins, " AND " + " AND ".join(terms), params, binds


def substring_score_sql(patterns: tuple[str, ...]) -> tuple[str, str, dict[str, Any]]:
    """(score expression, condition, parameters) counting how many of ``patterns`` a chunk's
    title or text contains (for CJK text too short for trigram search)."""
    params: dict[str, Any] = {}
    hits: list[str] = []
    for i, pattern in enumerate(patterns):
        params[f"p{i}"] = f"%{pattern}%"
        hits.append(f"(c.text LIKE :p{i} OR c.title LIKE :p{i})")
    score = " + ".join(f"(CASE WHEN {h} THEN 1 ELSE 0 END)" for h in hits)
    return score, "(" + " OR ".join(hits) + ")", params


def merge(*rankings: list[Hit]) -> list[Hit]:
    """Rankings of different scales merged by reciprocal rank (1 / (60 + rank)), best first."""
    present = [r for r in rankings if r]
    if len(present) <= 1:
        return present[0] if present else []
    scores: dict[int, float] = {}
    for ranking in present:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + 1.0 / (60 + rank)
    return [Hit(cid, s) for cid, s in sorted(scores.items(), key=lambda item: -item[1])]


#: Tables, columns and indexes of the keyword index (alembic 0005), made by raw DDL and absent
#: from the models: autogenerate and model comparisons leave them alone.
KEYWORD_TABLE_PREFIXES = ("chunks_fts", "chunks_cjk")
KEYWORD_OBJECTS = frozenset({"search_vector", "ix_chunks_search_vector", "ix_chunks_text_trgm"})


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    """Alembic ``include_object`` hook: False for the keyword index's own objects."""
    if name is None:
        return True
    if type_ == "table" and name.startswith(KEYWORD_TABLE_PREFIXES):
        return False
    return name not in KEYWORD_OBJECTS
