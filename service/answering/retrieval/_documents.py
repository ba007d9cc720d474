"""Documents a question names (issue 35, item 3): by kind ("the spreadsheet", "the Word
document", "the recording", "the photo", "the e-mail") and by its file's name or title words
("the Stanley Cups spreadsheet" for stanley-cups.xlsx, "the segment spreadsheet" for
2023-half-year-analyses-by-segment.xlsx). Retrieval searches those documents once more and
fuses that ranking in, so their chunks rise (a boost, not a filter: a wrong guess costs a
place, not the answer); a document named by its name is kept past ``min_score`` and the
margin ("Who signed the memo?" scores the memo's chunk far below an e-book's "signed"), one
named by its kind alone past ``min_score`` only.

By its author or sender, its quoted subject or title, and its date too: "the e-mail from
Mallori", "Alice's e-mail to Bob", "the paper by Backus", "the memo of May 5, 2023", "the e-mail
dated 21 December 2022", "the e-mail 'Email with Attachment'" (its Subject).
A person is matched to what a document's head says of it (an e-mail's From, a memo's "FROM:"
line, an "Author:" or "By ..." line) and to its file name's words ("a1977-backus-p21.pdf"); a
date to an e-mail's Date, a "Date:" line or a date standing alone on one of the head's first
lines (a memo's or letter's date). The documents an e-mail carries (its attachments) go with
it. Like a file name, such a reference says which document to read, never a fact a passage
must hold: grounding leaves words of the passages' labels and of their text alone anyway, and
the match is only made against the documents' heads."""

from __future__ import annotations

import datetime as dt
import re
import threading
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any

from core import catalogue
from core.db.session import Database
from core.filters import Filters
from core.text import (
    CALENDAR_WORDS,
    COUNT_WORDS,
    DAY_OF_MONTH,
    STOP_WORDS,
    dates,
    fold,
    month_number,
    names_in,
)

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
#: Words naming what a document is whatever its file type ("the invoice", "the memo"). One
#: names a file whose name holds more words in part only when the question names nothing the
#: name lacks: "the bill" names qr_bill_example.jpg, "the Turnpike invoice" and "the invoice"
#: name invoice-turnpike.jpg, "the EDF electricity invoice" does not (held-out batch 11 dev
#: h1120: the EDF bill, named "energy_bill_fra.pdf", was then never searched).
GENRES = frozenset(
    {
        "invoice", "invoices", "bill", "bills", "memo", "memos", "letter", "letters", "report",
        "reports", "contract", "contracts", "agreement", "agreements", "statement",
        "statements", "minutes", "newsletter", "article", "articles", "form", "forms",
        "brochure", "leaflet", "flyer", "policy", "notice", "certificate", "transcript",
        "resume", "cv", "thesis", "essay", "schedule", "calendar", "timetable", "menu",
        "ticket", "tickets", "quote", "quotation", "order",
    }
)  # fmt: skip
#: File-name pieces too common to name a document by.
_GENERIC = STOP_WORDS | {
    "file", "files", "document", "documents", "example", "sample", "test", "fake", "data",
    "page", "new", "final", "copy", "draft", "version", "half", "year", "p1", "pg", "text",
}  # fmt: skip
#: Counts: a question's "the two Belkin products" names no two_column.pdf (held-out dev h746).
_COUNTS = frozenset(COUNT_WORDS)
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


