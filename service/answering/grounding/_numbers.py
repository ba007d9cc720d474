"""Near-miss numbers: an answer's number checked against the cited passage's numbers in context.

A number the passage holds can still be the wrong one: "4.28" for 2025's revenue when the passage
says "4.82 million in 2025, up from 4.28 million in 2024", or the price of the next row of a table.
Each number of the passage is taken with its context (the words and numbers of its clause, and
for a table row the row's first cell; the rest of its sentence at half weight), each word weighed
by how rare it is in the passage (idf). A
number in the answer is a near miss when another number of the passage, of the same kind (same
count of digits), fits the answer's context (the answer's sentence and the question) better than
any occurrence of the number itself.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from core.text import (
    CITATION,
    CLAUSE_GAP,
    ENDS_SENTENCE_LINE,
    NUMBER,
    NUMBER_CONTEXT_STOP_WORDS,
    NUMBER_OR_WORD,
    SENTENCE_OR_LINE_GAP,
    UNIT_WORDS,
    YEAR_RANGE,
    dates,
    fold,
    number_key,
    spelled_out,
    split_sentences,
    stem,
)

#: What a number inside a date is, as the stems a question or answer asks for it by.
_DATE_WORDS = ("date", "year", "month", "day")
#: How much better (in idf-weighted words) another number must fit before this one is flagged.
MARGIN = 0.5


def _tokens(text: str) -> set[str]:
    """Numbers (as ``number_key``) and the English stems of the other words, stop words out, and
    of the words abbreviations before a figure stand for (``spelled_out``)."""
    out = {stem(word) for word in spelled_out(text)}  # "Bill no. 3139": number
    for tok in NUMBER_OR_WORD.findall(fold(text)):
        if NUMBER.fullmatch(tok):
            out.add(number_key(tok))
        elif tok not in NUMBER_CONTEXT_STOP_WORDS and len(tok) > 1:
            out.add(stem(tok))
    return out


#: A line of wrapped prose is at least this long (an e-mail wraps at 72 characters).
WRAPPED_MIN = 60
#: A sentence ending on initials ("JUMA PARTICIPAÇÕES S.A.", "J. R."): it goes on.
_INITIALS_END = re.compile(r"(?:\b[A-Z]\.)+$")


def _unwrapped(passage: str) -> list[str]:
    """The passage's lines, a line of wrapped prose (``WRAPPED_MIN`` characters or more, no
    table cells, not ending a sentence) joined to the next: "... GNOME Print\n(0.25) and ORBit
    (0.5.6)." of a plain-text e-mail is one sentence (held-out dev h1043)."""
    lines: list[str] = []
    for line in passage.split("\n"):
        last = lines[-1] if lines else ""
        if (
            len(last) >= WRAPPED_MIN
            and line.strip()
            and " | " not in last + line
            and not ENDS_SENTENCE_LINE.search(last)
        ):
            lines[-1] = f"{last.rstrip()} {line.strip()}"
        else:
            lines.append(line)
    return lines


def _sentences(line: str) -> list[str]:
    """``split_sentences``, a sentence ending on initials joined to the next ("JUMA
    PARTICIPAÇÕES S.A. 678003 10.000,00" is one row: held-out dev h1013)."""
    out: list[str] = []
    for sentence in split_sentences(line):
        if out and _INITIALS_END.search(out[-1]):
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def _contexts(passage: str) -> list[tuple[str, dict[str, float]]]:
    """(number, context token -> weight) for every number of the passage: its clause's tokens
    (and a table row's first cell) weigh 1, the rest of its sentence 0.5; wrapped lines of
    prose are read as one (``_unwrapped``)."""
    found: list[tuple[str, dict[str, float]]] = []
    for line in _unwrapped(passage):
        cells = line.split(" | ")
        row_key = _tokens(cells[0]) if len(cells) > 1 else set()
        for sentence in _sentences(line):  # "Bill No. 3139" stays one sentence
            around = _tokens(sentence) if not row_key else set()  # a row's cells stand alone
            for clause in CLAUSE_GAP.split(sentence):
                words = _tokens(clause) | row_key
                weights = {t: (1.0 if t in words else 0.5) for t in words | around}
                spans = [(at, at + len(written)) for written, _, at in dates(clause)]
                for m in NUMBER.finditer(clause):
                    in_date = any(a <= m.start() < b for a, b in spans)
                    # a date's parts are its year, month and day ("Date: Mon, 01 Jul 1996"
                    # gives the year 1996 asked for: held-out batch 5 dev h537)
                    own = weights | dict.fromkeys(_DATE_WORDS, 1.0) if in_date else weights
                    found.append((number_key(m.group(0)), own))
    return found


