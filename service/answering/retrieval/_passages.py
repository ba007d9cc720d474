"""Passages fitted to a token budget: identical texts given once, and of each passage the
sentences that bear on the question (with their neighbours), until the budget is spent.

Prompt evaluation is most of the wait for a first token on a CPU (see NOTES.md, issue 19), so
the model is given less to read. Sentences are scored by cosine similarity to the question with
the embedder already loaded for retrieval (one batch for the question and every sentence), plus
the share of the question's words they hold, each word weighted by its rarity among the
sentences (an idf, as in BM25), so the sentence holding the year or the name asked about is not
lost to a vaguer paraphrase. An answer often follows the sentence that matches the question
("... awaited Loudoun at Louisbourg. Faced with this strength, Loudoun returned to New York"),
so a sentence scores at least ``CARRY`` of its predecessor's score. A passage's heading (a
short first line, the document's title) is kept with it and never counts as its best sentence.
A passage keeps its number order, label and provenance (its page/slide/row/time still cite
right); a passage with no sentence left is dropped, never the best one. Short passages are
kept whole, and so are tables whose rows do not name their columns (a row without its header
means nothing); rows written with their headers are chosen one by one, like sentences.
"""

from __future__ import annotations

import itertools
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from core.embedder import Embedder
from core.keywords.base import query_terms
from core.text import ENDS_CLAUSE, FIGURE, NUMERIC_CELL, asked_numbers
from core.text import stems as stem_words
from service.answering.retrieval._languages import in_named_languages
from service.answering.retrieval._lexical import lexical_scores, stems_of
from service.answering.retrieval._retriever import Passage
from service.answering.retrieval._rows import (
    CELL_GAP,
    When,
    asked_whens,
    carries_headers,
    is_asked,
    is_cells_line,
    is_row,
    other_dated_cells,
    row_whens,
    value_named_rows,
)
from service.answering.retrieval._sentences import GAP, split_sentences
from service.answering.retrieval._shapes import asked_shapes, holds_shape

#: Passages of at most this many tokens are not cut.
WHOLE_BELOW = 48
#: Weight of the question's words a sentence holds (an idf-weighted share, 0-1) beside its
#: cosine similarity. With CARRY, chosen on squad questions retrieved from the scratch base:
#: the answer stayed in 96% of 271 fitted prompts at 160 tokens (NOTES.md, issue 19).
LEXICAL_WEIGHT = 0.3
#: Added to the score of a piece holding a value of the shape the question asks for (an
#: e-mail address, a phone number, a year: ``asked_shapes``).
SHAPE_WEIGHT = 0.1
#: A sentence scores at least this share of the sentence before it.
CARRY = 0.9
#: A first line of at most this many tokens, with no sentence end, is the passage's heading.
HEADING_TOKENS = 12
_TABLE_KEYS = ("sheet", "rows", "row", "table")
#: A table row longer than this share of the budget is narrowed to the cells the question names
#: (``narrow_row``): one row of a sheet with a column per month took the whole budget and the
#: asked row, ranked second, was left out (held-out dev h171).
WIDE_ROW_SHARE = 0.5
#: A row too long for the budget left is cut to the leading cells that fit when it scores at
#: least this share of the best piece's score.
CUT_ROW_SHARE = 0.85
#: At most this many leading cells of words name a narrowed row.
LABEL_CELLS = 3


