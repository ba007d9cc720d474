"""Retrieval: dense and keyword search fused, filtered by collection, document and file type;
a filter by speaker reads those speakers' turns (``_speakers``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from core import catalogue
from core.db import Database
from core.embedder import Embedder
from core.filters import Filters
from core.keywords import open_keyword_index
from core.keywords.base import query_terms
from core.knowledge import KnowledgeBase
from core.languages import holds_language, languages_named
from core.provenance import describe
from core.text import NUMBER_CONTEXT_STOP_WORDS, holds_all, latin_share, names_in, stems
from service.answering.retrieval._documents import (
    KIND_WORD,
    DocumentNames,
    holds_quotes,
    titles_named,
)
from service.answering.retrieval._lexical import lexical_scores, stems_of
from service.answering.retrieval._rows import lacked_names, names_a_row, piece_holding
from service.answering.retrieval._speakers import (
    asked_speaker,
    by_speaker,
    speaker_turns,
    split_speakers,
)

__all__ = ["METHODS", "Filters", "Passage", "Retriever", "reciprocal_rank_fusion"]


@dataclass(frozen=True)
class Passage:
    """A retrieved chunk as the model and the user see it, numbered from 1."""

    number: int
    chunk_id: int
    document_id: int
    path: str
    file_type: str
    provenance: dict[str, Any]
    score: float
    text: str
    #: Other files holding the same text (merged by ``service.answering.retrieval``).
    copies: tuple[Passage, ...] = ()
    #: The chunk's whole text when ``text`` is a cut of it (``fit_passages``); "" when whole.
    whole: str = ""
    #: Its document is one the question names ("the memo", a file's name or title, an author):
    #: fitting keeps at least its best sentence, as for the first passage, and fits its other
    #: sentences before any other document's.
    named: bool = False
    #: Found for a side of an arithmetic question (``side_hop``), or kept by retrieval past the
    #: score margin for what it holds (the chunk of a kind the question names, the keyword
    #: search's chunk holding every word of it): fitting keeps at least its best sentence.
    kept: bool = False
    #: Its document's title (``ingest.titles.document_title``: a heading, a subject line, the
    #: first line; "" when none): what the document is about, which a chunk need not repeat.
    title: str = ""
    #: Its document's authors or senders, folded words (``DocumentNames.owners``; "" when its
    #: head names none): like the title, they hold for all of its text.
    owners: str = ""
    #: Its document's first chunk (``with_heads``; "" when not read): the cover or
    #: head naming the document ("FORM 10-K", a letter's heading), which holds for all of it.
    head: str = ""

    @property
    def label(self) -> str:
        """``name, page 3`` / ``name, slide 2`` / ``name, sheet S, rows 4-9`` / ``name, 0:00–0:11``
        (audio) / ``name, page 1, box (30, 84)–(623, 364)`` (OCR), for prompts and citations."""
        name = Path(self.path).name
        carrier, sep, _ = self.path.partition("#attachment/")
        if sep:  # a file carried by another: name both
            name = f"{name} in {Path(carrier).name}"
        where = describe(self.provenance)
        own = f"{name}, {where}" if where else name
        return "; ".join([own, *(c.label for c in self.copies)])

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form; ``copies`` lists the other files holding the same text."""
        data = asdict(self)
        data.pop("whole")  # the model and the user see ``text``
        data.pop("named")
        data.pop("kept")
        data.pop("title")
        data.pop("owners")
        data.pop("head")
        data["copies"] = [c.as_dict() for c in self.copies]
        return {**data, "name": Path(self.path).name, "label": self.label}


