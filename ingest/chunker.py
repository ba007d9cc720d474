"""Token-aware chunking with overlap; every chunk keeps its section's provenance."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from core.text import CHUNK_SENTENCE_GAP, repair
from core.types import ChunkDraft, Section
from ingest.checkboxes import mark_checked
from ingest.loaders.tables import CELL_SEPARATOR, TABLE_CAPTION, row_label
from ingest.loaders.text import split_paragraphs


def _sentences(line: str) -> list[str]:
    return CHUNK_SENTENCE_GAP.split(line)


@dataclass(frozen=True, slots=True)
class _Label:
    """The cells naming a long row (``row_label``) and their tokens with a separator."""

    text: str
    tokens: int


@dataclass(frozen=True, slots=True)
class _Unit:
    """A piece packed whole into a chunk: a paragraph, a line, a sentence, or a cell of a row
    too long for one chunk (``row`` numbers that row; ``label`` names it on the cells after
    its label cells, so a chunk starting there opens with it)."""

    text: str
    tokens: int
    row: int = -1
    label: _Label | None = None


#: A caption put before a chunk has at most this many characters.
MAX_CAPTION_CHARS = 160
#: Lines between a caption and its table's first row (a headnote, header lines) at most.
MAX_NOTE_LINES = 6


def with_captions(texts: list[str], section: str) -> list[str]:
    """The chunks of ``section`` in order, each opening with a table's row ("Offense charged:
    Robbery | Total: 102.1 | ...") preceded by the caption line of the table it lies in
    ("Table 324. Arrests by Sex and Age: 2009", the last caption line before it in the section,
    with no blank line between) when the chunk lacks it: a row cut from its caption loses the
    table's subject and year, which retrieval and the checks look for."""
    out: list[str] = []
    cursor = 0
    for text in texts:
        first = text.split("\n", 1)[0]
        at = section.find(first, cursor)
        if at < 0:
            at = cursor
        else:
            cursor = at
        caption = _caption_before(section, at) if CELL_SEPARATOR in first else None
        out.append(f"{caption}\n{text}" if caption and caption not in text else text)
    return out


def _caption_before(section: str, at: int) -> str | None:
    """The caption line of the table running to position ``at``: going up from it, the
    table's rows, then at most ``MAX_NOTE_LINES`` other lines (its headnote, its header), then
    the caption; None at a blank line, at the rows of another table, or past those lines."""
    notes = 0
    end = section.rfind("\n", 0, at)  # the lines above, read upward one at a time (a long
    while end >= 0:  # section is not split whole for each chunk)
        start = section.rfind("\n", 0, end) + 1
        line, end = section[start:end], start - 1
        if not line.strip():
            return None
        if TABLE_CAPTION.match(line):
            return line.strip() if len(line) <= MAX_CAPTION_CHARS else None
        if CELL_SEPARATOR in line and ": " in line and notes == 0:
            continue  # a row of the table
        notes += 1
        if notes > MAX_NOTE_LINES:
            return None
    return None


_SPLITS: tuple[Callable[[str], list[str]], ...] = (str.splitlines, _sentences)

CountTokens = Callable[[list[str]], list[int]]
TokenOffsets = Callable[[str], list[tuple[int, int]]]
#: A chunk holds at most this many characters per token of ``chunk_tokens``: a run of letters
#: with no space or punctuation longer than the tokenizer's word limit (100 characters for
#: MiniLM's WordPiece) is one unknown token however long it is, so only characters bound it.
MAX_CHARS_PER_TOKEN = 12
#: A row's label (``row_label``) opens the chunks starting among its cells when it takes at most
#: this share of a chunk.
MAX_LABEL_SHARE = 0.25
#: Chunks whose exact token counts :meth:`Chunker.stream` asks for in one call.
STREAM_BATCH = 256


_NO_LABEL = _Label("", 0)


def _lead(first: _Unit) -> _Label:
    """What a chunk opening with ``first`` starts with before it: its row's label, if any."""
    return first.label or _NO_LABEL


def _joined(units: list[_Unit]) -> str:
    """A chunk's text: its units one a line, the cells of one row joined as a row, opened by
    the label of the row its first unit lies inside (``_Unit.label``)."""
    lines: list[str] = [units[0].label.text] if units[0].label else []
    row = -2 if units[0].label is None else units[0].row
    for unit in units:
        if unit.row >= 0 and unit.row == row and lines:
            lines[-1] += CELL_SEPARATOR + unit.text
        else:
            lines.append(unit.text)
        row = unit.row
    return "\n".join(lines)


