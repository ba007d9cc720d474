"""Checks an answer against its sources: citations must name retrieved passages, and the names and
numbers the answer states must appear in the passages it cites.

Small local models invent names and numbers under RAG prompts (see NOTES.md); this catches the
common case cheaply. It is a heuristic, so a failing answer is flagged (and, by setting, replaced
by the cited passages), never silently dropped.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from core.evalmetrics import is_abstention
from service.answering.numbers import near_misses
from service.answering.prompts import DONT_KNOW, cited_numbers

_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*\d|(?<![\w.])\d(?![\w])")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_CITE = re.compile(r"\[\d{1,3}\]")
_POSSESSIVE = re.compile(r"['’]s$")  # "Okafor's role": the name is "Okafor"
# Capitalised words that start sentences or are common function words are not names.
_COMMON = {
    "a",
    "an",
    "the",
    "and",
    "or",
    "but",
    "if",
    "in",
    "on",
    "at",
    "by",
    "for",
    "of",
    "to",
    "from",
    "with",
    "as",
    "is",
    "was",
    "were",
    "are",
    "be",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "he",
    "she",
    "they",
    "we",
    "you",
    "i",
    "his",
    "her",
    "their",
    "our",
    "according",
    "yes",
    "no",
    "there",
    "however",
    "also",
    "after",
    "before",
    "during",
    "when",
    "where",
    "who",
    "what",
    "which",
    "why",
    "how",
    "source",
    "sources",
    "answer",
    "question",
    "note",
    "based",
}
# Clock and calendar words: an English answer states them about a passage that may write them in
# another script ("9 AM to 8 PM, closed Monday" for 上午9时至下午8时，周一闭馆); not names.
_CALENDAR = {
    "am", "pm", "a.m", "p.m", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december",
}  # fmt: skip
_LATIN = re.compile(r"[A-Za-z\u00C0-\u024F]")
_LETTER = re.compile(r"[^\W\d_]")
#: Below this share of Latin letters, the passages are in another script: names written in
#: Latin letters cannot be checked against them (numbers still are).
MIN_LATIN_SHARE = 0.3
#: Consecutive words an answer must share with the system prompt (and not with any passage) to
#: count as echoing one of its worked examples.
ECHO_GRAM = 4


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def claims(answer: str) -> list[str]:
    """The names and numbers an answer states: numbers, and capitalised words that do not open
    a sentence and are not common words."""
    text = _CITE.sub(" ", answer)
    found: list[str] = [m.group(0).rstrip(".,") for m in _NUMBER.finditer(text)]
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        words = list(_WORD.finditer(sentence))
        for i, m in enumerate(words):
            word = _POSSESSIVE.sub("", m.group(0)).strip("'’-")
            lowered = word.lower()
            if i == 0 or not word or not word[0].isupper() or lowered in _COMMON:
                continue
            if lowered.rstrip(".") in _CALENDAR:
                continue
            found.append(word)
    seen: list[str] = []
    for item in found:
        if item and item not in seen:
            seen.append(item)
    return seen


#: English words that cannot end a sentence: an answer ending in one stops before its content,
#: usually because the model put a citation where the fact belongs ("France is a region of [1].").
_DANGLING = {
    "a", "an", "the", "of", "to", "by", "from", "with", "into", "than", "and", "or", "as", "its",
    "their", "my", "your", "our",
}  # fmt: skip


def incomplete(answer: str) -> bool:
    """True when ``answer`` states nothing, however well its words match the passages: it is
    citations alone ("[1]"), or (citations removed) it ends on a word no English sentence ends
    on ("France is a region of [1].")."""
    text = _CITE.sub(" ", answer).strip().rstrip(".!?;:,\"'”’) ").strip()
    words = _WORD.findall(text)
    if not words and not _NUMBER.search(text):
        return bool(_CITE.search(answer))  # citations and nothing else: "[1]"
    if latin_share(text) < MIN_LATIN_SHARE:
        return False
    return bool(words) and words[-1].lower() in _DANGLING


def _bare(text: str) -> str:
    return " ".join(_WORD.findall(_fold(_CITE.sub(" ", text))))


def only_labels(answer: str, labels: Iterable[str]) -> bool:
    """True when ``answer``, citations and punctuation aside, is nothing but passage labels
    ("[1] doc.docx, section Policy"): the model copied the header of a passage, not its fact."""
    said = _bare(answer)
    if not said:
        return False
    bare = [_bare(label) for label in labels]
    return any(said == b for b in bare if b) or said == " ".join(b for b in bare if b)


def latin_share(text: str) -> float:
    """Share of the letters of ``text`` that are Latin (1.0 for no letters)."""
    letters = _LETTER.findall(text)
    if not letters:
        return 1.0
    return sum(bool(_LATIN.match(c)) for c in letters) / len(letters)


def names_in(question: str) -> list[str]:
    """The names a question asks about (``claims`` without numbers): "What is Helen Okafor's
    role?" -> ["Helen", "Okafor"]."""
    return [c for c in claims(question) if not c[0].isdigit()]


