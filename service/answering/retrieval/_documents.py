"""Documents a question names (issue 35, item 3): by kind ("the spreadsheet", "the Word
document", "the recording", "the photo", "the e-mail") and by its file's name or title words
("the Stanley Cups spreadsheet" for stanley-cups.xlsx, "the segment spreadsheet" for
2023-half-year-analyses-by-segment.xlsx). Retrieval searches those documents once more and
fuses that ranking in, so their chunks rise (a boost, not a filter: a wrong guess costs a
place, not the answer); a document named by its name is kept past ``min_score`` and the
margin ("Who signed the memo?" scores the memo's chunk far below an e-book's "signed"), one
named by its kind alone past ``min_score`` only."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from core import catalogue
from core.db.session import Database
from core.filters import Filters
from core.text import STOP_WORDS, fold

#: Words naming a kind of document, and the file extensions of that kind.
KINDS: dict[str, frozenset[str]] = {
    word: frozenset(exts.split())
    for words, exts in (
        ("spreadsheet spreadsheets workbook excel sheet", "xlsx xls xlsm ods csv tsv"),
        ("csv", "csv tsv"),
        ("docx", "docx doc odt rtf"),
        ("pdf paper redpaper redbook", "pdf"),
        ("slide slides presentation deck powerpoint pptx", "pptx ppt odp"),
        ("recording recordings audio podcast", "wav flac mp3 m4a ogg opus webm"),
        ("photo photos picture image scan scanned receipt", "png jpg jpeg tiff tif webp bmp"),
        ("e-mail email mail message", "eml mbox"),
        ("e-book ebook epub book", "epub"),
        ("odt opendocument", "odt"),
        ("html webpage web", "html htm"),
    )
    for word in words.split()
}  # fmt: skip
#: File-name pieces too common to name a document by.
_GENERIC = STOP_WORDS | {
    "file", "files", "document", "documents", "example", "sample", "test", "fake", "data",
    "page", "new", "final", "copy", "draft", "version", "half", "year", "p1", "pg", "text",
}  # fmt: skip
_PIECE = re.compile(r"[^\W_]+")
#: "the Word document", "the Word file": Word the program, not a word of the text.
_WORD_FILE = re.compile(r"\bword(?:'s)?\s+(?:document|file|doc|table)", re.IGNORECASE)
#: A kind shared by more documents than this is no guide to the one meant.
MAX_KIND = 200
#: A piece of a file name shared by more documents than this names none of them.
MAX_SHARING = 3
#: Share of a file name's pieces a question must hold to name it ("the Stanley Cups", "the
#: segment spreadsheet" for analyses-by-segment; not "table" for table-multi-row-column-cells).
MIN_SHARE = 0.5


@dataclass(frozen=True)
class Named:
    """What a question names: documents by name (ids), and kinds (file extensions)."""

    document_ids: tuple[int, ...] = ()
    extensions: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.document_ids or self.extensions)

    def filters(self, base: Filters, by_type: dict[int, str]) -> Filters | None:
        """The filter searching the named documents inside ``base`` (``by_type``: document id
        -> extension); None when nothing is named. Names of the named kind win over the kind
        alone ("the Stanley Cups spreadsheet"); a kind alone gives its documents."""
        ids = self.document_ids
        if ids and self.extensions:
            ids = tuple(i for i in ids if by_type.get(i) in self.extensions) or ids
        if not ids and self.extensions:
            kinds = tuple(i for i, ext in by_type.items() if ext in self.extensions)
            ids = kinds if len(kinds) <= MAX_KIND else ()
        if base.document_ids:  # the caller's own choice of documents still holds
            ids = tuple(i for i in ids if i in base.document_ids)
        return replace(base, document_ids=ids) if ids else None


def _extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return PurePosixPath(name).suffix.lower().lstrip(".")


def _pieces(path: str) -> set[str]:
    """The words of a document's file name (its last path part, extension out), folded."""
    stem = PurePosixPath(path.rsplit("/", 1)[-1]).stem
    return {p for p in _PIECE.findall(fold(stem)) if len(p) >= 3 and not p.isdigit()} - _GENERIC


def _words(question: str) -> set[str]:
    words = set(_PIECE.findall(fold(question)))
    return words | {w[:-1] for w in words if w.endswith("s") and len(w) > 3}


class DocumentNames:
    """The library's document names, read again when the catalogue changes (its chunk count
    and highest chunk id), and the documents a question names."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._signature: tuple[int, int] | None = None
        self._pieces: dict[int, set[str]] = {}
        self._types: dict[int, str] = {}

    def _load(self) -> None:
        with self.db.session() as s:
            signature = catalogue.chunk_signature(s)
            if signature == self._signature:
                return
            paths = catalogue.document_paths(s)
        self._pieces = {i: _pieces(p) for i, p in paths}
        self._types = {i: _extension(p) for i, p in paths}
        self._signature = signature

    def types(self) -> dict[int, str]:
        """Document id -> file extension ("xlsx")."""
        with self._lock:
            self._load()
            return dict(self._types)

    def named(self, question: str) -> Named:
        """The documents ``question`` names by the words of their file name (at least
        ``MIN_SHARE`` of them, each shared by at most ``MAX_SHARING`` documents; the largest
        share wins; among the documents of the kind it names, if any), and the kinds it names."""
        words = _words(question)
        kinds = {e for w in words if w in KINDS for e in KINDS[w]}
        if _WORD_FILE.search(question):
            kinds |= KINDS["docx"]
        extensions = tuple(sorted(kinds))
        with self._lock:
            self._load()
            pieces = self._pieces
        if extensions:  # "the sample presentation": among the presentations first
            of_kind = {i: own for i, own in pieces.items() if self._types.get(i) in extensions}
            pieces = of_kind or pieces
        sharing: dict[str, int] = {}
        for own in pieces.values():
            for p in own:
                sharing[p] = sharing.get(p, 0) + 1
        score = {
            i: len({p for p in own & words if sharing[p] <= MAX_SHARING}) / len(own)
            for i, own in pieces.items()
            if own
        }
        best = max(score.values(), default=0.0)
        ids = tuple(sorted(i for i, n in score.items() if n >= MIN_SHARE and n == best))
        return Named(ids, extensions)