class Chunker:
    """Packs paragraphs (or their lines, a row's cells, sentences, or token windows of an
    over-long sentence) into chunks of at most ``chunk_tokens`` tokens and
    ``chunk_tokens * MAX_CHARS_PER_TOKEN`` characters; consecutive chunks of a section share
    about ``overlap_tokens`` tokens of whole units."""

    #: Bumped by a change to how text is cut into chunks: every document is then read again
    #: at its next ingest or sync (:attr:`reading`, ingest/reading.py).
    VERSION = 1

    def __init__(
        self,
        count_tokens: CountTokens,
        token_offsets: TokenOffsets,
        chunk_tokens: int = 200,
        overlap_tokens: int = 40,
    ) -> None:
        if overlap_tokens >= chunk_tokens:
            raise ValueError("overlap_tokens must be smaller than chunk_tokens")
        self.count_tokens = count_tokens
        self.token_offsets = token_offsets
        self.chunk_tokens = chunk_tokens
        self.overlap_tokens = overlap_tokens
        self.max_chars = chunk_tokens * MAX_CHARS_PER_TOKEN
        self._rows = 0  # long rows split into cells so far (numbers them)

    @property
    def reading(self) -> str:
        """``"chunks/1 200/40"``: this chunker's version, chunk and overlap sizes in tokens."""
        return f"chunks/{self.VERSION} {self.chunk_tokens}/{self.overlap_tokens}"

    def _units(self, text: str) -> list[_Unit]:
        """Paragraphs (of ``text`` with its mojibake repaired, ``repair``, and its checked boxes
        said in words, ``mark_checked``); one that does not fit is split into its lines (a
        table's rows, a list's items stay whole), a line into a table row's cells (``_cells``)
        or else sentences, and a piece that still does not fit into token windows."""
        return self._fit(split_paragraphs(mark_checked(repair(text))), 0)

    def _fit(self, pieces: list[str], level: int) -> list[_Unit]:
        units: list[_Unit] = []
        # A piece over the character cap does not fit whatever its token count: it is not
        # tokenized whole (a block of a streamed file is 256 Ki characters).
        short = [p for p in pieces if len(p) <= self.max_chars]
        counts = dict(zip(short, self.count_tokens(short), strict=True))
        for piece in pieces:
            n = counts.get(piece, self.chunk_tokens + 1)
            if n <= self.chunk_tokens and len(piece) <= self.max_chars:
                units.append(_Unit(piece, n))
            elif level == 1 and CELL_SEPARATOR in piece:
                units.extend(self._cells(piece))
            elif level < len(_SPLITS):
                parts = [p for p in _SPLITS[level](piece) if p.strip()]
                units.extend(self._fit(parts if len(parts) > 1 else [piece], level + 1))
            else:
                units.extend(_Unit(t, k) for t, k in self._windows(piece))
        return units

    def _cells(self, line: str) -> list[_Unit]:
        """A table row (``Header: value | Header: value``) too long for a chunk, split between
        its cells, so no value is parted from its header; the cells after its label cells
        (``row_label``) carry the label, which opens any chunk starting among them (the GDP
        sheet's 2009 quarters had come without "AGRICULTURA"; a bond-yield CSV's countries
        without the month they are for). Each cell's tokens count its separator."""
        self._rows += 1
        cells = [c for c in line.split(CELL_SEPARATOR) if c.strip()]
        label_text = row_label(CELL_SEPARATOR.join(cells))
        label = _Label(label_text, self.count_tokens([label_text])[0] + 1) if label_text else None
        if label is not None and label.tokens > self.chunk_tokens * MAX_LABEL_SHARE:
            label = None
        labelled = label_text.count(CELL_SEPARATOR) + 1 if label else 0
        units: list[_Unit] = []
        for i, cell in enumerate(cells):
            for unit in self._fit([cell], 2):
                units.append(
                    _Unit(unit.text, unit.tokens + 1, self._rows, label if i >= labelled else None)
                )
        return units

    def _windows(self, text: str) -> list[tuple[str, int]]:
        offsets = self.token_offsets(text)
        size = self.chunk_tokens
        step = size - self.overlap_tokens
        out = []
        for start in range(0, len(offsets), step):
            window = offsets[start : start + size]
            piece = text[window[0][0] : window[-1][1]]
            if len(piece) <= self.max_chars:
                out.append((piece, len(window)))
            else:  # a few tokens spanning many characters (unknown words)
                out.extend(self._slices(piece))
            if start + size >= len(offsets):
                break
        return out

    def _slices(self, text: str) -> list[tuple[str, int]]:
        """``text`` cut every ``max_chars`` characters, with token counts."""
        pieces = [text[i : i + self.max_chars] for i in range(0, len(text), self.max_chars)]
        return list(zip(pieces, self.count_tokens(pieces), strict=True))

    def _pack(self, units: Iterable[_Unit]) -> Iterator[str]:
        """Chunk texts of a run of units, neighbours sharing whole units of overlap; cells of
        one row joined as a row, and a chunk starting among a long row's cells opened by its
        label (``_Unit.label``)."""
        current: list[_Unit] = []
        size = chars = 0
        for unit in units:
            over = size + unit.tokens > self.chunk_tokens or chars + len(unit.text) > self.max_chars
            if current and over:
                yield _joined(current)
                keep: list[_Unit] = []
                kept = kept_chars = 0
                for prev in reversed(current):
                    lead = _lead(prev)
                    if (
                        kept + prev.tokens + lead.tokens > self.overlap_tokens
                        or kept + prev.tokens + unit.tokens + lead.tokens > self.chunk_tokens
                        or kept_chars + len(prev.text) + len(unit.text) + len(lead.text)
                        > self.max_chars
                    ):
                        break
                    keep.insert(0, prev)
                    kept += prev.tokens
                    kept_chars += len(prev.text) + len(CELL_SEPARATOR)
                lead = _lead(keep[0] if keep else unit)
                current, size, chars = keep, kept + lead.tokens, kept_chars + len(lead.text)
            current.append(unit)
            size += unit.tokens
            chars += len(unit.text) + len(CELL_SEPARATOR)
        if current:
            yield _joined(current)

    def chunk_section(self, section: Section) -> list[tuple[str, dict[str, object]]]:
        """Chunks of one section, as (text, provenance); a chunk opening inside a table with a
        caption starts with the caption's line (``with_captions``)."""
        texts = with_captions(list(self._pack(self._units(section.text))), section.text)
        return [(text, dict(section.provenance)) for text in texts]

    def chunk(self, sections: list[Section]) -> list[ChunkDraft]:
        """Every chunk of a document, numbered in order, with exact token counts."""
        pairs = [pair for section in sections for pair in self.chunk_section(section)]
        counts = self.count_tokens([text for text, _ in pairs])
        return [
            ChunkDraft(ordinal=i, text=text, token_count=n, provenance=prov)
            for i, ((text, prov), n) in enumerate(zip(pairs, counts, strict=True))
        ]

    def stream(
        self, sections: Iterable[Section], continued: bool = False
    ) -> Iterator[list[ChunkDraft]]:
        """The chunks of sections read one at a time, in lists of at most ``STREAM_BATCH``,
        numbered in order, with exact token counts (those of :meth:`chunk`); only the section
        being read and one list are held. ``continued``: consecutive sections with equal
        provenance are one section cut into blocks (``TextLoader.stream``), packed as one so
        that chunks run across the blocks' boundaries."""
        runs: Iterable[tuple[dict[str, object], Iterable[Section]]] = (
            itertools.groupby(sections, key=lambda s: s.provenance)
            if continued
            else ((s.provenance, (s,)) for s in sections)
        )
        ordinal = 0
        for provenance, run in runs:
            units = (unit for section in run for unit in self._units(section.text))
            texts_of = self._pack(units)
            if not continued:  # one section (a run of blocks of one text has no tables)
                (section,) = run
                texts_of = iter(with_captions(list(texts_of), section.text))
            while texts := list(itertools.islice(texts_of, STREAM_BATCH)):
                counts = self.count_tokens(texts)
                yield [
                    ChunkDraft(ordinal + i, text, n, dict(provenance))
                    for i, (text, n) in enumerate(zip(texts, counts, strict=True))
                ]
                ordinal += len(texts)