def holds_all(names: Iterable[str], text: str) -> bool:
    """True when ``text`` holds every one of ``names`` as a whole word (case and accents folded);
    False for no names."""
    folded = _fold(text)
    wanted = [_fold(n) for n in names]
    return bool(wanted) and all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", folded) for w in wanted)


def _present(claim: str, haystack: str) -> bool:
    folded = _fold(claim)
    if folded in haystack:
        return True
    digits = folded.replace(",", "")
    return bool(digits) and digits in haystack.replace(",", "")


@dataclass
class Grounding:
    """The verdict on one answer."""

    cited: list[int]
    invalid_citations: list[int] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    declined: bool = False
    #: Claims found only in passages the answer did not cite (a wrong number, not invention).
    miscited: list[str] = field(default_factory=list)
    #: The answer echoes a worked example of the system prompt (see ``echoed_example``).
    echoed_example: bool = False
    #: Numbers the cited passage holds but gives for something else (service/numbers.py).
    near_misses: list[str] = field(default_factory=list)
    #: The answer stops before its content (see ``incomplete``).
    incomplete: bool = False
    #: Names or numbers the question asks about that the answer states but no passage holds
    #: ("sample W-09" when the table stops at W-05, "in 2015" when the report gives no year):
    #: the answer is about something the documents do not mention.
    unmentioned: list[str] = field(default_factory=list)

    @property
    def grounded(self) -> bool:
        """True when the answer declined, or cites passages and every claim is in them."""
        if self.echoed_example:
            return False
        if self.declined:
            return True
        return (
            bool(self.cited)
            and not self.unsupported
            and not self.invalid_citations
            and not self.near_misses
            and not self.incomplete
            and not self.unmentioned
        )

    @property
    def uncited(self) -> bool:
        """True for an answer that states something without citing any passage."""
        return not self.declined and not self.cited

    def as_dict(self) -> dict[str, object]:
        """JSON-ready verdict."""
        return {
            "grounded": self.grounded,
            "cited": self.cited,
            "invalid_citations": self.invalid_citations,
            "unsupported": self.unsupported,
            "declined": self.declined,
            "near_misses": self.near_misses,
            "miscited": self.miscited,
            "uncited": self.uncited,
            "echoed_example": self.echoed_example,
            "incomplete": self.incomplete,
            "unmentioned": self.unmentioned,
        }


def _grams(text: str, n: int = ECHO_GRAM) -> set[tuple[str, ...]]:
    words = _fold(_CITE.sub(" ", text)).split()
    words = [w.strip(".,;:!?\"'()[]") for w in words]
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def echoed_example(answer: str, system: str, passages: dict[int, str]) -> bool:
    """True when the answer repeats text of the system prompt (its worked examples) that no
    passage holds: ``ECHO_GRAM`` consecutive words, at least one of them a name or number the
    passages do not hold, or two such word runs. Small models copy a template's example
    ("The Zorbin valve was patented by Ada Quell in 1911") when the passages confuse them."""
    if not system or is_abstention(answer):
        return False
    joined = " ".join(passages.values())
    echoed = (_grams(answer) & _grams(system)) - _grams(joined)
    if not echoed:
        return False
    haystack = _fold(joined)
    foreign = {_fold(c) for c in claims(answer) if not _present(c, haystack)}
    named = any(foreign & set(gram) for gram in echoed)
    return named or len(echoed) >= 2


