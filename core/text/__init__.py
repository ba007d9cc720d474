"""The text toolkit: how answering, grounding, the injection check and evaluation read a text.
Every sentence, number and citation pattern of the tree is here (tests/unit enforces it).

Public:

- the decline sentence: ``DONT_KNOW``;
- citation markers: ``CITATION`` (one ``[n]``, its number in group 1), ``CITATION_RUN``
  (``" [1, 2]"`` with its blank), ``CUT_CITATION`` (one cut at a reply's end),
  ``cited_numbers``, a run of markers counting past the passages ``runaway_citations``
  ("is [1] [2] ... [96]"), a passage's text as an answer quotes it ``quoted`` ("[3]" ->
  "(3)"), groups of them ``CITATION_GROUP`` and ``grouped_citations`` ("[1] and
  [2]"), words pointing at a source before one ``POINTING`` ("according to [1]");
- scripts: a Latin letter ``LATIN``, the share of a text's letters that are Latin
  ``latin_share``;
- sentences: the split points ``SENTENCE_GAP``, ``SENTENCE_OR_LINE_GAP``,
  ``WIDE_SENTENCE_GAP`` (CJK stops too), ``CITED_SENTENCE_GAP``, ``CLAUSE_GAP``, ``CLAUSE_END_GAP``,
  ``CHUNK_SENTENCE_GAP``, ``STATEMENT_GAP``, ``SENTENCE_GAP_BEFORE_CAPITAL``, ``SENTENCE_END``,
  ``STOP_AND_BLANK``, ``AFTER_SENTENCE_END``, and the breaks inside a sentence ``SOFT_BREAK``,
  ``WRAPPED_LINE``, and a text's sentences ``split_sentences``;
- numbers: ``NUMBER``, ``MULTI_DIGIT_NUMBER``, ``NUMBER_OR_WORD``, ``NUMERIC_CELL``, ``FIGURE``,
  a cell's amount ``cell_amount`` ("$12.5M"), whether a text gives a figure in digits or words
  ``holds_figure`` (``FIGURE_WORDS``: "twice", "none"), the counts one to ten in words
  ``COUNT_WORDS``,
  ``number_key`` and ``number_keys`` (other locales' separators: "2,32,822", "1.234,5",
  "3'949.75"), in words in eight languages ``worded_number_keys`` ("twenty", "vingt"), year
  ranges and seasons ``YEAR_RANGE``, ``ranges`` ("1991–92", "2021/22"),
  ``DASHES``, years ``YEAR``; calendar dates ``DATE``, ``dates``, a month and day ``DAY_OF_MONTH``,
  ``month_number``, the months a question asks for ``asked_months`` and whether a text names
  one ``holds_month``;
- words: ``WORD``, abbreviations before a figure ``ABBREVIATIONS`` and the words they stand
  for ``spelled_out`` ("Bill no. 3139": number), the lists ``NOT_NAMES``, ``CALENDAR_WORDS``,
  ``STOP_WORDS``, ``NUMBER_CONTEXT_STOP_WORDS``, ``UNIT_WORDS``, English stems ``stem``,
  ``stems``; British and American spellings as one ``american`` and the content stems two
  texts share ``content_stems``;
- names and numbers a text states and whether another holds them: ``fold``, ``repair``
  (mojibake: "1991â€“92"), ``claims``, ``names_in``, ``holds_all``, ``present``, a name one
  letter off ``present_misspelt``, ``asked_numbers`` and the codes around them (``asked_codes``,
  ``holds_code``), e-mail and web addresses ``ADDRESS``.

The modules behind them (``_decline``, ``_citations``, ``_sentences``, ``_numbers``,
``_words``, ``_claims``, ``_spelling``, ``_script``) are private.
"""

