"""The KeywordIndex Protocol, the registry choosing a backend by SQL dialect, and how a
question is cut into index terms (stemmed words, and CJK trigrams)."""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import bindparam
from sqlalchemy.sql.elements import BindParameter

from core.filters import Filters
from core.plugins import Registry
from core.text import month_forms
from core.types import Hit

if TYPE_CHECKING:
    from core.db.session import Database


class KeywordIndex(Protocol):
    """Keyword (full-text) search over the catalogue's chunks, kept by the database itself."""

    def search(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The top ``k`` chunks for ``query`` (higher score is better), best first."""
        ...


IndexFactory = Callable[["Database", int], KeywordIndex]
#: Keyword index backends by SQLAlchemy dialect name (``sqlite``, ``postgresql``), from every
#: plugin's ``register_keyword_indexes`` hook; a factory takes (database, max_postings).
KEYWORD_INDEXES: Registry[IndexFactory] = Registry(
    "register_keyword_indexes", "catalogue database dialect", ("core.keywords.builtin",)
)

#: Default of ``retrieval.keyword_postings`` (see :func:`cap_terms`).
DEFAULT_MAX_POSTINGS = 30_000


def open_keyword_index(db: Database, max_postings: int = DEFAULT_MAX_POSTINGS) -> KeywordIndex:
    """The keyword index of this catalogue's database (``UnknownBackendError`` naming the
    dialect and the known ones when no plugin registered one for it).

    ``max_postings``: most (term, chunk) pairs one query scores, 0 for no cap
    (:func:`cap_terms`)."""
    return KEYWORD_INDEXES.get(db.engine.dialect.name)(db, max_postings)


def cap_terms(
    terms: tuple[str, ...], df: Callable[[tuple[str, ...]], Mapping[str, int]], max_postings: int
) -> tuple[str, ...]:
    """The terms a query keeps so it scores at most ``max_postings`` (term, chunk) pairs.

    A full-text OR query ranks every chunk holding any of its terms, so its time grows with the
    terms' document frequencies (``df``: every term's, in one call), not with ``k``: at 100,000
    chunks "from" alone is in 44% of them. Terms are taken rarest first while their postings fit
    the budget; the rarest term is always kept; terms in no chunk are dropped. What is dropped is
    the commonest terms, whose BM25 weight (idf) is lowest: the idea of Lucene's
    CommonTermsQuery. Order is kept. ``max_postings`` 0 keeps every term. ``df`` may stop
    counting past ``max_postings`` (such a term never fits beside another), or estimate; among
    terms that all do, the first is kept.
    """
    if not max_postings or len(terms) <= 1:
        return terms
    counts = df(terms)
    if sum(counts.values()) <= max_postings:
        return tuple(t for t in terms if counts[t])
    kept: set[str] = set()
    spent = 0
    for term in sorted((t for t in terms if counts[t]), key=lambda t: counts[t]):
        if kept and spent + counts[term] > max_postings:
            break
        kept.add(term)
        spent += counts[term]
    return tuple(t for t in terms if t in kept)


def counts_sql(hits: str, n: int) -> str:
    """One SELECT of ``n`` bounded counts: ``hits`` is the subquery selecting one term's
    matching chunks (``{i}`` its index in bind names ``:q{i}``, ``:n`` the bound)."""
    return "SELECT " + ", ".join(
        f"(SELECT count(*) FROM ({hits.format(i=i)} LIMIT :n) AS hits{i})" for i in range(n)
    )


class FrequencyCache:
    """Document frequencies of terms, counted through ``count`` (every term missing, in one
    call) and kept for ``ttl_s`` seconds (at most ``size`` terms, least recently used dropped):
    a cap needs them only roughly, and counting a common term reads its posting list."""

    def __init__(
        self,
        count: Callable[[tuple[str, ...]], Mapping[str, int]],
        size: int = 20_000,
        ttl_s: float = 3600.0,
    ):
        self._count = count
        self._size = size
        self._ttl = ttl_s
        self._items: OrderedDict[str, tuple[float, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, terms: tuple[str, ...]) -> dict[str, int]:
        """``{term: document frequency}`` of every term."""
        now = time.monotonic()
        out: dict[str, int] = {}
        with self._lock:
            for term in terms:
                hit = self._items.get(term)
                if hit is not None and now - hit[0] < self._ttl:
                    self._items.move_to_end(term)
                    out[term] = hit[1]
        missing = tuple(dict.fromkeys(t for t in terms if t not in out))
        if missing:
            counted = self._count(missing)
            with self._lock:
                for term in missing:
                    out[term] = counted[term]
                    self._items[term] = (now, counted[term])
                    self._items.move_to_end(term)
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
        return out


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


def text_words(text: str) -> list[str]:
    """The lower-cased words of ``text`` outside its CJK runs, in order, with repeats."""
    return _WORD.findall(_CJK_RUN.sub(" ", text).lower())


def query_terms(query: str) -> QueryTerms:
    """Words (deduplicated, English stop words dropped, the index stems them), the character
    trigrams of every CJK run of 3 or more, and CJK runs too short for a trigram (2 characters:
    matched as substrings; single characters are too common to search)."""
    stop = _stopwords()
    words: list[str] = []
    for word in text_words(query):
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


def searched_words(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` (``QueryTerms.words``) with the other ways documents write a month they name
    (``month_forms``): "July 2012" finds a table's "JUL-2012" row and "Jul 2012" finds "July"."""
    out = list(words)
    for word in words:
        out.extend(f for f in month_forms(word) if f not in out)
    return tuple(out)


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