def _own_numbers(sentence: str) -> list[re.Match[str]]:
    """The numbers of an answer's sentence to judge: not the years of a range or season it
    writes ("the 1991–92 season" states a season, not the numbers 1991 and 92)."""
    spans = [(m.start(), m.end()) for m in YEAR_RANGE.finditer(sentence)]
    return [m for m in NUMBER.finditer(sentence) if not any(a <= m.start() < b for a, b in spans)]


def _digits(key: str) -> int:
    return sum(c.isdigit() for c in key)


def near_misses(answer: str, passage: str, question: str = "") -> list[str]:
    """Numbers of ``answer`` that the passage gives, but where another of its numbers fits the
    answer's context better: ``"4.28 (the passage has 4.82 there)"``; empty when none."""
    contexts = _contexts(passage)
    if not contexts:
        return []
    df = Counter(tok for _, words in contexts for tok in words)
    n = len(contexts)

    def fit(ctx: set[str], words: dict[str, float], skip: set[str]) -> float:
        return sum(words[t] * math.log(1 + n / df[t]) for t in (ctx & words.keys()) - skip)

    flagged: list[str] = []
    question_words = _tokens(question)
    for sentence in SENTENCE_OR_LINE_GAP.split(answer):
        for m in _own_numbers(sentence):
            key = number_key(m.group(0))
            own = [words for k, words in contexts if k == key]
            if not own or key in question_words:
                continue  # not in the passage (the grounding check's business), or asked about
            ctx = _tokens(sentence) | question_words
            best_own = max(fit(ctx, w, {key}) for w in own)
            rivals = [
                (fit(ctx, w, {key, k}), k)
                for k, w in contexts
                if k != key and _digits(k) == _digits(key) and k not in ctx
            ]
            if rivals:
                score, rival = max(rivals)
                if score > best_own + MARGIN:
                    flagged.append(f"{m.group(0)} (the passage has {rival} there)")
    return flagged


def unbound(answer: str, passages: list[str], question: str = "") -> list[str]:
    """Numbers of ``answer`` that the passages hold only for something else: no occurrence's
    context (see ``_contexts``) shares a word with the answer's sentence or the question, units
    and scale words (``UNIT_WORDS``) aside. "The bananas cost 1.85" from a receipt whose 1.85 is
    on the line "Oat milk 1.85" gives ``["1.85 (the passages give it for something else)"]``;
    "vitamin D was 14.2 g/dL" from the line "Hemoglobin 14.2 g/dL" is flagged the same way.
    Numbers the question states, and numbers no passage holds (the grounding check's business),
    and numbers standing alone on a line, or with only their unit (a table whose cells lost their
    row; "`1,186 crore" under its heading), are not judged."""
    contexts = [c for passage in passages for c in _contexts(passage)]
    question_words = _tokens(question)
    flagged: list[str] = other_rows(answer, passages, question)
    for sentence in SENTENCE_OR_LINE_GAP.split(CITATION.sub(" ", answer)):
        for m in _own_numbers(sentence):
            key = number_key(m.group(0))
            own = [words for k, words in contexts if k == key]
            alone = any(words.keys() - UNIT_WORDS <= {key} for words in own)
            if not own or key in question_words or alone:
                continue  # not held, asked about, or held alone on a line: nothing to judge by
            said = (_tokens(sentence) | question_words) - {key} - UNIT_WORDS
            if not any(said & words.keys() for words in own) and not any(
                f.startswith(m.group(0) + " ") for f in flagged
            ):
                flagged.append(f"{m.group(0)} (the passages give it for something else)")
    return flagged