#: Words for a document someone wrote, sent or signed ("Mallori's e-mail", "the memo from",
#: "Rob Hartill's forward": held-out batch 5 dev h539).
_WRITTEN = (
    r"(?:e-?mails?|messages?|memos?|memorandum|letters?|notes?|papers?|reports?|articles?|"
    r"documents?|books?|slides|presentations?|decks?|spreadsheets?|recordings?|files?|theses|"
    r"thesis|minutes|invoices?|bills?|chats?|forwards?|repl(?:y|ies)|posts?|postings?|"
    r"announcements?|newsletters?|transcripts?|proposals?|speech(?:es)?|talks?|lectures?)"
)
#: A person as a question writes one: up to three capitalised words ("Mallori", "Alice
#: Smith", "J. Backus").
_PERSON = r"(?P<person>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2})"
#: "the e-mail from Mallori", "the paper by Backus", "a memo written by Ann", "sent by Bob".
_BY = re.compile(
    rf"\b(?:{_WRITTEN}|written|sent|signed|authored|composed|prepared)\s+(?:\w+\s+)?"
    rf"(?:by|from)\s+{_PERSON}"
)
#: "Mallori's e-mail", "Alice's e-mail to Bob", "Backus's 1977 paper".
_POSSESSIVE = re.compile(rf"{_PERSON}['’]s?\s+(?:[\w-]+\s+){{0,2}}?{_WRITTEN}\b")
#: A document's head line naming who wrote or sent it ("FROM: Mallori Harrell", "Author:
#: J. Backus", "By Ann Lee").
_AUTHOR_LINE = re.compile(
    r"^\s*(?:(?:from|authors?|sender|written\s+by|prepared\s+by|signed)\s*:|by\s)\s*(.+)$",
    re.IGNORECASE,
)
_DATE_LINE = re.compile(r"^\s*(?:date|sent|dated)\s*:\s*(.+)$", re.IGNORECASE)
_TITLE_LINE = re.compile(r"^\s*(?:subject|title|re)\s*:\s*(.+)$", re.IGNORECASE)
#: A title quoted in a question: "the e-mail 'Email with Attachment'" (not a possessive's
#: apostrophe: the quote opens after a blank and closes before one or a stop).
_QUOTED = re.compile(
    r"(?:(?<=\s)|^)['\"“‘](?P<title>[^'\"“”‘’]{3,120}?)['\"”’]"
    r"(?=\s|[,:;)]|\?|\.|!|$)"
)
#: Before a date that dates a document ("the memo of", "the e-mail sent on", "dated").
_DATED_BY = re.compile(
    rf"\b(?:{_WRITTEN}\s+(?:\w+\s+)?(?:of|from|on|dated)|dated|sent\s+on|written\s+on)\s+"
    r"(?:the\s+)?$",
    re.IGNORECASE,
)
#: After a date that dates a document ("the March 3 memo").
_DATES_A = re.compile(rf"^,?\s+{_WRITTEN}\b", re.IGNORECASE)
#: Head lines read for a document's author and date.
HEAD_LINES = 12
#: A person's or date's documents at most for them to be named (more: no guide to the one).
MAX_PERSON = 3


@dataclass(frozen=True)
class Head:
    """What a document's head says of it: the folded words of its authors or senders, and its
    dates (as (month, day, year))."""

    people: frozenset[str] = frozenset()
    dates: frozenset[tuple[int, int, int]] = frozenset()
    titles: frozenset[str] = frozenset()  # its subject or title, folded, spaces collapsed


@dataclass(frozen=True)
class Named:
    """What a question names: documents by name, author or date (ids), and kinds (file
    extensions)."""

    document_ids: tuple[int, ...] = ()
    extensions: tuple[str, ...] = ()
    #: How each document was named ("file name", "author", "date", ``TOPIC``), for the log,
    #: tests and ``by_reference``.
    by: dict[int, str] = field(default_factory=dict, compare=False)
    #: Every document's authors as read with it (``DocumentNames.owners``): the passages'
    #: ``owners`` without reading the catalogue's signature again.
    owners: dict[int, str] = field(default_factory=dict, compare=False)

    def __bool__(self) -> bool:
        return bool(self.document_ids or self.extensions)

    def by_reference(self) -> set[int]:
        """The documents named as a reference (all but those named by a topic word,
        ``TOPIC``): their passages are kept past the margin, come first, and fitting gives
        them room first."""
        return {i for i in self.document_ids if self.by.get(i) != TOPIC}

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


def _pieces(path: str, generic: bool = False) -> set[str]:
    """The words of a document's file name (its last path part, extension out), folded; the
    ``_GENERIC`` ones too when ``generic``."""
    stem = PurePosixPath(path.rsplit("/", 1)[-1]).stem
    found = {p for p in _PIECE.findall(fold(stem)) if len(p) >= 3 and not p.isdigit()}
    return found if generic else found - _GENERIC


#: Where a camel-cased or numbered name joins its words ("CantinaBand3": Cantina|Band|3).
_JOINS = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")


