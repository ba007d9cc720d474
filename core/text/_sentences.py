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


#: A line this long (characters) that ends no sentence is wrapped prose whatever the width of
#: the text around it (a 72-column e-mail's "... GNOME Print\n(0.25) and ORBit": dev h1043).
WRAPPED_MIN = 60
#: A shorter line is wrapped prose when it is at least this share of the text's longest line,
#: and at least ``FULL_MIN`` characters: a narrow column's full line ("All experiments were
#: performed on a MacBook Pro with 2.2\nGHz Core 2 processor": held-out dev h915).
FULL_SHARE = 0.75
FULL_MIN = 40
#: A line opening a list item ("• ", "- ", "1. ", "a) ", "(iv) "): a new sentence.
_LIST_ITEM = re.compile(r"\s*(?:[•\-*–]|\(?(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,4})[.)])\s")
#: A word holding a figure ("2.2", "01Aug2018", "4982").
_HAS_DIGIT = re.compile(r"\d")
#: Share of a line's words holding a figure at most, for it to be prose (not a statement's
#: or a table's row written without cells: "01Aug2018 Incoming Interac e-Transfer 14.54").
PROSE_FIGURES = 0.3
#: Share of a line's words opening in lower case at least, for it to be prose ("Evolution
#: also requires Gal (0.7), GtkHTML (0.8.2), Bonobo (1.0), GNOME Print" has two of eleven).
PROSE_LOWER = 0.15
#: A line longer than this (characters) is a paragraph of its own, not a wrapped line (a web
#: page's or a Word document's paragraphs are one line each, and end where they end).
WRAP_MAX = 120
#: Share of a text's lines that are at its full width, at least, for it to be wrapped text.
WRAPPED_SHARE = 0.5
#: A table's or a figure's caption line ("Table 1: MapReduce jobs run in August 2004"): its
#: own line, whatever its width.
_CAPTION = re.compile(r"\s*(?:table|figure|fig\.|tab\.|chart|exhibit)\s*[\dIVX]", re.IGNORECASE)
#: A sentence ending on initials ("JUMA PARTICIPAÇÕES S.A.", "J. R."): not its end.
_INITIALS_END = re.compile(r"(?:\b[A-Z]\.)+$")


def _prose(line: str) -> bool:
    """True for a line of words: at most ``PROSE_FIGURES`` of them hold a figure and at least
    ``PROSE_LOWER`` open in lower case (a row of column names, "Date Description Number Debits
    Credits Balance", opens none)."""
    words = line.split()
    figures = sum(bool(_HAS_DIGIT.search(w)) for w in words)
    lower = sum(w[0].islower() for w in words)
    return (
        bool(words) and figures <= PROSE_FIGURES * len(words) and lower >= PROSE_LOWER * len(words)
    )


def _wrapped(lines: list[str]) -> bool:
    """True for the lines of a wrapped text: at least ``WRAPPED_SHARE`` of its lines of
    ``FULL_MIN`` / 2 characters or more are at its full width (``FULL_SHARE`` of the length
    of its longest lines but one in ten). A page's or a wrapped e-mail's lines are mostly
    full; a web page's or a Word document's paragraphs, one a line, vary (a 240-character
    paragraph between headings and short ones), and so do a receipt's lines."""
    sizes = sorted(n for line in lines if (n := len(line.rstrip())) >= FULL_MIN // 2)
    if not sizes:
        return False
    wide = sizes[min(len(sizes) - 1, int(0.9 * len(sizes)))]
    return sum(n >= FULL_SHARE * wide for n in sizes) >= WRAPPED_SHARE * len(sizes)


def unwrap_lines(text: str) -> list[str]:
    """The lines of ``text``, each line of wrapped prose joined to the next one. In a wrapped
    text (``_wrapped``) a line that ends no sentence or label (``ENDS_SENTENCE_LINE``), holds
    no table cells (" | "), is prose (``_prose``), is no caption (``_CAPTION``) and is
    ``WRAPPED_MIN`` characters or longer or a full line of a narrower text (``FULL_SHARE`` of
    its longest line, ``FULL_MIN`` at least), but not over ``WRAP_MAX``, joins a next line that
    is not blank and opens no list item. Lines are kept as written otherwise (a receipt's short
    lines, an address, a table's rows, a web page's paragraphs stay apart). Text extracted from
    PDFs and wrapped plain text break lines inside sentences; ``WRAPPED_LINE`` finds the breaks
    a line's end or the next line's lower case shows, this the ones only the widths show."""
    lines = text.split("\n")
    if not _wrapped(lines):
        return lines  # each line ends where its paragraph does
    longest = max((len(line.rstrip()) for line in lines if len(line) <= WRAP_MAX), default=0)
    full = min(WRAPPED_MIN, max(FULL_MIN, FULL_SHARE * longest))
    out: list[str] = []
    before = ""  # the line before, as written
    for line in lines:
        if (
            out
            and full <= len(before.rstrip()) <= WRAP_MAX
            and line.strip()
            and " | " not in before + line
            and not ENDS_SENTENCE_LINE.search(before)
            and not _LIST_ITEM.match(line)
            and not _CAPTION.match(before)
            and _prose(before)
        ):
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
        before = line
    return out


def split_sentences(text: str) -> list[str]:
    """Sentences and lines of ``text``, blanks stripped, empty ones out: split at
    ``WIDE_SENTENCE_GAP`` (. ! ? and their CJK forms, line breaks) after joining the lines of
    wrapped prose (``unwrap_lines``, ``WRAPPED_LINE``); a sentence ending on initials goes on
    into the next ("JUMA PARTICIPAÇÕES S.A. 678003 10.000,00" is one row: held-out dev h1013).
    Passage fitting, language narrowing, the test of whether a text holds a language and the
    context of a passage's numbers (grounding) read sentences this way."""
    joined = WRAPPED_LINE.sub(" ", "\n".join(unwrap_lines(text)))
    out: list[str] = []
    for sentence in WIDE_SENTENCE_GAP.split(joined):
        if not (sentence := sentence.strip()):
            continue
        if out and _INITIALS_END.search(out[-1]):
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out
