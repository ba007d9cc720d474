"""Which language a text is written in (``written_in``, ``language_of``,
``confirmed_language``), and which languages a question names as the part of a text to read
("the German part of the recording", "the Portuguese sentence of the scan", "in French"), by
lingua (``lingua-language-detector``: n-gram models inside its wheel, nothing downloaded).

The detector knows every language lingua does (75) and runs in its low-accuracy mode: ~40 MiB
resident and ~1 ms a sentence here, against ~450 MiB and a 6 s first call for the high-accuracy
mode with 17 languages (measured 2026-12-04). Low accuracy reads a short Portuguese sentence as
Catalan 0.68 / Portuguese 0.32, and short English lines as Basque or Swedish: a language the
low-accuracy detector is not sure of is looked at again by a high-accuracy detector over that
language, English and the low-accuracy first (its models load on first use: ~25 MiB and ~0.3 s
a language). The detectors are built on first use and kept (they hold no user text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from core.text import ADDRESS, fold, split_sentences

if TYPE_CHECKING:
    from lingua import Language, LanguageDetector

#: A text is in a language when lingua gives it at least this confidence (0-1).
MIN_CONFIDENCE = 0.25
#: A low-accuracy first at least this sure needs no second look.
SURE = 0.5
#: Fewer letters than this say nothing of a text's language ("Le renard brun" reads Nynorsk).
MIN_LETTERS = 12
#: Strings of no language, left out before detection: e-mail addresses, web addresses and file
#: names ("fake-attachment.txt" reads as German 0.5).
NO_LANGUAGE = re.compile(rf"{ADDRESS.pattern}|[\w-]+(?:\.[\w-]+)*\.[a-z0-9]{{2,4}}\b")
#: Words for the part of a text a language names ("the German part", "the French abstract").
PART_WORDS = frozenset(
    {
        "part", "parts", "section", "sections", "sentence", "sentences", "text", "texts",
        "line", "lines", "paragraph", "paragraphs", "version", "versions", "translation",
        "abstract", "summary", "title", "passage", "passages", "quote", "word", "words",
        "phrase", "phrases", "term", "terms", "caption", "original", "slide", "slides",
    }
)  # fmt: skip
#: Words for a document or a recording a language name describes ("the French book page", "the
#: German fable", "the English clip", "the German-language table"): the language it is written
#: or spoken in, not a fact a passage states (``language_descriptions``).
DOCUMENT_WORDS = frozenset(
    {
        "page", "pages", "book", "books", "fable", "fables", "story", "stories", "clip", "clips",
        "recording", "recordings", "audio", "voice", "deck", "presentation", "table", "tables",
        "sheet", "spreadsheet", "workbook", "edition", "email", "e-mail", "mail", "message",
        "messages", "letter", "article", "articles", "document", "documents", "file", "files",
        "menu", "newspaper", "paper", "report", "list", "scan", "photo", "picture", "image",
        "sign", "receipt", "website", "site", "webpage", "chapter", "poem", "song", "transcript",
        "newsletter", "post", "thread", "manual", "guide", "brochure", "leaflet", "form",
        "invoice", "contract", "policy", "directory", "magazine", "blog", "notes", "booklet",
        "language", "source", "press", "fixture", "description", "label", "minutes",
    }
)  # fmt: skip
#: How many words after a language name its part word may stand ("the German opening line").
PART_REACH = 3
#: English names people give languages that are not lingua's own names.
_ALIASES = {
    "norwegian": ("BOKMAL", "NYNORSK"),
    "farsi": ("PERSIAN",),
    "mandarin": ("CHINESE",),
    "cantonese": ("CHINESE",),
    "filipino": ("TAGALOG",),
    "flemish": ("DUTCH",),
    "castilian": ("SPANISH",),
    "brazilian": ("PORTUGUESE",),
}
_WORD = re.compile(r"[^\W\d_]+")


@cache
def language_names() -> dict[str, tuple[str, ...]]:
    """Folded English language names -> lingua ``Language`` names ("german" -> ("GERMAN",))."""
    from lingua import Language

    names = {lang.name.lower(): (lang.name,) for lang in Language.all()}
    return {**names, **_ALIASES}


@cache
def _detector() -> LanguageDetector:
    from lingua import LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()


def warm_up() -> None:
    """Load the low-accuracy detector's models now (~55 MiB; 9 s at a load of 6 on two cores):
    they load on first use, and the first question after a start paid for it before its first
    token (the cross-lingual check reads every answer's passages)."""
    _detector().compute_language_confidence_values("warm-up sentence for the language detector")


def _language(name: str) -> Language:
    from lingua import Language

    language: Language = getattr(Language, name)
    return language


def _languages_before(question: str, nouns: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The language names (folded) of ``question`` with one of ``nouns`` at most ``PART_REACH``
    words after them, or after "in", each with its lingua names; "german-language" too when
    the question writes it so."""
    folded = fold(question)
    words = _WORD.findall(folded)
    names = language_names()
    out: dict[str, tuple[str, ...]] = {}
    for i, word in enumerate(words):
        if word in names and (
            set(words[i + 1 : i + 1 + PART_REACH]) & nouns or (i and words[i - 1] == "in")
        ):
            out[word] = names[word]
            if f"{word}-language" in folded:
                out[f"{word}-language"] = names[word]
    return out


def language_words(question: str) -> dict[str, tuple[str, ...]]:
    """The words (folded) ``question`` names a language with as the part of a text to read,
    each with its lingua names: a language name with a part word (``PART_WORDS``) at most
    ``PART_REACH`` words after it ("the German part", "the Portuguese sentence of the scan"),
    or after "in" ("what does it say in French"). A language as a fact ("a German company",
    "speaks Dutch") is not one."""
    return _languages_before(question, PART_WORDS)


def language_descriptions(question: str) -> dict[str, tuple[str, ...]]:
    """The words (folded) ``question`` names a language with as the part to read
    (``language_words``) or as the language of a document or recording: a language name with a
    document word (``DOCUMENT_WORDS``) at most ``PART_REACH`` words after it ("the French book
    page", "the German fable in Doug Sauder's email", "the English clip"), "german-language"
    too when the question writes it so. A language as a fact ("a German company", "the English
    king") is not one. Only the checks read these: a passage written in the language holds the
    word; fitting still narrows passages to a language only for ``language_words``."""
    return _languages_before(question, PART_WORDS | DOCUMENT_WORDS)


def languages_named(question: str) -> tuple[str, ...]:
    """The lingua names of the languages ``question`` names as the part to read
    (``language_words``), in order."""
    return tuple(dict.fromkeys(n for names in language_words(question).values() for n in names))


@cache
def _confirmer(languages: frozenset[str]) -> LanguageDetector:
    """A high-accuracy detector over a few languages (its models load on first use: ~25 MiB
    and ~0.3 s a language here)."""
    from lingua import LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_languages(*(_language(n) for n in languages)).build()


def written_in(text: str, language: str) -> bool:
    """True when ``text`` (a sentence or a line, best) reads as ``language`` (a lingua name,
    as ``languages_named`` gives): at least ``MIN_LETTERS`` letters, and either the
    low-accuracy detector puts ``language`` first with at least ``SURE`` confidence, or it
    gives it at least ``MIN_CONFIDENCE`` and the high-accuracy detector over ``language``,
    English and the low-accuracy first puts ``language`` first ("- Lots of whitespace" reads
    Basque 0.39 / Swedish 0.28 at low accuracy, English at high). Addresses and file names
    (``NO_LANGUAGE``) are left out first."""
    text = NO_LANGUAGE.sub(" ", text)
    if sum(c.isalpha() for c in text) < MIN_LETTERS:
        return False
    values = _detector().compute_language_confidence_values(text)
    first = values[0].language.name if values else ""
    confidence = next((v.value for v in values if v.language.name == language), 0.0)
    if confidence < MIN_CONFIDENCE:
        return False
    if first == language and confidence >= SURE:
        return True
    confirmer = _confirmer(frozenset({language, first or language, "ENGLISH"}))
    found = confirmer.detect_language_of(text)
    return found is not None and found.name == language


def language_of(text: str) -> str | None:
    """The lingua name of the language ``text`` (a passage, best: a few sentences) is written
    in ("FRENCH"), when the low-accuracy detector gives it at least ``SURE`` confidence; None
    for fewer than ``MIN_LETTERS`` letters or no sure language. Addresses and file names
    (``NO_LANGUAGE``) are left out first."""
    text = NO_LANGUAGE.sub(" ", text)
    if sum(c.isalpha() for c in text) < MIN_LETTERS:
        return None
    values = _detector().compute_language_confidence_values(text)
    return values[0].language.name if values and values[0].value >= SURE else None


def confirmed_language(text: str, language: str) -> str | None:
    """``language`` when the high-accuracy detector over it and English reads ``text`` as it
    (a low-accuracy guess checked again); else None."""
    found = _confirmer(frozenset({language, "ENGLISH"})).detect_language_of(
        NO_LANGUAGE.sub(" ", text)
    )
    return language if found is not None and found.name == language else None


def holds_language(text: str, languages: Iterable[str]) -> bool:
    """True when a sentence or line of ``text`` is written in one of ``languages`` (lingua
    names)."""
    wanted = tuple(languages)
    return any(written_in(s, language) for s in split_sentences(text) for language in wanted)
