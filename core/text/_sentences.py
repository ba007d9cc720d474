"""Where a text's sentences, lines and clauses part: the split points every reader of answers and
passages uses. Each is a compiled pattern to ``split`` on (or ``finditer`` for the ends);
they differ on purpose, and each names the readers that need its variant."""

from __future__ import annotations

import re

#: After ".", "!" or "?" and the blank that follows (relations, a number's sentence).
SENTENCE_GAP = re.compile(r"(?<=[.!?])\s+")
#: A sentence gap or a line break: answers' claims and numbers, instructions in a passage.
SENTENCE_OR_LINE_GAP = re.compile(r"(?<=[.!?])\s+|\n+")
#: Abbreviations that a figure follows ("Bill no. 3139", "Fig. 3", "Art. 34", "Tel. 059/..."):
#: their stop ends no sentence when a figure comes next.
_BEFORE_FIGURE = "".join(
    rf"(?<!\b(?i:{a})\.)"
    for a in ("no", "nos", "nr", "tel", "fig", "p", "pp", "vol", "art", "sec", "ch")
)
#: As ``SENTENCE_OR_LINE_GAP``, with the CJK full stops ("。！？"), and not after an abbreviation
#: a figure follows (held-out dev h106: "Bill no." and "3139" were two sentences, and fitting
#: kept neither for "the bill number"): passage fitting.
WIDE_SENTENCE_GAP = re.compile(rf"(?<=[.!?。！？])(?:{_BEFORE_FIGURE}\s+|\s+(?![\d#]))|\n+")
#: A sentence gap that keeps a trailing citation with its sentence ("... 1911. [2] Then"): the
#: gap is after the citation, not before it (citing an answer sentence by sentence).
CITED_SENTENCE_GAP = re.compile(r"(?<=[.!?])\s+(?!\[\d)|(?<=\d\])\s+")
#: Clauses: sentences, table cells (" | "), ", " (not the comma inside "1,240"), "; ", lines.
CLAUSE_GAP = re.compile(r"(?<=[.!?])\s+|\s\|\s|,\s|;\s|\n")
#: A sentence end and its blank, matched (not looked behind): where the sentence before a
#: position ends.
SENTENCE_END = re.compile(r"[.!?]\s+")
#: A soft line break inside a sentence (PDF layout): not after a sentence's end or a colon, not
#: before a list item ("•", "-", "*", "1." or "1)").
SOFT_BREAK = re.compile(r"(?<![.:!?])\n(?!\s*(?:[•\-*]|\d+[.)]\s))")
#: Lower-case Latin letters, accented ones too ("über den faulen Hund", "été", "ça").
_LATIN_LOWER = "".join(chr(i) for i in range(0x250) if chr(i).islower())
#: A line break inside a sentence: the line does not end a sentence (any script) or a label and
#: the next one goes on in lower case (a Latin letter), the line ends on a word no sentence or
#: heading ends on (``_GOES_ON``), or the line ends on a comma, which ends
#: no sentence ("delivered on January 23,\n2023.", a letter's "Best Regards,\nMallori": held-out
#: dev h036 lost the signer's name, a line of its own, to fitting): text extracted from PDFs
#: and wrapped plain text.
#: Words a line ending mid-sentence ends on (an article, a preposition, a conjunction, an
#: auxiliary: "total employment in the\nUnited States will rise 20.5 million between\n2010
#: and 2020" in a two-column page, held-out batch 5 dev h507): no heading or sentence ends so.
_GOES_ON = (
    "the", "a", "an", "of", "in", "to", "and", "or", "for", "with", "between", "from", "by",
    "on", "at", "as", "than", "that", "into", "about", "is", "are", "was", "were", "will",
    "be", "has", "have", "had", "its", "their", "his", "her", "our", "your", "de", "la",
    "le", "les", "des", "du", "et", "el", "los", "las", "y", "und", "der", "den", "dem",
    "von", "zu", "mit",
)  # fmt: skip
_AFTER_GOING_ON = "|".join(rf"(?<=(?<![^\W\d_]){w})" for w in _GOES_ON)
WRAPPED_LINE = re.compile(
    rf"(?<![.!?:;。！？])[ \t]*\n[ \t]*(?=[{_LATIN_LOWER}])|(?<=,)[ \t]*\n[ \t]*(?=\S)"
    rf"|(?:{_AFTER_GOING_ON})[ \t]*\n[ \t]*(?=\S)"
)
#: Just after a sentence's end and one blank, as a look-behind to build a pattern with ("a chat
#: role turn at a sentence's start").
AFTER_SENTENCE_END = r"(?<=[.!?]\s)"
#: A sentence gap for text written with ";" and ":" as stops too, before a non-blank (chunking).
CHUNK_SENTENCE_GAP = re.compile(r"(?<=[.!?;:])\s+(?=\S)")
#: A stop (". ! ? ; :") and the blank after it: where an over-long line of plain text is cut.
STOP_AND_BLANK = re.compile(r"[.!?;:]\s")
#: A sentence gap (";" a stop too) or a line break: the statements of a whole-document summary.
STATEMENT_GAP = re.compile(r"(?<=[.!?;])\s+|\n+")
#: A sentence gap before a capital letter: the sentences of a model's map reply.
SENTENCE_GAP_BEFORE_CAPITAL = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
#: After a sentence's or clause's end mark (". ! ? ; ,") and its blank: where a transcript
#: segment spoken by two people may be cut at the change of speaker.
CLAUSE_END_GAP = re.compile(r"(?<=[.!?;,])\s+")
#: A line ending on a sentence's or a clause's mark (not a label line such as "2025 Objectives").
ENDS_CLAUSE = re.compile(r"[.!?:;,]$")
#: A line ending a sentence or a label; an ellipsis ("lightweight ...") goes on: where wrapped
#: prose does not join the next line (a number's context in grounding).
ENDS_SENTENCE_LINE = re.compile(r"(?<!\.\.)[.!?:]\s*$")


def split_sentences(text: str) -> list[str]:
    """Sentences and lines of ``text``, blanks stripped, empty ones out: split at
    ``WIDE_SENTENCE_GAP`` (. ! ? and their CJK forms, line breaks) after joining the lines
    ``WRAPPED_LINE`` finds inside a sentence. Passage fitting, language narrowing and the
    test of whether a text holds a language read sentences this way."""
    return [s.strip() for s in WIDE_SENTENCE_GAP.split(WRAPPED_LINE.sub(" ", text)) if s.strip()]