def same_text_key(text: str) -> str:
    """What makes two passages the same: their text with whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def merge_identical(passages: Sequence[Passage]) -> list[Passage]:
    """Passages with the same text given once (at the best rank), carrying the other files as
    ``copies`` so the answer cites every file that holds it; renumbered from 1."""
    first: dict[str, Passage] = {}
    order: list[str] = []
    for p in passages:
        key = same_text_key(p.text)
        if key in first:
            kept = first[key]
            if p.path != kept.path and all(c.path != p.path for c in kept.copies):
                first[key] = replace(kept, copies=(*kept.copies, p))
            continue
        first[key] = p
        order.append(key)
    return [replace(first[k], number=i) for i, k in enumerate(order, start=1)]


def is_tabular(p: Passage) -> bool:
    """True for a spreadsheet/table passage (rows mean nothing without their header)."""
    if any(k in p.provenance for k in _TABLE_KEYS) or p.file_type in ("csv", "xlsx", "xls", "ods"):
        return True
    lines = [ln for ln in p.text.splitlines() if ln.strip()]
    return len(lines) >= 3 and sum(("|" in ln or "\t" in ln) for ln in lines) >= len(lines) / 2


def rows_carry_headers(p: Passage) -> bool:
    """True for a table passage whose rows each name their columns ("Item: Oak shelf | Q2 2026:
    22.4", as ingest/loaders/tables.py writes them): any row means something on its own."""
    return carries_headers(p.text)


@dataclass
class _Piece:
    passage: int
    index: int
    text: str
    tokens: int
    score: float
    heading: bool = False
    #: A table's title line: a heading whose score still carries to the row after it.
    title: bool = False


class SentenceVectors:
    """Embeddings of recently scored sentences (and questions), least recently used dropped
    past ``size`` texts: a sentence's vector does not depend on the question, and the passages
    of a library's popular pages come back question after question (384 float32 = 1.5 KiB a
    text; 20,000 texts = 30 MiB, inside the embedder's share of the memory plan)."""

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self._by_embedder: weakref.WeakKeyDictionary[Embedder, OrderedDict[str, np.ndarray]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def __call__(self, embedder: Embedder, texts: list[str]) -> np.ndarray:
        """Unit vectors of ``texts``, shape (n, dimension); only texts not held are embedded
        (one ``embed_questions`` call, on the cores answering has now)."""
        from core.threads import budget

        held: dict[str, np.ndarray] = {}
        with self._lock:
            known = self._by_embedder.setdefault(embedder, OrderedDict())
            for t in texts:
                vector = known.get(t)
                if vector is not None:
                    held[t] = vector
        missing = list(dict.fromkeys(t for t in texts if t not in held))
        if missing:
            vectors = embedder.embed_questions(missing, threads=budget().answer_threads())
            held.update(zip(missing, vectors, strict=True))
        with self._lock:
            for t, v in held.items():
                known[t] = v
                known.move_to_end(t)
            while len(known) > self.size:
                known.popitem(last=False)
        return np.stack([held[t] for t in texts]).astype(np.float32, copy=False)


#: The process's sentence vectors.
SENTENCE_VECTORS = SentenceVectors()


def _cosine(embedder: Embedder, question: str, sentences: list[str]) -> np.ndarray:
    # On the answer's path: ahead of ingest slices, on the cores answering has now (every core
    # unless ingest runs: 41 squad sentences took 0.49 s on 2 threads, 0.89 s on 1, quiet).
    vectors = SENTENCE_VECTORS(embedder, [question, *sentences])
    return np.asarray(vectors[1:] @ vectors[0], dtype=np.float32)


def _score(
    embedder: Embedder,
    question: str,
    units: list[list[_Piece]],
    flat: list[_Piece],
    also: str = "",
) -> None:
    """Sets every piece's score: cosine + LEXICAL_WEIGHT * lexical share (+ SHAPE_WEIGHT when
    it holds a value of the shape the question asks for, ``asked_shapes``; with ``also``, the
    question in another language, the better of its score and the question's), then carried
    forward within its passage (at least CARRY of the piece before it). A piece under a label
    line (a short line with no sentence in it: "2025 Objectives" over "Revenue Target: $12M")
    is scored with that line before it; taking it takes the line too (its neighbour). A
    heading carries forward only when it is a table's title line."""
    texts = [
        under_label([x.text for x in pieces], k) for pieces in units for k in range(len(pieces))
    ]
    scores = _cosine(embedder, question, texts) + LEXICAL_WEIGHT * lexical_scores(question, texts)
    if also:  # the question in the passages' language: the better of the two readings
        scores = np.maximum(
            scores, _cosine(embedder, also, texts) + LEXICAL_WEIGHT * lexical_scores(also, texts)
        )
    shapes = asked_shapes(question)
    for piece, score in zip(flat, scores, strict=True):
        piece.score = float(score) + SHAPE_WEIGHT * any(holds_shape(piece.text, s) for s in shapes)
    for pieces in units:
        for before, piece in itertools.pairwise(pieces):
            if not before.heading or before.title:
                piece.score = max(piece.score, CARRY * before.score)


#: Cells from which a row is narrowed to the cells the question names, however short it is: a
#: 1.5B model given "Robbery | Total: 100,496 | White: 43,039 | ... | Asian Pacific Islander:
#: 989" read the next row's last cell (held-out batch 4 dev h439, h401).
MANY_CELLS = 6
#: A label line's words at most (see ``under_label``).
LABEL_WORDS = 4


def under_label(lines: list[str], k: int) -> str:
    """The text piece ``k`` of a passage's pieces ``lines`` (its sentences or lines) is scored
    by: itself, after the piece before it when that one is a label line (at most
    ``LABEL_WORDS`` words, not ending a sentence or clause, not a field with its value as
    e-mail headers write them, not a table's row)."""
    piece = lines[k]
    if k == 0:
        return piece
    label = lines[k - 1].strip()
    if (
        len(label.split()) > LABEL_WORDS
        or ENDS_CLAUSE.search(label)
        or ":" in label  # a field and its value ("Subject: RE: exam"), not a label
        or " | " in label
        or " | " in piece
    ):
        return piece
    return f"{label}\n{piece}"


def _label_cells(cells: list[str]) -> int:
    """How many of a row's leading ``cells`` are its label: its first, and those after it
    whose values are words, not figures (a title column and "NYMEX Month: Current"), at most
    ``LABEL_CELLS``, never every cell."""
    label = 1
    while label < min(LABEL_CELLS, len(cells) - 1) and not NUMERIC_CELL.fullmatch(
        cells[label].rsplit(": ", 1)[-1].strip()
    ):
        label += 1
    return label


def narrow_row(row: str, question: str) -> str:
    """A table row written with its headers cut to its label (its leading cells of words, at
    most ``LABEL_CELLS``: what the row is about), the cells whose header holds the most of the
    question's words and numbers (stemmed; all but one of the most, when that is three or more),
    the cells whose value holds any, those whose header holds a number the question asks
    about when no header chosen holds one ("2021: 18,728" for "... ended December 31, 2021?"),
    and, when none of those is a figure, the row's figures if at most ``LABEL_CELLS`` ("What
    was the NYMEX 10-Day High for January 2002?": "NYMEX Month: 10-Day High | December 2001:
    3.339 | January 2002: 3.464 | ..." -> "NYMEX Month: 10-Day High | … | January 2002: 3.464 |
    …";
    "In which city is the customer who works for Murillo-Perry?" keeps "City: ..." and
    "Company: Murillo-Perry"). Unchanged when no later cell holds any of them, or when every
    cell would be kept."""
    cells = row.split(CELL_GAP)
    asked = set(stem_words(query_terms(question).words))
    if len(cells) < 3 or not asked:
        return row
    label = _label_cells(cells)
    pairs = [c.split(": ", 1) if ": " in c else ["", c] for c in cells[label:]]
    by_header = [len(stems_of(h) & asked) for h, _ in pairs]
    best = max(by_header)
    # a header holding three of the question's words or more names it as well as one holding
    # all but one of them: "combined revenue and capital public health outlay" holds three of
    # "Medical & Public Health, Revenue" and two of "Revenue & Capital, Total", the one asked
    # (held-out dev h401); two words ("January 2002") pick one column
    enough = best - 1 if best >= 3 else best
    chosen = [
        i
        for i, (n, (_, value)) in enumerate(zip(by_header, pairs, strict=True))
        if (best and n >= enough) or stems_of(value) & asked
    ]
    # no header chosen holds a number the question asks about: those that do name their
    # columns too ("2021: 18,728" of "... in the three months ended December 31, 2021?" beside
    # "Active Riders 2019 ...: 22,905", which holds two of its words: batch 8 dev h810), not
    # when one chosen does ("January 2002", not every month of 2002: dev h171)
    numbers = set(asked_numbers(question))
    dated = [bool(set(FIGURE.findall(header)) & numbers) for header, _ in pairs]
    if not any(dated[i] for i in chosen):
        chosen = sorted({*chosen, *(i for i, held in enumerate(dated) if held)})
    # no figure among the cells chosen: the question named the row by its values, not the
    # column it asks for ("how much was the Medec Service contract ... worth?" of "Suma
    # contractului MDL (cu TVA): 56669.83", dev h706), so the row's figures, when few, come too
    figures = [i for i, (_, value) in enumerate(pairs) if NUMERIC_CELL.fullmatch(value.strip())]
    if len(figures) <= LABEL_CELLS and not set(chosen) & set(figures):
        chosen = sorted({*chosen, *figures})
    keep = [*range(label), *(i + label for i in chosen)]
    if len(keep) == label or len(keep) == len(cells):
        return row
    out: list[str] = []
    for k, i in enumerate(keep):
        if k and i != keep[k - 1] + 1:
            out.append(GAP.strip())
        out.append(cells[i])
    if keep[-1] < len(cells) - 1:
        out.append(GAP.strip())
    return CELL_GAP.join(out)


#: Ordinal words a question counts a table's rows by ("the second row").
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
#: "row 2", "row #2", "the 2nd row", "the second row".
_ROW_NUMBER = re.compile(
    rf"\brow\s+(?:#|no\.?\s*|number\s+)?(\d{{1,3}})\b|\b(\d{{1,3}})(?:st|nd|rd|th)\s+row\b|"
    rf"\b({'|'.join(_ORDINALS)})\s+row\b",
    re.IGNORECASE,
)


def rows_numbered(question: str) -> set[int]:
    """The rows a question names by their place in a table, counted from 1 below the header:
    "row 2", "the 2nd row", "the second row" -> {2}."""
    found = set()
    for m in _ROW_NUMBER.finditer(question):
        digits = m.group(1) or m.group(2)
        found.add(int(digits) if digits else _ORDINALS[m.group(3).lower()])
    return found - {0}


def _counted_rows(lines: list[str], rows: list[int], wanted: set[int]) -> set[int]:
    """Of a passage's row lines, those at the ``wanted`` places of their table: each table
    starting at a header line (cells without "Header: " labels) right above its first row; rows
    of a table whose header the passage does not hold are not counted (the chunk may start
    mid-table)."""
    out: set[int] = set()
    place = 0
    for k in range(len(lines)):
        if k in rows:
            if place:
                place += 1
                if place - 1 in wanted:
                    out.add(k)
        else:
            header = CELL_GAP in lines[k] and ": " not in lines[k]
            place = 1 if header and k + 1 in rows else 0
    return out


def focus_rows(passage: Passage, question: str) -> Passage:
    """A table passage whose rows name their columns keeps, of its rows, those the question
    names by a value ("How many Stanley Cups have the Maple Leafs won?": the "Team: Maple
    Leafs" row, not the Blues' and Flyers' beside it, whose numbers the model read instead;
    held-out dev h011) or by their place below a header the passage holds ("row 2", "the
    second row": ``rows_numbered``; not in a sheet, whose "row 4" is the sheet's own); its
    title and header lines stay, and ``whole`` keeps every row for the citation. Unchanged
    when the question names no row, or every row."""
    if not rows_carry_headers(passage):  # a sheet, or rows of an HTML table among prose
        return passage
    lines = passage.text.splitlines()
    rows = [k for k, ln in enumerate(lines) if is_row(ln)]
    named = value_named_rows(lines, question)
    if "rows" not in passage.provenance:
        named |= _counted_rows(lines, rows, rows_numbered(question))
    if not named or len(named) == len(rows):
        return passage
    kept: list[str] = []
    for k, line in enumerate(lines):
        if k in named or k not in rows:
            kept.append(line)
        elif not kept or kept[-1] != GAP.strip():
            kept.append(GAP.strip())
    return replace(passage, text="\n".join(kept), whole=passage.whole or passage.text)


def _cut_cells(row: str, drop: set[int]) -> str:
    """``row``'s cells without those at ``drop``, a run of them left out written "…"."""
    out: list[str] = []
    for i, cell in enumerate(row.split(CELL_GAP)):
        if i not in drop:
            out.append(cell)
        elif not out or out[-1] != GAP.strip():
            out.append(GAP.strip())
    return CELL_GAP.join(out)


def keep_asked_dates(passage: Passage, asked: set[When], rows_too: bool) -> Passage | None:
    """A table passage whose rows name their columns, its rows cut to the asked days' and
    months' cells when its columns are dates ("Regiões: Médio-Norte | 7-jul-17: 61,41% |
    14-jul-17: 81,01%" -> "Regiões: Médio-Norte | … | 14-jul-17: 81,01%" for "by 14 July
    2017": a 1.5B model given both cells answered from the first), and with ``rows_too`` (the
    asked date's row is among the passages given, in another chunk of the same table) without
    its rows labelled by another date (held-out dev h1009 read "30-jun-17" from a chunk beside
    the "14-jul-17" row). None when that leaves it no row and nothing but its title and column
    names; unchanged when nothing is cut (``whole`` keeps the passage for the citation)."""
    if not asked or not rows_carry_headers(passage):
        return passage
    lines = passage.text.splitlines()
    other_rows = (
        {k for k, w in row_whens(lines).items() if not is_asked(w, asked)} if rows_too else set()
    )
    kept: list[str] = []
    for k, line in enumerate(lines):
        if k in other_rows:
            if not kept or kept[-1] != GAP.strip():
                kept.append(GAP.strip())
            continue
        drop = other_dated_cells(line.split(CELL_GAP), asked) if is_row(line) else set()
        kept.append(_cut_cells(line, drop) if drop else line)
    if kept == lines:
        return passage
    left = [ln for ln in kept if ln.strip() and ln != GAP.strip()]
    if not any(is_row(ln) for ln in left) and all(
        k == 0 or is_cells_line(ln) for k, ln in enumerate(left)
    ):
        return None
    return replace(passage, text="\n".join(kept), whole=passage.whole or passage.text)


#: How a table passage names rows the question names by a value: not at all, cut to them
#: (``focus_rows``), or every row of it named (a chunk of one row).
NO_ROW, CUT_TO_ROWS, ALL_ROWS = 0, 1, 2


def _asked_dates_only(
    passages: list[Passage], named: list[int], question: str
) -> tuple[list[Passage], list[int]]:
    """``passages`` (and how each names rows the question names, ``named``) with
    the cells and rows of days and months the question does not ask about left out
    (``keep_asked_dates``): the rows labelled by another date only from the documents of which
    a passage given holds the asked date's row."""
    asked = asked_whens(question)
    if not asked:
        return passages, named
    dated = {
        p.path
        for p, n in zip(passages, named, strict=True)
        if n and any(is_asked(w, asked) for w in row_whens(p.text.splitlines()).values())
    }
    out: list[Passage] = []
    flags: list[int] = []
    for p, n in zip(passages, named, strict=True):
        kept = keep_asked_dates(p, asked, rows_too=p.path in dated)
        if kept is not None:
            out.append(kept)
            flags.append(n)
    return out, flags


def _leading_cells(
    row: str, room: int, count_tokens: Callable[[str], int]
) -> tuple[str, int] | None:
    """A line of cells cut to its leading cells that fit in ``room`` tokens with a closing
    "…", and its tokens; None when it is no such line (a whole table passage is not cut) or
    when not even its label (``_label_cells``) and one cell more fit."""
    if "\n" in row or not is_cells_line(row):
        return None
    cells = row.split(CELL_GAP)
    mark = GAP.strip()
    least = _label_cells(cells) + 1
    for n in range(len(cells) - 1, least - 1, -1):
        kept = cells[:n]
        while kept and kept[-1] == mark:
            kept.pop()
        if len(kept) < least:
            return None
        text = CELL_GAP.join([*kept, mark])
        if (tokens := count_tokens(text)) <= room:
            return text, tokens
    return None


def _all_rows_named(passage: Passage, question: str) -> bool:
    """True for a table passage whose every row the question names by a value (a chunk of one
    row: "column 1: 2012/2013 - 5 | ..." for "period 5 of 2012/2013", held-out batch 9 dev
    h912, whose row lost to the first passage's period 3 and another's period 4)."""
    if not rows_carry_headers(passage):
        return False
    lines = passage.text.splitlines()
    rows = {k for k, ln in enumerate(lines) if is_row(ln)}
    return bool(rows) and value_named_rows(lines, question) >= rows


def _named_rows(pieces: list[_Piece]) -> list[_Piece]:
    """Of a table passage cut to the rows the question names (``focus_rows``), its rows: the
    piece it keeps, not its title line, however that scores (held-out dev h405: "Table 2-1.
    Simulated fuel savings ..." was kept and the "Cycle Name: 2012_2" row asked about was not);
    all ``pieces`` when none is a row."""
    rows = [x for x in pieces if is_row(x.text)]
    return rows or pieces


def _rows_and_prose(text: str) -> list[tuple[str, bool]]:
    """A passage's text as blocks, in order: each line of table cells (``is_cells_line``) on its
    own, flagged True, and the runs of other lines between them (flagged False), to be cut
    into sentences. A PDF page's table comes as such lines among prose, and sentence
    splitting cut "Clasificación: EXPORT. TOTALES | Mill., 2001: 26,610 | ..." after "EXPORT."
    (held-out dev h503)."""
    blocks: list[tuple[str, bool]] = []
    prose: list[str] = []
    for line in text.splitlines():
        if is_cells_line(line):
            if prose:
                blocks.append(("\n".join(prose), False))
                prose = []
            blocks.append((line, True))
        else:
            prose.append(line)
    if prose:
        blocks.append(("\n".join(prose), False))
    return blocks


def _is_heading(text: str, first: _Piece) -> bool:
    """A passage's first piece is its heading: a line of its own, short, ending no sentence."""
    line = text.lstrip().split("\n", 1)[0].strip()
    return (
        first.text == line and first.tokens <= HEADING_TOKENS and not line.endswith((".", "!", "?"))
    )


def fit_passages(
    question: str,
    passages: Sequence[Passage],
    embedder: Embedder,
    count_tokens: Callable[[str], int],
    budget: int,
    also: str = "",
) -> list[Passage]:
    """Passages (best first) cut to at most ``budget`` tokens of text in all.

    The first passage's best sentence is taken, then every other sentence by score, whatever its
    passage (taking each passage's best first spent the budget on weak passages: the answer
    stayed in 91% of fitted squad prompts at 160 tokens against 96%); a passage none of whose
    sentences is taken is left out. A sentence taken brings its passage's heading and its
    preceding neighbour (the one its pronouns usually point to) when they still fit. Passages
    under ``WHOLE_BELOW`` tokens and tables whose rows do not name their columns are whole or not
    at all; rows that do are pieces, like sentences, and so are the lines of cells a page's
    table leaves among prose (``_rows_and_prose``); a table's rows are first cut to those the
    question names by a value (``focus_rows``), and a row over ``WIDE_ROW_SHARE`` of the
    budget, or of ``MANY_CELLS`` cells or more, is narrowed to the cells the question names
    first (``narrow_row``). A sentence two overlapping chunks both hold is given once.
    The first passage, each document the question names (``Passage.named``: "the memo" lost
    its dated sentence to two long handbook passages; its best passage, not every one) and
    every table cut to the rows the question names by a value always keep at least their best
    sentence or row, and a named document's other sentences come before those of any other
    document ("Who signed the memo?" lost the memo's "Best Regards, Mallori" to the handbook's
    sentences on signing). A question naming a language as the part to read ("the German
    part") first narrows the passages to their sentences in it (``in_named_languages``).
    A table chunk's title line is its heading whatever its length (it comes with a row, never
    instead of one), and its column-names line is never given as a row's neighbour; a row too
    long for what is left is cut to the leading cells that fit when it scores at least
    ``CUT_ROW_SHARE`` of the best piece; a piece holding a value of the shape the question asks
    for (an e-mail address, a phone number: ``asked_shapes``) scores ``SHAPE_WEIGHT`` more.
    ``also``: the question translated into the passages' language (service/answering/
    orchestration/_crosslingual.py): each piece is scored by the better of the two, and a row is
    narrowed to the cells either names.
    ``budget <= 0``, or passages that fit as they are: otherwise unchanged.
    """
    passages = in_named_languages(question, passages)
    if budget <= 0 or not passages:
        return list(passages)
    focused = [focus_rows(p, question) for p in passages]
    pairs = zip(passages, focused, strict=True)
    how = [
        CUT_TO_ROWS if p is not f else ALL_ROWS if _all_rows_named(p, question) else NO_ROW
        for p, f in pairs
    ]
    passages, named_rows = _asked_dates_only(focused, how, question)
    # a table cut to the rows the question names by a value keeps its best one, like the first
    # passage ("What is Microsoft's ISIN?": the infobox's row lost to prose on Microsoft); one
    # whose every row it names offers its best row next, when it fits (held-out batch 9 dev
    # h912: the one-row chunk of "2012/2013 - 5" lost to periods 3 and 4; forcing those too
    # spent twice the budget on the procurement list's named rows, dev h706)
    row_named = {i for i, n in enumerate(named_rows) if n == CUT_TO_ROWS}
    all_named = {i for i, n in enumerate(named_rows) if n == ALL_ROWS}
    sizes = [count_tokens(p.text) for p in passages]
    if sum(sizes) <= budget:
        return list(passages)  # everything fits: nothing to score
    units: list[list[_Piece]] = []
    flat: list[_Piece] = []
    narrowed: set[int] = set()
    asked = f"{question}\n{also}" if also else question  # the words a row is narrowed by

    def wide(line: str) -> bool:  # a row narrowed to the cells the question names
        return count_tokens(line) > budget * WIDE_ROW_SHARE or (
            line.count(CELL_GAP) + 1 >= MANY_CELLS
        )

    for i, p in enumerate(passages):
        whole = sizes[i]
        if whole <= WHOLE_BELOW:
            parts = [p.text]
        elif is_tabular(p):  # rows that name their columns are chosen one by one
            rows = rows_carry_headers(p)
            parts = [ln for ln in p.text.splitlines() if ln.strip()] if rows else [p.text]
            if rows:  # a row wider than half the budget: its cells the question names
                cut = [": " in ln and wide(ln) for ln in parts]
                parts = [
                    narrow_row(ln, asked) if w else ln for ln, w in zip(parts, cut, strict=True)
                ]
                narrowed |= {i} if any(cut) else set()
        else:  # sentences, and the rows a page's table left among them, each a unit
            parts = []
            for block, cells_line in _rows_and_prose(p.text):
                if not cells_line:
                    parts.extend(split_sentences(block))
                elif wide(block):
                    parts.append(narrow_row(block, asked))
                    narrowed |= {i} if parts[-1] != block else set()
                else:
                    parts.append(block)
        pieces = [
            _Piece(i, j, s, whole if len(parts) == 1 and i not in narrowed else count_tokens(s), 0)
            for j, s in enumerate(parts)
        ]
        if len(pieces) > 1 and _is_heading(p.text, pieces[0]):
            pieces[0].heading = True
        if len(pieces) > 1 and is_tabular(p) and rows_carry_headers(p):
            # a table chunk opens with its title line ("Sheet1 (rows 608-610)", a sheet's
            # title row), however long: it comes with a row, never instead of one (four
            # 33-token titles of one sheet took the budget from their rows, dev h424)
            pieces[0].title = not is_row(pieces[0].text)
            pieces[0].heading |= pieces[0].title
            # the column names' line ("Code | Description | KYC Status") is no row: every row
            # names its columns, so it never is a passage's best piece (held-out batch 5 dev
            # h526 was given it instead of "Code: 98 | Description: VERIFIED BY CVLKRA")
            # (a table chunk opens with its title line, then that line: only there is it one);
            # the names read from the rows as written, before any was narrowed
            cells = [c for ln in p.text.splitlines() for c in ln.split(CELL_GAP)]
            named = {c.split(": ", 1)[0].strip() for c in cells if ": " in c}
            for piece in pieces[1:2]:
                line = [c.strip() for c in piece.text.split(CELL_GAP)]
                piece.heading |= sum(c in named for c in line) >= max(2, len(line) / 2)
        units.append(pieces)
        flat.extend(pieces)
    _score(embedder, question, units, flat, also)
    chosen: set[tuple[int, int]] = set()
    said: set[str] = set()  # the texts of the pieces taken, headings aside
    spent = 0
    best = max((x.score for x in flat if not x.heading), default=0.0)

    def take(piece: _Piece, force: bool = False) -> bool:
        nonlocal spent
        key = (piece.passage, piece.index)
        if key in chosen:
            return True
        # a sentence two overlapping chunks both hold is given once (a 10-K's cover lines
        # repeated in three chunks spent the budget the "State ... of incorporation: Nevada"
        # line needed, held-out dev h052)
        said_key = "" if piece.heading else same_text_key(piece.text)
        if said_key and said_key in said:
            return False
        if not force and spent + piece.tokens > budget:
            # a row too long for what is left gives its leading cells that fit, when it scores
            # near the best piece (the asked "2015 | May | NSA, All Visits: 3560" row of ten
            # cells, 0.90 of the best, was left out whole for lower pieces that fitted, dev
            # h600; a far weaker row of another table cut to fit gave the model its "New
            # Jersey" for a question on a recorded call, dev h300)
            if piece.score < CUT_ROW_SHARE * best:
                return False
            # room kept for its heading (taken after it) when a value still fits beside it
            head = units[piece.passage][0]
            room = budget - spent
            heading = head.tokens if head.heading and (piece.passage, 0) not in chosen else 0
            cut = _leading_cells(piece.text, room - heading, count_tokens) or _leading_cells(
                piece.text, room, count_tokens
            )
            if cut is None:
                return False
            piece.text, piece.tokens = cut
            narrowed.add(piece.passage)
        chosen.add(key)
        said.add(said_key)
        spent += piece.tokens
        return True

    candidates = [x for x in flat if not x.heading]
    # the first passage's best sentence is kept, and so are each named document's best (in
    # the passage holding it: forcing every passage's best gave a question about one named
    # paper five weak openings and no room for its answer, dev h129) and those of passages
    # kept for a side of a question or cut to the rows it names
    best_named: dict[str, tuple[float, int]] = {}
    # (of a named document with rows the question names, among the passages holding them)
    with_rows = {passages[i].path for i in row_named | all_named}
    for x in candidates:
        p = passages[x.passage]
        if p.path in with_rows and x.passage not in row_named | all_named:
            continue
        if p.named and x.score > best_named.get(p.path, (-np.inf, 0))[0]:
            best_named[p.path] = (x.score, x.passage)
    # the first passage too, unless it is a table's rows none of which the question names
    # while another passage's rows it names (its period 3 row before the "2012/2013 - 5" asked)
    unnamed_rows = (row_named or all_named) and 0 not in row_named | all_named
    first_kept = set() if unnamed_rows and rows_carry_headers(passages[0]) else {0}
    kept_first = (
        first_kept
        | {i for _, i in best_named.values()}
        | {i for i, p in enumerate(passages) if p.kept}
        | row_named
    )
    tops = [
        max(_named_rows(pieces) if i in row_named else pieces, key=lambda x: x.score)
        for i in sorted(kept_first)
        if (pieces := [x for x in candidates if x.passage == i])
    ]
    offered = sorted(
        (
            max(pieces, key=lambda x: x.score)
            for i in sorted(all_named - kept_first)
            if (pieces := [x for x in candidates if x.passage == i])
        ),
        key=lambda x: -x.score,
    )
    first = [*tops, *offered]
    rest = sorted((x for x in candidates if all(x is not t for t in first)), key=lambda x: -x.score)
    # then the named documents' other sentences, before any other document's (sorted is stable)
    rest.sort(key=lambda x: not passages[x.passage].named)
    order = [*first, *rest]
    for n, piece in enumerate(order):
        if not take(piece, force=n < len(tops)):
            continue
        head = units[piece.passage][0]
        if head.heading:
            take(head)
        # its neighbour before it, unless a heading: a table's column names' line repeats
        # what every row it names says (48 tokens of it left a row 9, dev h705)
        if piece.index > 0 and not (before := units[piece.passage][piece.index - 1]).heading:
            take(before)
    fitted: list[Passage] = []
    for i, p in enumerate(passages):
        kept = [x for x in units[i] if (i, x.index) in chosen]
        if not kept:
            continue
        tabular = is_tabular(p)
        text = ""
        for k, x in enumerate(kept):
            if k:  # rows stay on their lines, sentences run on
                row = tabular or is_cells_line(x.text) or is_cells_line(kept[k - 1].text)
                text += "\n" if row else " "
                if x.index != kept[k - 1].index + 1:
                    text += GAP.strip() + ("\n" if row else " ")
            text += x.text
        if len(kept) == len(units[i]) and i not in narrowed:
            text = p.text
        if kept[0].index > 0:
            text = GAP.lstrip() + text
        if kept[-1].index < len(units[i]) - 1:
            text = text + GAP.rstrip()
        uncut = p.whole or (p.text if text != p.text else "")
        fitted.append(replace(p, number=len(fitted) + 1, text=text, whole=uncut))
    return fitted