from core.text._citations import (
    CITATION,
    CITATION_GROUP,
    CITATION_RUN,
    CUT_CITATION,
    POINTING,
    cited_numbers,
    grouped_citations,
    quoted,
    runaway_citations,
)
from core.text._claims import (
    ADDRESS,
    WORD,
    asked_codes,
    asked_numbers,
    claims,
    fold,
    holds_all,
    holds_code,
    holds_figure,
    names_in,
    present,
    present_misspelt,
    repair,
)
from core.text._dates import (
    DATE,
    DAY_OF_MONTH,
    asked_months,
    dates,
    holds_month,
    month_forms,
    month_number,
    month_year,
)
from core.text._decline import DONT_KNOW
from core.text._numbers import (
    COUNT_WORDS,
    DASHES,
    FIGURE,
    FIGURE_WORDS,
    MULTI_DIGIT_NUMBER,
    NUMBER,
    NUMBER_OR_WORD,
    NUMERIC_CELL,
    YEAR,
    YEAR_RANGE,
    cell_amount,
    number_key,
    number_keys,
    ranges,
    worded_number_keys,
)
from core.text._script import LATIN, latin_share
from core.text._sentences import (
    AFTER_SENTENCE_END,
    CHUNK_SENTENCE_GAP,
    CITED_SENTENCE_GAP,
    CLAUSE_END_GAP,
    CLAUSE_GAP,
    ENDS_CLAUSE,
    ENDS_SENTENCE_LINE,
    SENTENCE_END,
    SENTENCE_GAP,
    SENTENCE_GAP_BEFORE_CAPITAL,
    SENTENCE_OR_LINE_GAP,
    SOFT_BREAK,
    STATEMENT_GAP,
    STOP_AND_BLANK,
    WIDE_SENTENCE_GAP,
    WRAPPED_LINE,
    split_sentences,
)
from core.text._spelling import american, content_stems
from core.text._words import (
    ABBREVIATIONS,
    CALENDAR_WORDS,
    NOT_NAMES,
    NUMBER_CONTEXT_STOP_WORDS,
    STOP_WORDS,
    UNIT_WORDS,
    spelled_out,
    stem,
    stems,
)

__all__ = [
    "ABBREVIATIONS",
    "ADDRESS",
    "AFTER_SENTENCE_END",
    "CALENDAR_WORDS",
    "CHUNK_SENTENCE_GAP",
    "CITATION",
    "CITATION_GROUP",
    "CITATION_RUN",
    "CITED_SENTENCE_GAP",
    "CLAUSE_END_GAP",
    "CLAUSE_GAP",
    "COUNT_WORDS",
    "CUT_CITATION",
    "DASHES",
    "DATE",
    "DAY_OF_MONTH",
    "DONT_KNOW",
    "ENDS_CLAUSE",
    "ENDS_SENTENCE_LINE",
    "FIGURE",
    "FIGURE_WORDS",
    "LATIN",
    "MULTI_DIGIT_NUMBER",
    "NOT_NAMES",
    "NUMBER",
    "NUMBER_CONTEXT_STOP_WORDS",
    "NUMBER_OR_WORD",
    "NUMERIC_CELL",
    "POINTING",
    "SENTENCE_END",
    "SENTENCE_GAP",
    "SENTENCE_GAP_BEFORE_CAPITAL",
    "SENTENCE_OR_LINE_GAP",
    "SOFT_BREAK",
    "STATEMENT_GAP",
    "STOP_AND_BLANK",
    "STOP_WORDS",
    "UNIT_WORDS",
    "WIDE_SENTENCE_GAP",
    "WORD",
    "WRAPPED_LINE",
    "YEAR",
    "YEAR_RANGE",
    "american",
    "asked_codes",
    "asked_months",
    "asked_numbers",
    "cell_amount",
    "cited_numbers",
    "claims",
    "content_stems",
    "dates",
    "fold",
    "grouped_citations",
    "holds_all",
    "holds_code",
    "holds_figure",
    "holds_month",
    "latin_share",
    "month_forms",
    "month_number",
    "month_year",
    "names_in",
    "number_key",
    "number_keys",
    "present",
    "present_misspelt",
    "quoted",
    "ranges",
    "repair",
    "runaway_citations",
    "spelled_out",
    "split_sentences",
    "stem",
    "stems",
    "worded_number_keys",
]