def check(
    answer: str,
    passages: dict[int, str],
    system: str = "",
    question: str = "",
    labels: dict[int, str] | None = None,
) -> Grounding:
    """Judge ``answer`` against the retrieved passages (number -> text); with the prompt's
    ``system`` text, an answer echoing its worked examples is marked ``echoed_example``;
    ``question`` sharpens the near-miss check of the answer's numbers (service/numbers.py);
    with the passages' ``labels`` (number -> "file, page 2"), an answer that only repeats a
    label is ``incomplete``; a name or number of the ``question`` that the answer states and no
    passage holds is ``unmentioned``."""
    numbers = cited_numbers(answer)
    valid = [n for n in numbers if n in passages]
    invalid = [n for n in numbers if n not in passages]
    if echoed_example(answer, system.replace(DONT_KNOW, " "), passages):
        return Grounding(valid, invalid, [], echoed_example=True)
    if DONT_KNOW.lower().rstrip(".") in answer.lower() or not answer.strip():
        return Grounding(valid, invalid, [], declined=True)
    # Claims are checked against the cited passages; an uncited answer against all of them. A
    # name found only in another retrieved passage is miscited, not invented (a number there is
    # still unsupported: it usually belongs to another fact).
    pool = [passages[n] for n in valid] or list(passages.values())
    haystack = _fold(" ".join(pool))
    everything = _fold(" ".join(passages.values()))
    latin = latin_share(" ".join(pool)) >= MIN_LATIN_SHARE
    unsupported: list[str] = []
    miscited: list[str] = []
    for c in claims(answer):
        if _present(c, haystack):
            continue
        if not _NUMBER.fullmatch(c) and _present(c, everything):
            miscited.append(c)
        elif latin or not _LATIN.search(c) or _NUMBER.fullmatch(c):
            unsupported.append(c)
    asked = {_fold(c) for c in claims(question)}
    found = [c for c in claims(answer) if _fold(c) in asked and not _present(c, everything)]
    unmentioned = [c for c in found if not any(c != o and c in o for o in found)]  # not "09"
    misses: list[str] = []
    for n in valid:
        misses += [x for x in near_misses(answer, passages[n], question) if x not in misses]
    return Grounding(
        valid,
        invalid,
        unsupported,
        miscited=miscited,
        near_misses=misses,
        incomplete=incomplete(answer) or only_labels(answer, (labels or {}).values()),
        unmentioned=unmentioned,
    )


def recite(answer: str, passages: dict[int, str], cited: list[int]) -> str:
    """The answer citing the passage that holds what it states, when the passages it cites do
    not: each citation is pointed at the first passage (in rank order) that holds every name and
    number of the answer. The 1.5B often writes "[2]" for a fact of passage [1]. Unchanged when
    nothing is cited, the answer states nothing checkable, a cited passage holds it all, or no
    one passage does (an answer combining two passages keeps its citations)."""
    said = claims(answer)
    if not said or not cited:
        return answer

    def holds(n: int) -> bool:
        haystack = _fold(passages[n])
        return all(_present(c, haystack) for c in said)

    if any(holds(n) for n in cited if n in passages):
        return answer
    holders = [n for n in sorted(passages) if holds(n)]
    if not holders:
        return answer
    return _CITE.sub(
        lambda m: f"[{holders[0]}]" if int(m.group(0)[1:-1]) in cited else m.group(0), answer
    )


def strip_invalid(answer: str, invalid: list[int]) -> str:
    """The answer without citation markers that name no retrieved passage."""
    for n in invalid:
        answer = answer.replace(f"[{n}]", "")
    return re.sub(r"\s+([.,;:])", r"\1", answer).strip()