def joined_words(path: str) -> dict[str, frozenset[str]]:
    """The file-name pieces (folded) that join several words, and those words (folded, no
    figures): "CantinaBand3.wav" -> {"cantinaband3": {"cantina", "band"}}; a question holding
    every one of them names the piece ("the Cantina band recording")."""
    stem = PurePosixPath(path.rsplit("/", 1)[-1]).stem
    out: dict[str, frozenset[str]] = {}
    for raw in _PIECE.findall(stem):
        words = frozenset(
            fold(w) for w in _JOINS.split(raw) if w and not w.isdigit() and len(w) >= 3
        )
        if len(words) >= 2:
            out[fold(raw)] = words
    return out


def _folded_words(text: str) -> set[str]:
    return {w for w in _PIECE.findall(fold(text)) if len(w) >= 2 and not w.isdigit()}


def _person_words(text: str) -> set[str]:
    """A person's name words, folded: an address's local part split too ("mallori.harrell@x"
    -> mallori, harrell); stop and calendar words out."""
    words: set[str] = set()
    for part in re.split(r"[<>\s,;\"()]+", text):
        if "@" in part:
            part = part.split("@", 1)[0]
        words |= _folded_words(part)
    return words - STOP_WORDS - CALENDAR_WORDS - {"mr", "mrs", "ms", "dr", "prof"}


def _title(text: str) -> str:
    return " ".join(_PIECE.findall(fold(text)))


def _day(value: dt.date) -> tuple[int, int, int]:
    return (value.month, value.day, value.year)


#: A byline's name: two to four words each opening on a capital ("Yusuke Shinyama", "R. Dean
#: Malmgren", "Luı´s A. Nunes Amaral"), footnote marks and affiliation numbers stripped.
_NAME = re.compile(r"[A-ZÀ-ÖØ-Þ][^\s,&]*(?:\s+[A-ZÀ-ÖØ-Þ][^\s,&]*){1,3}")
#: Where a paper's byline ends: its abstract.
_ABSTRACT = re.compile(r"^\s*(?:abstract|résumé|zusammenfassung|resumen|summary)\b", re.I)
#: Words of an affiliation line, not of a name ("New York University").
_AFFILIATION_WORDS = (
    "university université universität universidad università institute institut college "
    "school department laboratory laboratoire inc ltd corporation"
)
_AFFILIATION = frozenset(fold(w) for w in _AFFILIATION_WORDS.split())


def byline_people(lines: list[str]) -> set[str]:
    """The folded name words of a paper's byline: lines under its title (the first line) and
    above its abstract that are names only, separated by commas, "&" or "and" ("Yusuke
    Shinyama Satoshi Sekine", "Julien Aligon∗, Patrick Marcel∗, Elsa Negre∗")."""
    people: set[str] = set()
    for line in lines[1:HEAD_LINES]:
        if _ABSTRACT.match(line):
            break
        plain = re.sub(r"[\d∗*†‡§¶]+", " ", line)
        parts = [s.strip() for s in re.split(r",|&|\band\b", plain) if s.strip()]
        if parts and all(_NAME.fullmatch(s) for s in parts):
            words = _person_words(" ".join(parts))
            if not words & _AFFILIATION:
                people |= words
    return people


def head_of(text: str, provenance: dict[str, Any]) -> Head:
    """What a document's first chunk (``text`` and ``provenance``) says of its authors or
    senders and its dates: an e-mail's ``from`` and ``date``, "From:"/"Author:"/"By" and
    "Date:" lines among the first ``HEAD_LINES``, a paper's byline (``byline_people``), a date
    standing alone on one of them."""
    people = _person_words(str(provenance.get("from") or provenance.get("author") or ""))
    days = {_day(d) for _, d, _ in dates(str(provenance.get("date") or ""))}
    titles = {_title(str(provenance.get(k) or "")) for k in ("message", "title", "subject")}
    lines = text.splitlines()
    people |= byline_people(lines)
    for line in lines[:HEAD_LINES]:
        if m := _AUTHOR_LINE.match(line):
            people |= _person_words(m.group(1))
        if m := _TITLE_LINE.match(line):
            titles.add(_title(m.group(1)))
        in_line = dates(line)
        if _DATE_LINE.match(line) or (in_line and len(line.split()) <= 4):
            days |= {_day(d) for _, d, _ in in_line}
    return Head(frozenset(people), frozenset(days), frozenset(titles - {""}))


