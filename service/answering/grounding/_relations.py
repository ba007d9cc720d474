"""Names an answer ties together must be tied in a passage.

"Who led the Meadow project?" came back "Rafael Costa led the Meadow project" from the 1.5B when one
passage said "The Meadow project installed solar panels" and another "Rafael Costa, who runs
procurement, joined in 2017". Every name of that answer is in the passages, so the name check
passes it, yet no passage ties the two. An answer sentence that states a name of the question
next to names the question does not hold is *linked* when some passage holds the question's name
and one of those names in one paragraph, or on one table row with its caption.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.languages import language_names
from core.text import (
    ADDRESS,
    CITATION,
    SENTENCE_GAP,
    asked_numbers,
    fold,
    holds_all,
    names_in,
    present,
)

#: Prose lines above a table that caption its rows.
CAPTION = 2
#: Words a passage's first line may have to be its heading.
HEADING_WORDS = 10


def places(passage: str) -> list[str]:
    """The places of ``passage`` where two names count as tied, folded (lower case, no accents):
    each paragraph (its prose lines; blank lines part paragraphs), and each table row (a line
    with " | " cells) together with the table's caption, the ``CAPTION`` prose lines above it
    ("Everyone working for Northgate Supplies, ...": the caption says what each row is about).
    A paragraph, not a sentence: a name is often picked up by "she" or "the project" sentences
    later (on SQuAD 2.0 dev, a two-sentence window missed 19% of the right pairings)."""
    found: list[str] = []
    for block in re.split(r"\n\s*\n", passage):
        prose: list[str] = []
        for line in block.split("\n"):
            if " | " in line:
                found.append(fold(" ".join([*prose[-CAPTION:], line])))
            elif line.strip():
                prose.append(line.strip())
        if prose:
            found.append(fold(" ".join(prose)))
    return found


def _heading(passage: str) -> str:
    """The passage's first line when it is a heading (short, no sentence end, not a row): the
    title a chunk carries, which every paragraph below it is about."""
    first = passage.lstrip().split("\n", 1)[0].strip().lstrip("#").strip()
    if " | " in first or len(first.split()) > HEADING_WORDS or first.endswith((".", "!", "?")):
        return ""
    return first


def _is_name(word: str) -> bool:
    """A name to tie: no digits in it (a unit or code, "CO₂e", "H2O", "W-09", is not a name)."""
    return not any(c.isdigit() for c in word)


def _numbers_unlinked(
    sentence: str, theirs: list[str], spots: list[str], question: str
) -> list[str]:
    """The numbers (two or more digits, not the question's) and e-mail and web addresses
    (``ADDRESS``) of an answer ``sentence`` naming ``theirs`` of the question that the passages
    hold, but never in one place with one of those names, in one entry: ``"202 493 2251 with
    Roy Berry"``, ``"dphamhoang@example.com with Delphin Apotheke"`` (another file's
    sender given as the pharmacy's address)."""
    asked = {fold(n) for n in [*asked_numbers(question), *ADDRESS.findall(question)]}
    # a name no passage holds at all cannot be tied ("the Word document": the file's kind)
    theirs = [name for name in theirs if any(holds_all([name], s) for s in spots)]
    addresses = ADDRESS.findall(sentence)
    bare = ADDRESS.sub(" ", sentence)  # an address's digits are the address's
    loose = [
        number
        for number in [*addresses, *asked_numbers(bare)]  # numbers of two or more digits
        # the question's own, or held nowhere (the grounding check's business), are not judged
        if fold(number) not in asked
        and any(present(number, s) for s in spots)
        and not any(
            present(number, s) and any(holds_all([name], s) for name in theirs) for s in spots
        )
    ]
    return [f"{' '.join(loose)} with {' '.join(theirs)}"] if loose and theirs else []


def unlinked(
    answer: str,
    passages: Iterable[str],
    question: str,
    labels: Iterable[str] = (),
    references: Iterable[str] = (),
) -> list[str]:
    """The pairings of ``answer`` that no passage ties: for each answer sentence stating names
    of ``question`` and other names that the passages hold, ``"Costa with Meadow"`` when no
    place of any passage (see ``places``; each with the passage's heading and its ``label``, the
    file and title it comes from) holds one of the question's names and one of the others;
    and its numbers of two or more digits no such place holds with one of the question's
    names it states (``_numbers_unlinked``: "202 493 2251 with Roy Berry"). Units and codes
    (words with digits) are not names here; names the passages do not hold at all are the
    grounding check's business, not this one's. ``references``: the question's words (folded)
    for its document or the part to read ("Word", "German" of "the German part": see
    ``references`` and ``languages_held``), not names an answer is tied to ("Genehmigung"
    given for "the German part" is not a name of another file's German). Empty when the
    question names nothing."""
    asked = {fold(n) for n in names_in(question) if _is_name(n)} - set(references)
    if not asked:
        return []
    given = list(passages)
    named = list(labels) + [""] * len(given)
    spots = [
        fold(f"{named[i]} {_heading(text)} ") + place
        for i, text in enumerate(given)
        for place in places(text)
    ]
    found: list[str] = []
    for sentence in SENTENCE_GAP.split(CITATION.sub(" ", answer)):
        names = [n for n in dict.fromkeys(names_in(sentence)) if _is_name(n)]
        theirs = [n for n in names if fold(n) in asked]
        # a language the question names is not another name: "French" of "the old French
        # book" or "the French state" is the question's own word, not a fact the answer ties
        # to "Bernard de Fischer" (held-out dev h1227, h1446: right answers replaced)
        others = [
            n
            for n in names
            if fold(n) not in asked
            and not (fold(n) in language_names() and holds_all([n], question))
            and any(holds_all([n], s) for s in spots)
        ]
        if theirs:  # "Roy Berry's fax number is (202) 493-2251": a number of another file
            found += _numbers_unlinked(sentence, theirs, spots, question)
        if not theirs or not others:
            continue
        if not any(
            holds_all([name], s) and any(holds_all([o], s) for o in others)
            for name in theirs
            for s in spots
        ):
            found.append(f"{' '.join(others)} with {' '.join(theirs)}")
    return found