#: A number the question puts before a noun, or two joined by "and": a condition on the row
#: ("with 8 encoder and 8 decoder layers", "8 encoder and decoder layers", "3 bedrooms").
_COUNT_OF = re.compile(
    r"(?<![\w.,])(\d+(?:\.\d+)?)\s+([A-Za-z][A-Za-z-]{2,})(?:\s+and\s+([A-Za-z][A-Za-z-]{2,}))?"
)
_YEAR = re.compile(r"(?:1[89]|20)\d\d")
#: The shortest column-name word that may stand for a question's word it starts ("enc" for
#: "encoder").
_MIN_STEM = 3


def _conditions(question: str) -> list[tuple[str, str]]:
    """(number key, folded noun) for each number the question puts before a noun (a year is no
    condition on a row)."""
    found = []
    for m in _COUNT_OF.finditer(question):
        if _YEAR.fullmatch(m.group(1)):
            continue
        for noun in filter(None, (m.group(2), m.group(3))):
            if fold(noun) not in NUMBER_CONTEXT_STOP_WORDS:
                found.append((number_key(m.group(1)), fold(noun)))
    return list(dict.fromkeys(found))


def _names(header: str, noun: str) -> bool:
    """Whether a column's ``header`` names the question's ``noun`` ("# enc-layers" names
    "encoder"; "Rooms" names "rooms")."""
    return any(
        len(word) >= _MIN_STEM and (noun.startswith(word) or word.startswith(noun))
        for word in re.findall(r"[a-z]+", fold(header))
    )


def other_rows(answer: str, passages: list[str], question: str) -> list[str]:
    """Numbers of ``answer`` that the passages hold only in table rows (``"Name: value | ..."``)
    whose cell for a condition of the question holds another number: "OTSL's inference time
    with 8 encoder and 8 decoder layers was 1.22" from the row "# enc-layers: 4 | # dec-layers:
    2 | ... | Inference time (secs): 1.22" (held-out dev h026, an unanswerable near miss) gives
    ``["1.22 (its row has # enc-layers: 4, the question 8)"]``. A number held anywhere else, or
    in a row that meets every condition, is not flagged."""
    conditions = _conditions(question)
    if not conditions:
        return []
    rows = [
        [cell.partition(": ")[::2] for cell in line.split(" | ")]
        for passage in passages
        for line in passage.split("\n")
    ]
    asked = {key for key, _ in conditions}
    flagged: list[str] = []
    for m in _own_numbers(CITATION.sub(" ", answer)):
        key = number_key(m.group(0))
        if key in asked:
            continue
        holding = [row for row in rows if any(_holds(value, key) for _, value in row)]
        if not holding or any(len(row) < 2 for row in holding):
            continue  # held outside a table's row, or nowhere: not this check's business
        reasons = [_unmet(row, conditions) for row in holding]
        if all(reasons):
            flagged.append(f"{m.group(0)} (its row has {reasons[0]})")
    return flagged


def _holds(value: str, key: str) -> bool:
    return any(number_key(n.group(0)) == key for n in NUMBER.finditer(value))


def _unmet(row: list[tuple[str, str]], conditions: list[tuple[str, str]]) -> str:
    """The first cell of ``row`` naming a condition's noun with a number that is not the
    condition's ("# enc-layers: 4, the question 8"); empty when the row meets them all."""
    for key, noun in conditions:
        cells = [(h, v) for h, v in row if h and _names(h, noun) and NUMBER.fullmatch(v.strip())]
        if cells and not any(number_key(v.strip()) == key for _, v in cells):
            header, value = cells[0]
            return f"{header}: {value.strip()}, the question {key}"
    return ""
