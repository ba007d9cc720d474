"""Checks an answer against its sources: citations must name retrieved passages, and the names and
numbers the answer states must appear in the passages it cites.

Small local models invent names and numbers under RAG prompts (see NOTES.md); this catches the
common case cheaply. It is a heuristic, so a failing answer is flagged (and, by setting, replaced
by the cited passages), never silently dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from core.evalmetrics import DONT_KNOW, is_abstention
from core.provenance import WHERE_ON_PAGE
from core.text import (
    CITATION,
    CITED_SENTENCE_GAP,
    LATIN,
    NUMBER,
    POINTING,
    SENTENCE_GAP,
    STOP_WORDS,
    WORD,
    asked_codes,
    asked_months,
    asked_numbers,
    cited_numbers,
    claims,
    content_stems,
    dates,
    fold,
    grouped_citations,
    holds_all,
    holds_code,
    holds_figure,
    holds_month,
    latin_share,
    names_in,
    number_key,
    present,
    present_misspelt,
)
from service.answering.grounding._numbers import near_misses, unbound
from service.answering.grounding._references import languages_held, references
from service.answering.grounding._relations import unlinked
from service.answering.grounding._written import derived

#: Below this share of Latin letters, the passages are in another script: names written in
#: Latin letters cannot be checked against them (numbers still are).
MIN_LATIN_SHARE = 0.3
#: Consecutive words an answer must share with the system prompt (and not with any passage) to
#: count as echoing one of its worked examples.
ECHO_GRAM = 4


#: English words that cannot end a sentence: an answer ending in one stops before its content,
#: usually because the model put a citation where the fact belongs ("France is a region of [1].").
_DANGLING = {
    "a", "an", "the", "of", "to", "by", "from", "with", "into", "than", "and", "or", "as", "its",
    "their", "my", "your", "our",
}  # fmt: skip


#: Words a sentence's verb leaves its fact to: a citation right after one stands where the fact
#: belongs ("The new password was [1].").
_COPULAS = {"is", "was", "are", "were", "be", "been", "include", "includes", "contains"}
_YES_NO = {"yes", "no", "not"}


def incomplete(answer: str) -> bool:
    """True when ``answer`` states nothing, however well its words match the passages: it is
    citations alone ("[1]"), it ends (citations removed) on a word no English sentence ends on
    ("France is a region of [1].", "It was given to the [1]"), or a sentence's citation stands
    right after its verb, where the fact belongs ("The name of the file attached is [1]."; not
    "Yes, it is [1]."). Words pointing at a source before its citation ("according to [1]",
    "as stated in [1] and [2]") are no missing fact."""
    answer = grouped_citations(answer)
    text = _stripped(answer)
    words = WORD.findall(text)
    if not words and not NUMBER.search(text):
        return bool(CITATION.search(answer))  # citations and nothing else: "[1]"
    if latin_share(text) < MIN_LATIN_SHARE:
        return False
    if dangling(answer):
        return True
    for sentence in SENTENCE_GAP.split(answer):
        before = sentence.split("[", 1)[0] if CITATION.search(sentence) else ""
        said = [w.strip(".,;:!?\"'()").lower() for w in before.split()]
        after = CITATION.sub("", sentence[len(before) :]).strip(" .!?;:,")
        if said and not after and said[-1] in _COPULAS and not _YES_NO & set(said[:2]):
            return True
    return False


def _stripped(answer: str) -> str:
    """``answer`` without its citations, the words pointing at a source and its closing marks.
    The pointing words go for the last word ("..., according to [1]."), not for a verb's
    citation ("This is stated in [1]." is no "This is [1].")."""
    text = CITATION.sub(" ", POINTING.sub("", grouped_citations(answer)))
    return text.strip().rstrip(".!?;:,\"'”’) ").strip()


def dangling(answer: str) -> bool:
    """True when ``answer``, its citations and words pointing at a source removed, ends on a
    word no English sentence ends on ("France is a region of [1]."): the model had no fact to
    give (SQuAD 2.0's unanswerable "What is France a region of?"), unlike a citation after a
    verb ("The bill number is [2]."), where it usually had one. Part of ``incomplete``."""
    text = _stripped(answer)
    # The text's last token, numbers included: "trained with a batch size of 128" ends on its
    # fact, not on "of" (WORD leaves numbers out).
    tokens = text.split()
    return bool(WORD.findall(text)) and tokens[-1].lower() in _DANGLING


#: Words of a question offering its answer among others: "Zone NA or Zone EUR?", "whether".
_CHOICE = re.compile(r"\b(?:or|whether|either)\b", re.IGNORECASE)
#: A token holding a digit: a number or a code ("2010", "2C", "W-09").
_DIGITS = re.compile(r"\w*\d\w*(?:[.,/-]\w+)*")
#: What a question asks for of a name: the word after its possessive ("Microsoft's ISIN") or
#: between "the" and "of" ("the ISIN of Microsoft").
_ASKED_FOR = re.compile(r"['’]s\s+([\w-]+)|\bthe\s+([\w-]+)\s+of\b", re.IGNORECASE)


def only_question(answer: str, question: str) -> bool:
    """True when ``answer``, citations aside, says nothing its question did not: every content
    word and number is the question's, and it restates all the question's names ("What is the
    name of the course Slava failed?" -> "Slava [1]"; "In FFP systems, what kind of object is a
    cell?" -> "A cell is an object in FFP systems."; words pointing at a source, "according to
    [1]", say nothing). Never for a reply opening on yes or no, a
    question offering a choice ("A or B", "whether"), nor an answer naming some of the
    question's names but not all: it may have picked one ("When ALICE calls a procedure owned
    by JOE that adopts JOE's authority, what value does CURRENT USER hold?" -> "JOE"), unless
    the names it gives are only what the question asks for of another ("What is Microsoft's
    ISIN?" -> "ISIN [2]"). Part of ``incomplete``."""
    text = CITATION.sub(" ", POINTING.sub(" ", answer))  # "... according to [1]."
    said = content_stems(text)
    words = WORD.findall(fold(text))
    if not question or not said or _CHOICE.search(question) or _YES_NO & set(words[:1]):
        return False
    if set(_DIGITS.findall(fold(text))) - set(_DIGITS.findall(fold(question))):
        return False  # a number or a code of its own: "... is in Group 2C."
    asked_names = names_in(question)
    wanted = {fold(w) for m in _ASKED_FOR.finditer(question) for w in m.groups() if w}
    named = {w for w in words if w not in STOP_WORDS}
    if asked_names and not holds_all(asked_names, text) and not (named and named <= wanted):
        return False  # it may have picked one of the names, unless it gave what was asked for
    return said <= content_stems(question)


#: A question asking for a count, an amount, a year or a share: its answer holds a figure.
_ASKS_FIGURE = re.compile(
    r"\b(?:how\s+many|how\s+much|(?:what|which)\s+year|(?:what|which)\s+percent(?:age)?)\b",
    re.IGNORECASE,
)


def no_figure(answer: str, question: str) -> bool:
    """True when ``question`` asks how many, how much, which year or what percentage and
    ``answer``, citations aside, holds no figure, written in digits or in words ("none",
    "twice", "a dozen"): it names what was asked about, not the amount ("[1] Kentucky [2]",
    "[1] CSR contribution [2]", a copied label and a caption for "In what year was the bob-run
    built?": held-out dev h219, h045, h074). Part of ``incomplete``."""
    if not _ASKS_FIGURE.search(question):
        return False
    text = CITATION.sub(" ", answer)
    return not holds_figure(text) and not is_abstention(text)


def states_nothing(answer: str, question: str = "", labels: Iterable[str] = ()) -> bool:
    """True when ``answer`` states no fact (``Grounding.incomplete``): citations where the
    fact belongs (``incomplete``), a copied passage label (``only_labels``), nothing the
    ``question`` did not say (``only_question``), or no figure for a question asking for one
    (``no_figure``)."""
    return (
        incomplete(answer)
        or only_labels(answer, labels, question)
        or only_question(answer, question)
        or no_figure(answer, question)
    )


def _bare(text: str) -> str:
    return " ".join(WORD.findall(fold(CITATION.sub(" ", text))))


#: Words of a question asking for a document's name: a label is then the answer.
_ASKS_NAME = {"file", "attachment", "attached", "document", "title", "called", "named", "filename"}


#: Words before the parts saying where, at most, in a reply shaped like a label.
_LABEL_NAME_WORDS = 6


def label_shaped(answer: str) -> bool:
    """True when ``answer``, citations aside, is shaped like a passage label of a photo or scan:
    a short name then only its page and box ("Robert Schneider AG, page 2, box (119, 103)–(942,
    486)": held-out dev h160). A page alone may be an answer ("page 2"), and a recording's
    label names its speaker ("Maria, 1:05–1:20"): neither is shaped like one here."""
    head, _, where = CITATION.sub(" ", answer).strip().partition(",")
    if not where or len(head.split()) > _LABEL_NAME_WORDS or "box" not in where:
        return False
    return WHERE_ON_PAGE.sub("", where).replace(",", "").strip(" .") == ""


def only_labels(answer: str, labels: Iterable[str], question: str = "") -> bool:
    """True when ``answer``, citations and punctuation aside, is nothing but passage labels
    ("[1] doc.docx, section Policy"), a label's file name, or shaped like one
    (``label_shaped``): the model copied the
    header of a passage, not its fact; never for a question asking for a file's or document's
    name ("What is the file attached called?"), which a label answers."""
    said = _bare(answer)
    if not said or _ASKS_NAME & set(WORD.findall(fold(question))):
        return False
    if label_shaped(answer):
        return True
    labels = list(labels)
    bare = [_bare(label) for label in labels]
    # the label's file name alone ("[1] Mime-multi-to-cc-bcc.eml" for "mime-multi-to-cc-bcc.eml,
    # message “Example Plain-Text MIME Message” from ...": held-out dev h084)
    names = {_bare(label.split(", ", 1)[0]) for label in labels}
    return (
        any(said == b for b in bare if b)
        or said == " ".join(b for b in bare if b)
        or said in names - {""}
    )


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
    #: ("sample W-09" when the table stops at W-05, "in 2015" when the report gives no year), and
    #: numbers the question asks about that no passage holds ("vans in 2027" answered with
    #: today's fleet): the answer is about something the documents do not mention.
    unmentioned: list[str] = field(default_factory=list)
    #: Names the answer ties to a name of the question that no passage ties to it
    #: (service/answering/relations.py): "Costa with Meadow".
    unlinked: list[str] = field(default_factory=list)
    #: Numbers the passages give only for something else (service/answering/numbers.py):
    #: "1.85" for bananas from a receipt whose 1.85 is the oat milk.
    unbound: list[str] = field(default_factory=list)
    #: The model cited nothing; the citation was given by the check to the passage holding
    #: what the answer states (service/answering/attribution.py).
    attributed: bool = False
    #: Differences Hearth computed from two cited numbers instead of the model's reply
    #: (grounding/_arithmetic.py): ``["1966 - 1914 = 52 years"]``.
    computed: list[str] = field(default_factory=list)
    #: A "Yes" Hearth replaced by "No" because the passage sentence about the question negates
    #: it (grounding/_polarity.py): ``["[2] negates: Lorem Ipsum is not simply random text."]``.
    polarity: list[str] = field(default_factory=list)
    #: Numbers of two or more digits the answer states that no passage given holds (nor its
    #: whole chunk, nor its label), and the question does not state (``invented``): "built in
    #: 1894" from a book that gives no year.
    invented: list[str] = field(default_factory=list)
    #: Sums the reply wrote out from numbers the passages hold, computed again by Hearth and
    #: found right (grounding/_written.py): ``["$2.95 - $2.40 = $0.55"]``; their results are
    #: no claims a passage must hold.
    checked: list[str] = field(default_factory=list)
    #: The date Hearth read for a "when" question instead of the reply's (grounding/_dates.py):
    #: ``["[1] January 23, 2023 (the reply said May 5, 2023)"]``.
    dated: list[str] = field(default_factory=list)

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
            and not self.unlinked
            and not self.unbound
            and not self.invented
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
            "unlinked": self.unlinked,
            "unbound": self.unbound,
            "invented": self.invented,
            "attributed": self.attributed,
            "computed": self.computed,
            "polarity": self.polarity,
            "dated": self.dated,
            "checked": self.checked,
        }


def _grams(text: str, n: int = ECHO_GRAM) -> set[tuple[str, ...]]:
    words = fold(CITATION.sub(" ", text)).split()
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
    haystack = fold(joined)
    foreign = {fold(c) for c in claims(answer) if not present(c, haystack)}
    named = any(foreign & set(gram) for gram in echoed)
    return named or len(echoed) >= 2


def invented(answer: str, texts: Iterable[str], question: str = "") -> list[str]:
    """Numbers of two or more digits ``answer`` states that none of ``texts`` holds (the
    passages, their whole chunks, their labels: written any way ``present`` reads, or the same
    day for a date), leaving out numbers the ``question`` states; one-digit numbers (counts and
    list items, often written as words) are not judged. Held-out dev: "The St. Moritz bob-run
    was first built in 1894" and "100 kg" from a book that gives neither."""
    joined = " ".join(texts)
    haystack = fold(joined)
    days = {d for _, d, _ in dates(joined)}
    asked = {fold(c) for c in claims(question)}
    stated = CITATION.sub(" ", answer)
    in_dates = {fold(n) for w, d, _ in dates(stated) if d in days for n in NUMBER.findall(w)}
    return [
        c
        for c in dict.fromkeys(claims(stated))
        if NUMBER.fullmatch(c)
        and sum(ch.isdigit() for ch in c) >= 2
        and fold(c) not in asked
        and fold(c) not in in_dates
        and not present(c, haystack)
    ]


def check(
    answer: str,
    passages: dict[int, str],
    system: str = "",
    question: str = "",
    labels: dict[int, str] | None = None,
    whole: Mapping[int, str] | None = None,
    titles: Mapping[int, str] | None = None,
    authors: Mapping[int, str] | None = None,
    heads: Mapping[int, str] | None = None,
) -> Grounding:
    """Judge ``answer`` against the retrieved passages (number -> text); with the prompt's
    ``system`` text, an answer echoing its worked examples is marked ``echoed_example``;
    ``question`` sharpens the near-miss check of the answer's numbers (service/numbers.py);
    with the passages' ``labels`` (number -> "file, page 2"), an answer that only repeats a
    label is ``incomplete``; a name or number of the ``question`` that the answer states and no
    passage holds, or a number or a month of a year the question asks about (``asked_numbers``,
    ``asked_months``: "in December 2015") that no passage holds whatever the answer says (in
    the passages or their ``whole`` chunks, for passages cut to the token budget, or their
    ``labels``: a file named for its month, or their documents' ``titles``, number -> title:
    "Microsoft Corporation" for a row of its financial table, or their documents' ``authors``,
    number -> folded name words: a question naming a paper by its authors, or their documents'
    ``heads``, number -> the first chunk's text: "FORM 10-K" on a filing's cover; those names
    the question says need no passage either), is ``unmentioned``; names the
    answer ties to a name of the question that no passage ties to it are ``unlinked``;
    numbers the cited passages (their whole chunks, number -> text, where given: a cut
    passage's sentences run together), or for a number they lack the passages holding it, give
    only for something else are ``unbound``; numbers no passage, chunk or label holds are
    ``invented``; an answer saying nothing the question did not
    (``only_question``) is ``incomplete``."""
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
    wholes = whole or {}
    haystack = fold(" ".join(pool))
    judged = list(valid or passages)
    # a number the cited passages lack is judged where another passage holds it (a reply
    # citing [1] for [2]'s "The Vanguard Group | 8.9%" as Paul Allen's share: dev h214)
    lacking = [
        c
        for c in claims(answer)
        if NUMBER.fullmatch(c) and not present(c, haystack)  # the pool: the judged passages
    ]
    judged += [
        n
        for n in passages
        if n not in judged and any(present(c, fold(passages[n])) for c in lacking)
    ]
    bound = [wholes.get(n) or passages[n] for n in judged]
    everything = fold(" ".join(passages.values()))
    latin = latin_share(" ".join(pool)) >= MIN_LATIN_SHARE
    # What the question asks about is looked for in the whole chunks too: a passage cut to the
    # token budget may have lost the sentence naming it ("Article 34" ... "It also means ...").
    chunks = fold(" ".join([*passages.values(), *wholes.values()]))
    asked = {fold(c) for c in claims(question)}
    # A passage's label (its file's name: "nics-background-checks-2015-11.pdf") and its
    # document's title ("Microsoft Corporation") hold for all of its text: the rows of November
    # 2015's table need not repeat the month, nor Microsoft's financial table the company.
    # So does its head, the document's first chunk: a filing's cover ("FORM 10-K"), a letter's
    # heading (held-out dev h810: "Lyft's 2021 annual report on Form 10-K" asks for no "10").
    owners = [
        *(labels or {}).values(),
        *(titles or {}).values(),
        *(authors or {}).values(),
        *dict.fromkeys((heads or {}).values()),  # one document's head once, not per passage
    ]
    scoped = fold(" ".join([*passages.values(), *wholes.values(), *owners]))
    # A title's words stay names an answer is tied to ("DELPHIN" of a receipt: dev h318).
    named = references(claims(question), (labels or {}).values())  # "the Word document"
    named |= languages_held(question, [*passages.values(), *wholes.values()])  # "the German part"
    # a name of the question that a passage's document's authors hold names that document
    # ("Shinyama and Sekine" of the paper they wrote): no passage need repeat it
    written_by = fold(" ".join((authors or {}).values()))
    named |= {fold(c) for c in claims(question) if present(c, written_by)}
    # a result the reply writes out from numbers the passages hold ("$2.95 - $2.40 = $0.55"),
    # its arithmetic right: no claim a passage must hold (held-out dev h949, h849)
    made = derived(answer, [*passages.values(), *wholes.values()])
    unsupported: list[str] = []
    miscited: list[str] = []
    for c in claims(answer):
        if NUMBER.fullmatch(c) and number_key(c) in made:
            continue
        if present(c, haystack) or (fold(c) in asked and present(c, chunks)):
            continue  # a name or number of the question, held by a chunk cut for the prompt
        if fold(c) in named:
            continue  # the question's words for its document, or the language of its part
        if not NUMBER.fullmatch(c) and present(c, everything):
            miscited.append(c)
        elif latin or not LATIN.search(c) or NUMBER.fullmatch(c):
            unsupported.append(c)
    # the question's names the answer states, also where a sentence opens with one
    # ("Rajasthan's total outlay was ...": held-out batch 4 dev h403)
    stated = [*claims(answer), *(c for c in claims(question) if holds_all([c], answer))]
    found = [
        c
        for c in dict.fromkeys(stated)
        if fold(c) in asked
        and fold(c) not in named
        and not present(c, scoped)
        and not present_misspelt(c, scoped)  # "Penitenciarul" of "Penetenciarul": dev h705
    ]
    codes = asked_codes(question)  # "10" of "Form 10-K" is held as "10-K", not as "10-Q"
    for number in asked_numbers(question):  # "in 2027": no passage can answer for that year
        held = holds_code(codes[number], scoped) if number in codes else present(number, scoped)
        if not held and not any(number in n for n in named):
            longest = max((c for c in claims(question) if number in c), key=len, default=number)
            found.append(codes.get(number, longest))
    for written, month, year in asked_months(question):  # "in December 2015": November's table
        if not holds_month(scoped, month, year) and not any(written in n for n in named):
            found.append(written)
    unmentioned = list(dict.fromkeys(c for c in found if not any(c != o and c in o for o in found)))
    misses: list[str] = []
    for n in valid:
        misses += [x for x in near_misses(answer, passages[n], question) if x not in misses]
    return Grounding(
        valid,
        invalid,
        unsupported,
        miscited=miscited,
        near_misses=misses,
        incomplete=states_nothing(answer, question, (labels or {}).values()),
        unmentioned=unmentioned,
        unlinked=unlinked(
            answer,
            passages.values(),
            question,
            # a passage's place is read with its label and its document's title: a deck's rows
            # are tied to the title it opens with ("Europe ... in the 'Typical Presentation'
            # slide deck is 47,000,000": held-out dev h531)
            [f"{(labels or {}).get(n, '')} {(titles or {}).get(n, '')}" for n in passages],
            named,
        ),
        unbound=unbound(answer, bound, question),
        checked=list(dict.fromkeys(made.values())),
        invented=[
            c
            for c in invented(
                answer, [*passages.values(), *wholes.values(), *(labels or {}).values()], question
            )
            if number_key(c) not in made
        ],
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
        haystack = fold(passages[n])
        return all(present(c, haystack) for c in said)

    if any(holds(n) for n in cited if n in passages):
        return answer
    holders = [n for n in sorted(passages) if holds(n)]
    if not holders:
        return answer
    return CITATION.sub(
        lambda m: f"[{holders[0]}]" if int(m.group(0)[1:-1]) in cited else m.group(0), answer
    )


def cite_sentences(answer: str, passages: dict[int, str], cited: list[int]) -> str:
    """The answer with a citation added to each sentence that cites nothing itself, whose names
    and numbers the passages the answer cites do not all hold, but one other passage does (the
    first in rank order). The 1.5B joins facts of two passages under one citation: "[1] The
    Harbour project ... was led by Imogen Clarke. Imogen Clarke joined the company in 2014."
    (the second sentence is passage 2's) becomes "... in 2014. [2]". Unchanged when the answer
    cites nothing (see ``attribution``) or every sentence is held by what it cites."""
    if not cited:
        return answer
    pieces: list[str] = []
    start = 0
    for gap in [*CITED_SENTENCE_GAP.finditer(answer), None]:
        end = gap.start() if gap else len(answer)
        sentence = answer[start:end]
        pieces.append(sentence + _cite_for(sentence, passages, cited))
        if gap:
            pieces.append(gap.group(0))
            start = gap.end()
    return "".join(pieces)


def _cite_for(sentence: str, passages: dict[int, str], cited: list[int]) -> str:
    """ " [n]" for a sentence without its own citation whose facts the cited passages miss and
    passage n holds; "" otherwise."""
    said = claims(sentence)
    if not said or CITATION.search(sentence):
        return ""

    def holds(n: int) -> bool:
        haystack = fold(passages[n])
        return all(present(c, haystack) for c in said)

    if any(holds(n) for n in cited if n in passages):
        return ""
    holder = next((n for n in sorted(passages) if holds(n)), None)
    return "" if holder is None else f" [{holder}]"


def strip_invalid(answer: str, invalid: list[int]) -> str:
    """The answer without citation markers that name no retrieved passage."""
    for n in invalid:
        answer = answer.replace(f"[{n}]", "")
    return re.sub(r"\s+([.,;:])", r"\1", answer).strip()
