"""Token-aware chunking with overlap; every chunk keeps its section's provenance."""

from __future__ import annotations

import re
from collections.abc import Callable

from core.types import ChunkDraft, Section
from ingest.loaders.tables import CELL_SEPARATOR
from ingest.loaders.text import split_paragraphs

_SENTENCE = re.compile(r"(?<=[.!?;:])\s+(?=\S)")


def _cells_or_sentences(line: str) -> list[str]:
    """A table row (``Header: value | Header: value``) splits between cells, so no value is
    parted from its header; any other line between sentences."""
    if CELL_SEPARATOR in line:
        return line.split(CELL_SEPARATOR)
    return _SENTENCE.split(line)


_SPLITS: tuple[Callable[[str], list[str]], ...] = (str.splitlines, _cells_or_sentences)

CountTokens = Callable[[list[str]], list[int]]
TokenOffsets = Callable[[str], list[tuple[int, int]]]


class Chunker:
    """Packs paragraphs (or their lines, a row's cells, sentences, or token windows of an
    over-long sentence) into chunks of at most ``chunk_tokens`` tokens; consecutive chunks of a
    section share about ``overlap_tokens`` tokens of whole units."""

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

    def _units(self, text: str) -> list[tuple[str, int]]:
        """Paragraphs; one that does not fit is split into its lines (a table's rows, a list's
        items stay whole), a line into a table row's cells or else sentences, and a piece that
        still does not fit into token windows."""
        return self._fit(split_paragraphs(text), 0)

    def _fit(self, pieces: list[str], level: int) -> list[tuple[str, int]]:
        units: list[tuple[str, int]] = []
        for piece, n in zip(pieces, self.count_tokens(pieces), strict=True):
            if n <= self.chunk_tokens:
                units.append((piece, n))
            elif level < len(_SPLITS):
                parts = [p for p in _SPLITS[level](piece) if p.strip()]
                units.extend(self._fit(parts if len(parts) > 1 else [piece], level + 1))
            else:
                units.extend(self._windows(piece))
        return units

    def _windows(self, text: str) -> list[tuple[str, int]]:
        offsets = self.token_offsets(text)
        size = self.chunk_tokens
        step = size - self.overlap_tokens
        out = []
        for start in range(0, len(offsets), step):
            window = offsets[start : start + size]
            out.append((text[window[0][0] : window[-1][1]], len(window)))
            if start + size >= len(offsets):
                break
        return out

    def chunk_section(self, section: Section) -> list[tuple[str, dict[str, object]]]:
        """Chunks of one section, as (text, provenance)."""
        chunks: list[tuple[str, dict[str, object]]] = []
        current: list[tuple[str, int]] = []
        size = 0
        for unit in self._units(section.text):
            if current and size + unit[1] > self.chunk_tokens:
                chunks.append(("\n".join(u for u, _ in current), dict(section.provenance)))
                keep: list[tuple[str, int]] = []
                kept = 0
                for prev in reversed(current):
                    if (
                        kept + prev[1] > self.overlap_tokens
                        or kept + prev[1] + unit[1] > self.chunk_tokens
                    ):
                        break
                    keep.insert(0, prev)
                    kept += prev[1]
                current, size = keep, kept
            current.append(unit)
            size += unit[1]
        if current:
            chunks.append(("\n".join(u for u, _ in current), dict(section.provenance)))
        return chunks

    def chunk(self, sections: list[Section]) -> list[ChunkDraft]:
        """Every chunk of a document, numbered in order, with exact token counts."""
        pairs = [pair for section in sections for pair in self.chunk_section(section)]
        counts = self.count_tokens([text for text, _ in pairs])
        return [
            ChunkDraft(ordinal=i, text=text, token_count=n, provenance=prov)
            for i, ((text, prov), n) in enumerate(zip(pairs, counts, strict=True))
        ]
