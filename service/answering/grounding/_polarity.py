"""A yes/no question answered "Yes" where the passage's own sentence about it says "not".

Small models lean to "Yes": asked "Is Lorem Ipsum simply random text?" over a passage that says
"Contrary to popular belief, Lorem Ipsum is not simply random text", the 1.5B replies "Yes".
The sentence of the passages holding most of the question's content words (at least
``MIN_SHARE`` of them; sentences that hold as many and disagree decide nothing) decides: when
its clause holding most of those words has a negation ("not", "never", "cannot", "n't", ...)
among them or just before the first, and no other clause about them negates, the passage
answers "No", and Hearth says so with the sentence quoted and cited (``grounding.polarity``),
whatever the reply said. A clause that concedes or excepts ("although", "but", "except"), a
hedge ("not always", "no longer"), "not only", a title's capital ("Never Go Back") or a name's
"no" decide nothing. It never turns a "No" into a "Yes": a sentence without a negation may
still not affirm what was asked. Precision on BoolQ's held-out half: bench/polarity.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text import WORD, content_stems, fold, quoted, split_sentences

#: A question asking yes or no: it opens with an auxiliary verb.
_YES_NO = re.compile(
    r"^\s*(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should|shall|may|"
    r"must|might)\b",
    re.IGNORECASE,
)
#: "Is it A or B?" asks which, not whether.
_CHOICE = re.compile(r"\bor\b", re.IGNORECASE)
#: A reply that says yes.
_YES = re.compile(r"^\W*yes\b", re.IGNORECASE)
#: Words that negate what follows them (folded text, apostrophes as written).
_NEGATIONS = frozenset(
    {"not", "no", "never", "cannot", "neither", "nor", "none", "nothing", "nobody", "nowhere"}
)
#: "not only", "not just" add; "not always", "not necessarily" hedge: neither answers "No".
_NOT_NEGATING_AFTER = frozenset(
    {"only", "just", "merely", "least", "always", "necessarily", "usually", "all", "entirely",
     "exactly", "quite", "longer"}
)  # fmt: skip
#: A sentence that concedes or excepts ("Although X does not ..., Y has ...", "..., but ...",
#: "with the exception of") answers both ways: it decides nothing.
_CONCESSIONS = frozenset(
    {"although", "though", "but", "however", "while", "whereas", "except", "exception",
     "unless", "despite", "nevertheless", "yet"}
)  # fmt: skip
#: Where a sentence's clauses part.
_CLAUSE_GAP = re.compile(r"[,;:()]|\s[–—-]\s")
#: The share of the question's content stems the deciding sentence must hold.
MIN_SHARE = 0.6
#: How many words before the first of the question's words a negation may stand ("Nobody has
#: ever climbed ..."; "It is not true that ...").
_LEAD = 3


@dataclass(frozen=True)
class Polarity:
    """The passage sentence that answers a yes/no question "No": ``passage`` its number,
    ``sentence`` as the passage writes it."""

    passage: int
    sentence: str

    def text(self) -> str:
        """The answer shown: "No", and the sentence that says so, quoted and cited."""
        return f"No. The passage says: “{quoted(self.sentence.strip())}” [{self.passage}]"

    def record(self) -> str:
        """The verdict's record: ``"[2] negates: <sentence>"``."""
        return f"[{self.passage}] negates: {self.sentence.strip()[:200]}"


def _words(text: str) -> list[str]:
    """The words of ``text`` as written (case kept: a capital tells a title's "Never" apart)."""
    return [w.strip("'’-") for w in WORD.findall(text)]


def _is_negation(words: list[str], i: int) -> bool:
    word = words[i]
    low = fold(word)
    if low.endswith(("n't", "n’t")):
        return True
    if low not in _NEGATIONS:
        return False
    if i > 0 and word[:1].isupper():  # a title's word: "Never Go Back", "No Way Out"
        return False
    after = words[i + 1] if i + 1 < len(words) else ""
    if low == "no" and after[:1].isupper():  # a name's word: "Kōtetsujō no Kabaneri"
        return False
    return fold(after) not in _NOT_NEGATING_AFTER


def _clauses(sentence: str) -> list[list[str]]:
    """``sentence``'s clauses as word lists: cut at commas, semicolons, colons and dashes, and
    before a word that concedes or excepts (which opens the clause it starts)."""
    clauses: list[list[str]] = []
    for part in _CLAUSE_GAP.split(sentence):
        words = _words(part)
        current: list[str] = []
        for word in words:
            if fold(word) in _CONCESSIONS and current:
                clauses.append(current)
                current = []
            current.append(word)
        if current:
            clauses.append(current)
    return clauses


def _negated(sentence: str, asked: set[str]) -> bool:
    """The clause of ``sentence`` holding most of the question's words (alone: a tie between
    clauses decides nothing) has a negation among those words or just before them, it is the
    only negation of the clauses that hold any of them, and the clause is not a conceded or
    excepted one ("although X does not ...", "except ...")."""
    scored = []
    for words in _clauses(sentence):
        held = [content_stems(w) & asked for w in words]
        hits = [i for i, stems in enumerate(held) if stems]
        scored.append((len(set().union(*held)), words, hits))
    scored.sort(key=lambda t: -t[0])
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return False
    _, words, hits = scored[0]
    if fold(words[0]) in _CONCESSIONS:
        return False
    # one negation in all the clauses that speak of the question: "an error that does not
    # allow ..., does not spoil a perfect game" negates twice and answers nothing plainly
    negations = sum(
        _is_negation(clause, i) for n, clause, _ in scored if n for i in range(len(clause))
    )
    start = max(0, hits[0] - _LEAD)
    return negations == 1 and any(_is_negation(words, i) for i in range(start, hits[-1] + 1))


def polarity(question: str, reply: str, passages: dict[int, str]) -> Polarity | None:
    """The sentence that answers ``question`` "No" when ``reply`` says "Yes"; None otherwise.

    ``passages`` maps passage numbers to texts (the whole chunks: fitting may have cut the
    sentence). Fires only on a yes/no question with no negation and no "or" of its own, two
    or more content words, a reply opening with "Yes", and one sentence holding more of the
    question's content words (>= ``MIN_SHARE``) than any other; ties between sentences that
    disagree decide nothing.
    """
    if not _YES_NO.match(question) or not _YES.match(reply) or _CHOICE.search(question):
        return None
    words = [fold(w) for w in _words(question)]
    if any(_is_negation(words, i) for i in range(len(words))):
        return None
    asked = content_stems(question)
    if len(asked) < 2:
        return None
    best: list[tuple[int, str]] = []
    best_share = MIN_SHARE
    for number, text in passages.items():
        for sentence in split_sentences(text):
            share = len(asked & content_stems(sentence)) / len(asked)
            if share > best_share + 1e-9:
                best, best_share = [(number, sentence)], share
            elif abs(share - best_share) <= 1e-9 and share >= MIN_SHARE:
                best.append((number, sentence))
    if not best:
        return None
    verdicts = {_negated(sentence, asked) for _, sentence in best}
    if verdicts != {True}:
        return None
    number, sentence = best[0]
    return Polarity(number, sentence)