def people_named(question: str) -> list[set[str]]:
    """The people a question names as a document's author or sender, each as its folded
    words ("the e-mail from Mallori Harrell" -> [{"mallori", "harrell"}])."""
    found = [m.group("person") for m in _BY.finditer(question)]
    found += [m.group("person") for m in _POSSESSIVE.finditer(question)]
    out = []
    for person in found:
        words = _person_words(person) - set(KINDS)
        if words:
            out.append(words)
    return out


def titles_named(question: str) -> list[str]:
    """The titles a question quotes, folded ("the e-mail 'Email with Attachment'" ->
    ["email with attachment"])."""
    return [t for m in _QUOTED.finditer(question) if (t := _title(m.group("title")))]


def holds_quotes(text: str, quotes: list[str]) -> bool:
    """True when ``text`` holds every one of ``quotes`` (as ``titles_named`` gives them:
    folded words) word for word; False for none."""
    words = f" {_title(text)} "
    return bool(quotes) and all(f" {q} " in words for q in quotes)


def dates_named(question: str) -> list[tuple[int, int, int | None]]:
    """The dates a question dates a document by ("the memo of May 5, 2023" -> (5, 5, 2023),
    "the March 3 memo" -> (3, 3, None)): (month, day, year or None)."""
    found: list[tuple[int, int, int | None]] = []
    taken: list[tuple[int, int]] = []
    for written, value, at in dates(question):
        end = at + len(written)
        taken.append((at, end))
        if _DATED_BY.search(question[:at]) or _DATES_A.match(question[end:]):
            found.append((value.month, value.day, value.year))
    for m in DAY_OF_MONTH.finditer(question):
        if any(a <= m.start() < b for a, b in taken):
            continue
        month = month_number(m.group("month") or m.group("month2"))
        day = int(m.group("day") or m.group("day2"))
        if _DATED_BY.search(question[: m.start()]) or _DATES_A.match(question[m.end() :]):
            found.append((month, day, None))
    return found


def _on(day: tuple[int, int, int | None], days: frozenset[tuple[int, int, int]]) -> bool:
    month, number, year = day
    return any(d[0] == month and d[1] == number and (year is None or d[2] == year) for d in days)


def _singular(word: str) -> str | None:
    """ "e-mails" -> "e-mail": a plural's singular (a trailing "s" on 4+ letters), else None."""
    return word[:-1] if word.endswith("s") and len(word) > 3 else None


#: Characters a code must have to name the file-name piece holding it ("1040nr").
_CODE_CHARS = 4


def _codes(words: set[str]) -> set[str]:
    """The ``words`` that are codes: at least ``_CODE_CHARS`` characters, letters and digits
    both ("1040nr")."""
    return {
        w
        for w in words
        if len(w) >= _CODE_CHARS and any(c.isdigit() for c in w) and any(c.isalpha() for c in w)
    }


def _holds_code(piece: str, codes: set[str]) -> bool:
    """True when the file-name ``piece`` holds, and is longer than, one of ``codes`` ("i1040nr":
    "1040nr")."""
    return any(len(w) < len(piece) and w in piece for w in codes)


def _words(question: str) -> set[str]:
    words = set(_PIECE.findall(fold(question)))
    return words | {one for w in words if (one := _singular(w))}


def _referenced(question: str) -> set[str]:
    """The words of ``question`` (and their singulars) used as a reference: a determiner or a
    possessive ("Robert Schneider's bill") at most ``_REFERENCE_REACH`` words before them ("the
    memo", "the total bill amount"), not "how many days" or "per day"."""
    words = _PIECE.findall(fold(_POSSESSIVE_S.sub(f" {_OWNS} ", question)))
    out: set[str] = set()
    for i, word in enumerate(words):
        if _is_reference(words, i, possessive=True):
            out |= {word} | ({one} if (one := _singular(word)) else set())
    return out


def _is_reference(words: list[str], i: int, possessive: bool = False) -> bool:
    """True when a determiner (with ``possessive``, or the ``_OWNS`` that ``_referenced`` writes
    for the "'s" of "Robert Schneider's") stands at most ``_REFERENCE_REACH`` words before
    ``words[i]``."""
    before = set(words[max(0, i - _REFERENCE_REACH) : i])
    return bool(_DETERMINERS & before) or (possessive and _OWNS in before)


#: A possessive "'s" ("Robert Schneider's bill"), not the "s" of "U.S." (held-out dev h635:
#: "whose only U.S. business was" named business-report.docx).
_POSSESSIVE_S = re.compile(r"(?<=\w)['’]s\b")
#: The word ``_referenced`` writes for it.
_OWNS = "possessivemark"