RRF_K = 60
#: A passage whose letters are at least this share Latin is text the embedder reads: only
#: those set the relative margin's best.
READABLE_SHARE = 0.5
METHODS = ("hybrid", "dense", "bm25")
#: How many of each search inside a kind named alone compete for its lexical best.
KIND_CANDIDATES = 5
#: At most this many chunks holding a language the question names are kept beside the others.
LANGUAGE_KEPT = 3
#: Question words ("how", "many", "which") a chunk need not hold to hold the question's words.
QUESTION_STEMS = frozenset(stems(sorted(NUMBER_CONTEXT_STOP_WORDS)))
#: The fewest words a question must have for a chunk holding them all to be kept past the margin.
MIN_WORDS_HELD = 3
#: How far (in chunks, either way) the other pieces of a wide table row are looked for.
ROW_PIECES_REACH = 16
#: The offsets of those pieces, nearest first (1, -1, 2, -2, ...).
_ROW_PIECE_STEPS = sorted(range(-ROW_PIECES_REACH, ROW_PIECES_REACH + 1), key=abs)[1:]


def reciprocal_rank_fusion(rankings: list[list[int]], k: int = RRF_K) -> list[tuple[int, float]]:
    """Fuse ranked id lists: score = sum of 1 / (k + rank), best first (ties by first seen)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, cid in enumerate(ranking, start=1):
            scores[cid] = scores.get(cid, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


class Retriever:
    """Hybrid retrieval: dense (the configured vector store) and keyword (the catalogue's
    full-text index), fused by reciprocal rank; each index applies the filters itself. Texts,
    provenance and embeddings come from the catalogue.

    Every passage's ``score`` is its cosine similarity to the question, so thresholds mean the
    same whichever ranker found it. Passages below ``min_score`` or more than
    ``relative_margin`` below the best are dropped; one holding every name the question asks
    about (``claims.names_in``) is kept below ``min_score``, never below the margin.
    """

    def __init__(self, kb: KnowledgeBase, embedder: Embedder) -> None:
        self.kb = kb
        self.embedder = embedder
        self.backend = kb.settings.retrieval.dense_backend
        self.keywords = open_keyword_index(kb.db, kb.settings.retrieval.keyword_postings)
        self.documents = DocumentNames(kb.db)

    def _dense(self, vector: Any, n: int, filters: Filters) -> list[int]:
        store = self.kb.queryable_store(self.backend)
        return [h.chunk_id for h in store.query(vector, n, filters)]

    def _speaker_first(
        self,
        question: str,
        scored: list[tuple[Any, Any, float]],
        vector: np.ndarray,
        filters: Filters,
        number: int | None,
        name: str | None,
        k: int,
    ) -> list[tuple[Any, Any, float]]:
        """The asked speaker's turns within the filters first (those about what the question
        asks when any is: ``speaker_turns``), then, when none holds the question's words, the
        other passages; ``k`` in all."""
        numbers, names = ([number] if number is not None else []), ([name] if name else [])
        theirs, about = speaker_turns(self.kb.db, vector, question, filters, numbers, names, True)
        if not theirs:
            return scored
        if about:
            return theirs[:k]
        mine = {c.id for c, _, _ in theirs}
        return (theirs + [item for item in scored if item[0].id not in mine])[:k]

    def retrieve(
        self,
        question: str,
        k: int | None = None,
        filters: Filters | None = None,
        method: str = "hybrid",
        cut: bool = True,
        min_score: float | None = None,
        relative_margin: float | None = None,
        vector: np.ndarray | None = None,
    ) -> list[Passage]:
        """The top ``k`` passages for a question, best first (``cut=False`` keeps every one).

        ``vector`` is the question's embedding when the caller already has it (shape
        ``(dimension,)``, float32, unit length, as ``embedder.embed([question])[0]`` gives; an
        evaluation embeds its questions in batches); else the question is embedded here.
        """
        cfg = self.kb.settings.retrieval
        k = k or cfg.top_k
        filters = filters or Filters()
        pool = max(4 * k, 20)
        if vector is None:
            vector = self.embedder.embed([question])[0]
        if filters.speakers:  # only those speakers' turns: read from the catalogue, ranked here
            return self._speakers_only(
                question, vector, filters, k, cut, min_score, relative_margin
            )
        rankings: list[list[int]] = []
        if method in ("hybrid", "dense"):
            rankings.append(self._dense(vector, pool, filters))
        keywords: list[int] = []
        if method in ("hybrid", "bm25"):
            keywords = [h.chunk_id for h in self.keywords.search(question, pool, filters)]
            rankings.append(keywords)
        # A document the question names ("the Stanley Cups spreadsheet", "the recording") is
        # searched once more alone: its ranking fused in lifts its chunks.
        named = self.documents.named(question)
        inside = named.filters(filters, self.documents.types()) if named else None
        own: list[list[int]] = []
        if inside is not None:
            if method in ("hybrid", "dense"):
                own.append(self._dense(vector, pool, inside))
            if method in ("hybrid", "bm25"):
                own.append([h.chunk_id for h in self.keywords.search(question, pool, inside)])
            rankings += own
        mine = set(inside.document_ids) if inside is not None else set()  # named, or of the kind
        by_name = mine & named.by_reference() if named.document_ids else set()
        # A kind named alone ("the scanned page", "the recording"): the chunk of that kind the
        # question points at is kept however low its cosine (OCR of a page in six languages
        # scored 0.115 against "what percentage of e-mail is spam", 0.23 under the e-mail that
        # set the margin): the first of the dense search inside the kind, and the one holding
        # most of the question's words by ``lexical_scores`` (computed here, the same on every
        # backend: Postgres ``ts_rank``, before its words were weighted by idf, ranked another
        # scan first where SQLite's BM25 did not).
        kind_best = self._kind_best(question, own) if mine and not named.document_ids else set()
        fused = [cid for cid, _ in reciprocal_rank_fusion(rankings)][: max(k, pool)]
        if not fused:
            return []
        scored = []
        with self.kb.db.session() as s:
            # Only the first k are read (the pool is 4k): the next k only when some of them
            # are missing (a store ahead of the catalogue; repaired at next start).
            for start in range(0, len(fused), k):
                ids = fused[start : start + k]
                by_id = catalogue.chunks_with_documents(s, ids)
                for cid in ids:
                    if cid in by_id:
                        chunk, doc = by_id[cid]
                        cosine = float(np.frombuffer(chunk.embedding, dtype=np.float32) @ vector)
                        scored.append((chunk, doc, cosine))
                if len(scored) >= k:
                    break
        scored = scored[:k]
        # A language named as the part to read ("the German part of the recording"): the
        # chunks of the pool holding text in it are kept (MiniLM reads German poorly).
        languages = languages_named(question)
        in_language = (
            self._in_languages(languages, [*fused[:pool], *kind_best]) if languages else set()
        )
        # The keyword search's first chunk, a table with a row the question names by a value
        # ("What is Microsoft's ISIN?": the infobox's "ISIN" row), or holding every word of
        # the question: kept, however low its cosine (0.39 for the infobox against 0.58 for
        # prose about Microsoft; the handbook's "Stale outstanding checks must be canceled and
        # reissued within 120 days" inside a long chunk on disbursements).
        keyword_kept = self._keyword_kept(question, keywords[:KIND_CANDIDATES], scored)
        missing = (kind_best | in_language | keyword_kept) - {chunk.id for chunk, _, _ in scored}
        if missing:  # kept above but ranked below the k fused: added after them
            with self.kb.db.session() as s:
                by_id = catalogue.chunks_with_documents(s, sorted(missing))
            for chunk, doc in by_id.values():
                cosine = float(np.frombuffer(chunk.embedding, dtype=np.float32) @ vector)
                scored.append((chunk, doc, cosine))
        # A wide table row cut into several chunks: the piece holding the asked column
        # ("Ireland" of the row "July 2012" names), kept right after the piece found.
        scored, pieces = self._row_pieces(question, scored, vector)
        keyword_kept |= pieces
        by_name -= _read_past(scored, {i for i in by_name if named.by.get(i) == KIND_WORD})
        number, name = asked_speaker(question, self.kb.db, self.kb.settings.data_dir)
        if number is not None or name is not None:  # that speaker's turns first, kept
            scored = self._speaker_first(question, scored, vector, filters, number, name, k)
        if cut and scored:
            # MiniLM reads Latin script only: its cosines on Hebrew, Cyrillic, CJK... text are
            # noise and must not set the margin's best (a Hebrew e-mail's 0.319 cut the CSV row).
            readable = [c for chunk, _, c in scored if latin_share(chunk.text) >= READABLE_SHARE]
            best = max(readable) if readable else max(c for _, _, c in scored)
            low = cfg.min_score if min_score is None else min_score
            margin = cfg.relative_margin if relative_margin is None else relative_margin
            floor = max(low, best - margin)
            # A passage holding every name the question asks about bears on it, however low its
            # cosine (a table chunk scores 0.10-0.15 against "What is Helen Okafor's role?"): it
            # is exempt from min_score, not from the margin, which keeps out near-miss passages
            # (SQuAD's "Who did King Charles III swear fealty to?" names him in a passage where
            # Rollo swears fealty to him; given it, the 1.5B answered "King Charles III").
            names = names_in(question)
            scored = [
                item
                for item in scored
                if item[2] >= floor
                or (item[2] >= best - margin and holds_all(names, item[0].text))
                or (item[2] >= best - margin and item[1].id in mine)
                or item[1].id in by_name
                or item[0].id in kind_best
                or item[0].id in in_language
                or item[0].id in keyword_kept
                or by_speaker(item[0].provenance or {}, number, name)
            ]
            spoken = {c.id for c, _, _ in scored if by_speaker(c.provenance or {}, number, name)}
            scored = _behind_named(scored, by_name, in_language | spoken)
        # kept past the margin for what they hold, so fitting keeps their best sentence too
        return _as_passages(scored, by_name, keyword_kept, named.owners)

    def _kind_best(self, question: str, own: list[list[int]]) -> set[int]:
        """The chunk ids a kind named alone points at: the first of the first search inside
        the kind (``own[0]``: dense, unless only keywords were asked for) and, of the first
        ``KIND_CANDIDATES`` of every search inside it, the one with the highest
        ``lexical_scores`` (ties: the better fused rank); empty when nothing was searched."""
        if not own:
            return set()
        best = {own[0][0]} if own[0] else set()
        candidates = [cid for cid, _ in reciprocal_rank_fusion([r[:KIND_CANDIDATES] for r in own])]
        if not candidates:
            return best
        with self.kb.db.session() as s:
            by_id = catalogue.chunks_with_documents(s, candidates)
        held = [cid for cid in candidates if cid in by_id]
        if not held:
            return best
        scores = lexical_scores(question, [by_id[cid][0].text for cid in held])
        if float(scores.max()) > 0.0:
            best.add(held[int(np.argmax(scores))])  # argmax: the first of equal scores
        return best

    def _keyword_kept(
        self, question: str, ids: list[int], scored: list[tuple[Any, Any, float]]
    ) -> set[int]:
        """Of the keyword search's first chunk ``ids``: the first, when it is a table with a row
        ``question`` names by a value (``names_a_row``), and the first holding every word of a
        question of at least ``MIN_WORDS_HELD`` (stemmed; stop and question words aside: found
        among the first few, as Postgres's idf-weighted ``ts_rank`` ranks otherwise than BM25) that
        names no one (``names_in`` empty), and the first holding every phrase the question
        quotes (``titles_named``); their texts taken from ``scored`` (already read) where they
        are."""
        texts = {chunk.id: chunk.text for chunk, _, _ in scored if chunk.id in ids}
        if unread := [c for c in ids if c not in texts]:
            with self.kb.db.session() as s:
                by_id = catalogue.chunks_with_documents(s, unread)
            texts |= {cid: chunk.text for cid, (chunk, _) in by_id.items()}
        held = [c for c in ids if c in texts]
        kept = {held[0]} if held and names_a_row(texts[held[0]], question) else set()
        asked = set(stems(query_terms(question).words)) - QUESTION_STEMS
        # Not for a question naming someone or something: its passages holding every name are
        # kept within the margin only (``retrieve``), as a chunk holding every word of it is
        # SQuAD 2.0's near miss ("Who did King Charles III swear fealty to?": Rollo "agreed to
        # swear fealty to King Charles III"; given it, the 1.5B answered "King Charles III").
        if len(asked) >= MIN_WORDS_HELD and not names_in(question):
            holding = [c for c in held if asked <= stems_of(texts[c])]
            kept |= set(holding[:1])
        # What the question quotes is said word for word where it points ('who replies
        # "Absolutely"': the one-word turn scored far under the margin)
        if quotes := titles_named(question):
            kept |= set([c for c in held if holds_quotes(texts[c], quotes)][:1])
        return kept

    def _row_pieces(
        self, question: str, scored: list[tuple[Any, Any, float]], vector: np.ndarray
    ) -> tuple[list[tuple[Any, Any, float]], set[int]]:
        """``scored`` (chunk, document, cosine) with, right after each that is a piece of a
        table row the question names but lacks a name it asks about (``lacked_names``), the
        nearest other piece of that row (the same document and provenance, within
        ``ROW_PIECES_REACH`` chunks) holding one (``piece_holding``); and the ids of the pieces
        added. Unchanged when none lacks."""
        lacking = {
            chunk.id: names
            for chunk, _, _ in scored
            if (chunk.provenance or {}).get("rows")
            and (names := lacked_names(chunk.text, question))
        }
        if not lacking:
            return scored, set()
        with self.kb.db.session() as s:
            own, near = catalogue.chunks_around(s, sorted(lacking), ROW_PIECES_REACH)
        have = {chunk.id for chunk, _, _ in scored}
        found: dict[int, Any] = {}
        for chunk in own:
            others = [
                other
                for d in _ROW_PIECE_STEPS
                if (other := near.get((chunk.document_id, chunk.ordinal + d))) is not None
                and other.provenance == chunk.provenance
                and other.id not in have
            ]
            i = piece_holding([o.text for o in others], lacking[chunk.id], question)
            if i is not None:
                found[chunk.id] = others[i]
                have.add(others[i].id)
        out: list[tuple[Any, Any, float]] = []
        for chunk, doc, cosine in scored:
            out.append((chunk, doc, cosine))
            if (piece := found.get(chunk.id)) is not None:
                score = float(np.frombuffer(piece.embedding, dtype=np.float32) @ vector)
                out.append((piece, doc, score))
        return out, {piece.id for piece in found.values()}

    def _in_languages(self, languages: tuple[str, ...], ids: list[int]) -> set[int]:
        """Of the chunk ``ids`` (best first), the first ``LANGUAGE_KEPT`` holding a sentence in
        one of ``languages`` (lingua names)."""
        with self.kb.db.session() as s:
            by_id = catalogue.chunks_with_documents(s, list(dict.fromkeys(ids)))
        kept: set[int] = set()
        for cid in dict.fromkeys(ids):
            if len(kept) == LANGUAGE_KEPT:
                break
            if cid in by_id and holds_language(by_id[cid][0].text, languages):
                kept.add(cid)
        return kept

    def _speakers_only(
        self,
        question: str,
        vector: np.ndarray,
        filters: Filters,
        k: int,
        cut: bool,
        min_score: float | None,
        relative_margin: float | None,
    ) -> list[Passage]:
        """``filters.speakers``: only those speakers' turns within the other filters, the ``k``
        best (``speaker_turns``); a turn holding the question's words is kept whatever its
        cosine, the others above ``min_score`` and within ``relative_margin`` of the best."""
        cfg = self.kb.settings.retrieval
        numbers, names = split_speakers(filters.speakers)
        turns, about = speaker_turns(self.kb.db, vector, question, filters, numbers, names, False)
        scored = turns[:k]
        if cut and scored:
            low = cfg.min_score if min_score is None else min_score
            margin = cfg.relative_margin if relative_margin is None else relative_margin
            floor = max(low, max(c for _, _, c in scored) - margin)
            scored = [item for item in scored if item[2] >= floor or item[0].id in about]
        return _as_passages(scored, owners=self.documents.owners())


def with_heads(db: Database, passages: list[Passage]) -> list[Passage]:
    """``passages`` with their documents' first chunks from the catalogue ``db``
    (``Passage.head``; one query for all of them), which the review reads as naming the whole
    document."""
    if not passages:
        return passages
    with db.session() as s:
        heads = catalogue.first_chunks(s, sorted({p.document_id for p in passages}))
    return [
        replace(p, head=heads[p.document_id][0]) if p.document_id in heads else p for p in passages
    ]


def _read_past(scored: list[tuple[Any, Any, float]], weak: set[int]) -> set[int]:
    """The documents of ``weak`` (named by a file name that is one kind word, ``KIND_WORD``)
    that a chunk of another document in ``scored`` (chunk, document, cosine) reads more like the
    question than their best: "the receipt" with pizzas asked about is demo_kie.jpeg's
    receipt, not receipt.jpg's (held-out dev h1028; h748-h750, h551 the same, and "the slides"
    h184, h431), while "the McDonald's receipt" stays receipt.jpg (h947, h949, h950)."""
    if not weak:
        return set()
    best: dict[int, float] = {}
    for _, doc, cosine in scored:
        best[doc.id] = max(cosine, best.get(doc.id, -1.0))
    others = max((c for i, c in best.items() if i not in weak), default=-1.0)
    return {i for i in weak if best.get(i, -1.0) < others}


def _behind_named(
    scored: list[tuple[Any, Any, float]], by_name: set[int], kept: set[int]
) -> list[tuple[Any, Any, float]]:
    """``scored`` (chunk, document, cosine) without the other documents' chunks that read less
    like the question than the best chunk of a document it names by name (``by_name``): those
    are the neighbours the 1.5B takes a value from (held-out dev h096: "the sample
    presentation's table" answered "Green" from another deck's table). Chunk ids in ``kept``
    stay."""
    best = max((c for _, doc, c in scored if doc.id in by_name), default=None)
    if best is None:
        return scored
    return [
        item for item in scored if item[1].id in by_name or item[2] >= best or item[0].id in kept
    ]


def _as_passages(
    scored: list[tuple[Any, Any, float]],
    named: set[int] | None = None,
    kept: set[int] | None = None,
    owners: dict[int, str] | None = None,
) -> list[Passage]:
    """(chunk, document, cosine) rows as passages numbered from 1; ``named``: the ids of the
    documents the question names by name, whose passages come first (in their order: "Who
    signed the memo?" was answered from handbook passages on signing numbered before the
    memo's); ``kept``: chunk ids whose passages are ``kept`` (fitting keeps their best
    sentence); ``owners``: document id -> its authors' words (``Passage.owners``)."""
    named = named or set()
    kept = kept or set()
    owners = owners or {}
    scored = sorted(scored, key=lambda item: item[1].id not in named)  # stable
    return [
        Passage(
            number=i,
            chunk_id=chunk.id,
            document_id=doc.id,
            path=doc.path,
            file_type=doc.file_type,
            provenance=dict(chunk.provenance or {}),
            score=round(cosine, 4),
            text=chunk.text,
            named=doc.id in named,
            kept=chunk.id in kept,
            title=chunk.title or "",
            owners=owners.get(doc.id, ""),
        )
        for i, (chunk, doc, cosine) in enumerate(scored, start=1)
    ]
