"""Words of a question that name a document rather than a fact (issue 35): the kind of file
("the Word document", "the recording", "the Redpaper") or its name or title ("the JFK
recording" for jfk.flac, "in 2305.03393v1-pg9.pdf"). A passage need not hold them: they say
which document to read, so the checks that decline a question whose subject no passage mentions
leave them out. A language named as the part of a text to read ("the Portuguese sentence of
the scan") is held by a passage with a sentence in that language, not by the word."""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.languages import holds_language, language_descriptions
from core.text import fold

#: Kinds of document people name in a question, folded (product and format names included).
DOCUMENT_KINDS = frozenset(
    {
        "word", "excel", "powerpoint", "outlook", "keynote", "pages", "numbers", "acrobat",
        "pdf", "docx", "doc", "xlsx", "xls", "pptx", "ppt", "csv", "tsv", "odt", "ods", "epub",
        "rtf", "html", "markdown", "eml", "mbox", "json", "yaml", "png", "jpeg", "jpg", "tiff",
        "mp3", "wav", "flac", "redpaper", "redbook", "redbooks", "ebook", "e-book", "e-mail",
        "email", "teams", "zoom", "google", "sheets", "docs", "slides",
    }
)  # fmt: skip

_PIECES = re.compile(r"[\W_]+")


def _label_words(labels: Iterable[str]) -> set[str]:
    """The folded words of the passages' labels (file names, titles), and their pieces."""
    words: set[str] = set()
    for label in labels:
        folded = fold(label)
        words.update(w.strip(".,;:()[]") for w in folded.split())
        words.update(p for p in _PIECES.split(folded) if p)
    return words


def references(question_claims: Iterable[str], labels: Iterable[str]) -> set[str]:
    """The claims of a question that name a document, folded: a kind of file, a word of a
    passage's label (its file name or title), or a number a label's word opens with
    ("2305.03393" of "2305.03393v1-pg9.pdf"). ``labels`` are the passages' labels."""
    named = _label_words(labels)
    out = set()
    for claim in question_claims:
        folded = fold(claim)
        pieces = [p for p in _PIECES.split(folded) if p]
        if (
            folded in DOCUMENT_KINDS
            or folded in named
            or (pieces and all(p in named for p in pieces))
            or (any(c.isdigit() for c in folded) and any(w.startswith(folded) for w in named))
        ):
            out.add(folded)
    return out


def languages_held(question: str, texts: Iterable[str]) -> set[str]:
    """The words (folded) ``question`` names a language with as the part to read or as the
    language of a document (``core.languages.language_descriptions``) whose language a sentence
    of ``texts`` is written in: "portuguese" of "In the Portuguese sentence of the scan, ..."
    when a passage holds one, "french" of "According to the French book page, ..." (held-out
    dev h1228 was declined as "No passage mentions French")."""
    asked = language_descriptions(question)
    if not asked:
        return set()
    pool = list(texts)
    return {word for word, names in asked.items() if any(holds_language(t, names) for t in pool)}