#: Words that make the kind word after them a reference to a document ("the scanned page", "my
#: e-mails", "this spreadsheet", "the Stanley Cups spreadsheet").
_DETERMINERS = frozenset(
    {"the", "my", "this", "that", "these", "those", "your", "our", "his", "her", "their", "its",
     "each", "every"}
)  # fmt: skip
#: How many words before a kind word its determiner may stand ("the Enron West Gas sheet").
_REFERENCE_REACH = 4


def kinds_named(question: str) -> set[str]:
    """The kind words ``question`` uses to point at documents: a kind word (``KINDS``) with a
    determiner at most ``_REFERENCE_REACH`` words before it. A kind word without one is the
    question's topic, not its document: "what percentage of e-mail is spam, according to the
    scanned page" names a scan, not e-mails; "which web framework" names no web page."""
    words = _PIECE.findall(fold(question))
    named: set[str] = set()
    for i, word in enumerate(words):
        kind = word if word in KINDS else _singular(word)
        if kind in KINDS and _is_reference(words, i):
            named.add(str(kind))
    return named


def _share(
    own: set[str],
    words: set[str],
    referenced: set[str],
    sharing: dict[str, int],
    whole: set[str],
    names: frozenset[str] = frozenset(),
) -> float:
    """The share of a file name's pieces (``own``, generic words out) that the question's
    ``words`` name, counting pieces shared by at most ``MAX_SHARING`` documents. A name made of
    kind words only ("sample-presentation.pptx") counts only when the question says every word
    of it, generic ones too ("the sample presentation", not "the presentation on ..."); a name
    named in part only when a named piece is ``referenced`` ("the memo" for fake-memo.pdf, not
    "how many days" for family-day.eml), by a word that is no kind word ("the receipt" names
    no receipt-hofer.jpg), and by a word of ``GENRES`` only when the question's ``names``
    (``proper_words``) are all in the file name ("the IBAMA report" names no
    business-report.docx)."""
    named = {p for p in own & words if sharing[p] <= MAX_SHARING}
    if own <= KINDS.keys():
        return 1.0 if whole <= words else 0.0
    if len(named) < len(own):
        by = (named & referenced) - KINDS.keys()
        if not by:
            return 0.0  # "the presentation on ..." names no xamarin-presentation.pptx
        if by <= GENRES and names - own:
            return 0.0  # "the EDF electricity invoice" names no invoice-turnpike.jpg
    return len(named) / len(own)


def _kind_word_only(whole: set[str] | frozenset[str]) -> bool:
    """True for a file name that is one kind word ("receipt.jpg", "slides.pptx"; ``whole``: its
    words, generic ones too)."""
    return len(whole) == 1 and whole <= KINDS.keys()


def _distinct(own: set[str], words: set[str], sharing: dict[str, int]) -> bool:
    """True when ``words`` hold a piece of the file name ``own`` that is no kind word and is
    shared by at most ``MAX_SHARING`` documents ("xamarin" of xamarin-presentation.pptx)."""
    return any(sharing[p] <= MAX_SHARING and p not in KINDS for p in own & words)


#: How a document named by a one-word file name the question uses as a topic word is named.
TOPIC = "topic word"
#: How a document is named whose file name is one kind word the question points with
#: ("receipt.jpg" by "the receipt", "slides.pptx" by "the slides"): a reference, as long as no
#: other document reads more like the question (``Retriever.retrieve``).
KIND_WORD = "kind word"
#: A file's name with its extension written in a question ("rom.xls").
_FILE_NAME = re.compile(r"\b[\w.-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b")


def proper_words(question: str) -> frozenset[str]:
    """The folded words ``question`` writes as names: its names (``names_in``: capitalised,
    not opening a sentence, not common words: "at Roller") and file names with their extension
    (``_FILE_NAME``), their singulars too: "What did I buy at Roller?" -> {"roller"}."""
    found = [*names_in(question), *(m.group() for m in _FILE_NAME.finditer(question))]
    words = {w for text in found for w in _PIECE.findall(fold(text))}
    return frozenset(words | {one for w in words if (one := _singular(w))})


#: A name of several capitalised words ("Integrative Health and Sports Performance"), short
#: joining words allowed between them.
_LONG_NAME = re.compile(
    r"[A-Z][\w'’.-]*(?:\s+(?:(?:and|of|for|the|de|du|la|&)\s+)?[A-Z][\w'’.-]*)+"
)
_JOINING = frozenset({"and", "of", "for", "the", "de", "du", "la"})


def inside_other_names(question: str, own: set[str]) -> set[str]:
    """The pieces of a file name (``own``) that ``question`` writes only inside a longer name
    holding two words or more the file name lacks: "Health" of "the Integrative Health and
    Sports Performance scan report" names no health.pdf (held-out dev h809: that table's rows
    then took the budget from the scan report's "Referring Physician: Dr Curry")."""
    inside: set[str] = set()
    alone: set[str] = set()
    for m in _LONG_NAME.finditer(question):
        words = [w for w in _PIECE.findall(fold(m.group())) if w not in _JOINING | STOP_WORDS]
        other = [w for w in words if w not in own]
        for w in set(words) & own:
            (inside if len(other) >= 2 else alone).add(w)
    outside = set(_PIECE.findall(fold(_LONG_NAME.sub(" ", question)))) | alone
    return inside - outside


class DocumentNames:
    """The library's document names, read again when the catalogue changes (its chunk count
    and highest chunk id), and the documents a question names."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._signature: tuple[int, int] | None = None
        self._pieces: dict[int, set[str]] = {}
        self._whole: dict[int, set[str]] = {}  # with the generic pieces
        self._joined: dict[str, frozenset[str]] = {}
        self._types: dict[int, str] = {}
        self._heads: dict[int, Head] = {}
        self._owners: dict[int, str] = {}
        self._carried: dict[int, list[int]] = {}

    def _load(self) -> None:
        with self.db.session() as s:
            signature = catalogue.chunk_signature(s)
            if signature == self._signature:
                return
            paths = catalogue.document_paths(s)
            heads = catalogue.first_chunks(s)
        self._pieces = {i: _pieces(p) for i, p in paths}
        self._whole = {i: _pieces(p, generic=True) for i, p in paths}
        self._joined = {piece: w for _, p in paths for piece, w in joined_words(p).items()}
        self._types = {i: _extension(p) for i, p in paths}
        self._heads = {i: head_of(text, prov) for i, (text, prov) in heads.items()}
        self._owners = {i: " ".join(sorted(h.people)) for i, h in self._heads.items() if h.people}
        # an e-mail's attachments: "/mail/x.eml#attachment/2/report.pdf" under "/mail/x.eml"
        by_path = {p: i for i, p in paths}
        carried: dict[int, list[int]] = {}
        for i, p in paths:
            if "#" in p and (parent := by_path.get(p.split("#", 1)[0])) is not None:
                carried.setdefault(parent, []).append(i)
        self._carried = carried
        self._signature = signature

    def owners(self) -> dict[int, str]:
        """Document id -> the folded words of its authors or senders (``head_of``), for the
        documents whose head names any (read once per catalogue change; do not modify)."""
        with self._lock:
            self._load()
            return self._owners

    def types(self) -> dict[int, str]:
        """Document id -> file extension ("xlsx")."""
        with self._lock:
            self._load()
            return dict(self._types)

    def named(self, question: str) -> Named:
        """The documents ``question`` names by the words of their file name (at least
        ``MIN_SHARE`` of them, each shared by at most ``MAX_SHARING`` documents; the largest
        share wins; among the documents of the kind it names, if any), and the kinds it names.
        A one-word name the question uses as a topic word only is named ``TOPIC`` (see
        ``Named.by_reference``)."""
        words = _words(question) - _COUNTS
        referenced = _referenced(question) - _COUNTS
        kinds = {e for w in kinds_named(question) for e in KINDS[w]}
        if _WORD_FILE.search(question):
            kinds |= KINDS["docx"]
        extensions = tuple(sorted(kinds))
        with self._lock:
            self._load()
            pieces = self._pieces
            joined = self._joined
            owners = self._owners
        # a camel-cased piece is named by all of its words ("Cantina band": "CantinaBand3")
        camel = {piece for piece, parts in joined.items() if parts <= words}
        # a code the question writes inside a piece ("Form 1040NR" for i1040nr.pdf, dev h635)
        if codes := _codes(words):  # most questions write none: no file name is read for one
            camel |= {p for own in pieces.values() for p in own if _holds_code(p, codes)}
        words |= camel
        referenced |= camel
        if extensions:  # "the sample presentation": among the presentations first
            of_kind = {i: own for i, own in pieces.items() if self._types.get(i) in extensions}
            pieces = of_kind or pieces
        sharing: dict[str, int] = {}
        for own in pieces.values():
            for p in own:
                sharing[p] = sharing.get(p, 0) + 1
        names = proper_words(question)
        score = {
            i: _share(own, words, referenced, sharing, self._whole.get(i, own), names)
            for i, own in pieces.items()
            if own
        }
        # a name of kind words only ("slides.pptx") is said by the kind word a question points
        # with; a name the question says a word of besides its kind words outranks it ("the
        # Xamarin slides" is xamarin-presentation.pptx, held-out batch 10 dev h1038, h1040)
        if any(n >= MIN_SHARE and _distinct(pieces[i], words, sharing) for i, n in score.items()):
            score = {i: n for i, n in score.items() if not pieces[i] <= KINDS.keys()}
        best = max(score.values(), default=0.0)
        ids = tuple(sorted(i for i, n in score.items() if n >= MIN_SHARE and n == best))
        # a name of one word the question uses as a word of its topic, neither as a reference
        # nor written as a name: "someone sends a phone bill" for qr_bill_example.jpg (dev
        # h528), "health points" for health.pdf; often the topic a file is named for, so it
        # still lifts that document's chunks, but earns none of a name's privileges
        proper = proper_words(question) | camel | referenced
        by = {
            i: "file name"
            if pieces[i] & proper - inside_other_names(question, pieces[i]) or len(pieces[i]) > 1
            else TOPIC
            for i in ids
        }
        by = {
            i: KIND_WORD if how != TOPIC and _kind_word_only(self._whole.get(i, pieces[i])) else how
            for i, how in by.items()
        }
        written = self._written(question, pieces, extensions)
        if written and "title" in written.values():
            ids, by = tuple(sorted(written)), dict(written)  # a quoted title outranks file names
        elif written:
            both = tuple(i for i in ids if i in written)
            ids = both or tuple(sorted(set(ids) | set(written)))
            by = {i: written.get(i) or by[i] for i in ids}
        carried = {c: by[i] for i in ids for c in self._carried.get(i, []) if c not in by}
        if carried:  # an e-mail's attachments go with it
            by.update(carried)
            ids = tuple(sorted(by))
        return Named(ids, extensions, by, owners)

    def _written(
        self, question: str, pieces: dict[int, set[str]], extensions: tuple[str, ...]
    ) -> dict[int, str]:
        """The documents a question names by a quoted subject or title (id -> "title"), else
        by their author or sender and by their date (id -> "author", "date" or "author and
        date"), among those of the kind it names if any; each title, person or date naming at
        most ``MAX_PERSON`` documents. A person matches a document
        whose head names them or whose file name holds one of their words."""
        people, days = people_named(question), dates_named(question)
        titles = set(titles_named(question))
        if not people and not days and not titles:
            return {}
        heads = self._heads
        candidates = set(pieces) if extensions else set(self._pieces)
        titled = {i for i in candidates if titles & heads.get(i, Head()).titles}
        if 0 < len(titled) <= MAX_PERSON:  # a quoted subject or title names its document
            return dict.fromkeys(sorted(titled), "title")
        matched: dict[int, str] = {}
        by_person: set[int] | None = None
        for words in people:
            hit = {
                i
                for i in candidates
                if words & heads.get(i, Head()).people or words & self._pieces.get(i, set())
            }
            if 0 < len(hit) <= MAX_PERSON:
                by_person = hit if by_person is None else (by_person & hit) or by_person
        by_date: set[int] | None = None
        for day in days:
            hit = {i for i in candidates if _on(day, heads.get(i, Head()).dates)}
            if 0 < len(hit) <= MAX_PERSON:
                by_date = hit if by_date is None else (by_date & hit) or by_date
        if by_person is not None and by_date is not None and by_person & by_date:
            return dict.fromkeys(sorted(by_person & by_date), "author and date")
        for found, how in ((by_person, "author"), (by_date, "date")):
            for i in sorted(found or ()):
                matched.setdefault(i, how)
        return matched
