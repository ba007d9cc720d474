"""Which chunk sentence supports a line the model wrote: the grounding of whole-document results.

A line is supported by a sentence of a chunk when every name and number it states is in that
chunk and most of its content words are in the sentence. Results keep only supported lines, each
cited to the chunk(s) holding it; an ``extract`` item is shown as the sentence that supports it,
so what is listed is what the document says.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.text import FIGURE, STATEMENT_GAP

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_MARK = re.compile(r"\[(?:[A-Z]?\d{1,4}(?:\s*,\s*[A-Z]?\d{1,4})*)\]")
_BULLET = re.compile(r"^\s*(?:[-*•]+|\d{1,3}[.)]|[A-Z][.)])\s+")
#: Words that say nothing about what a line claims.
_STOP_WORDS = (
    "the a an and or but of to in on at by for with from as is are was were be been it its this "
    "that these those there their they them he she his her we our you your i not no yes also "
    "which who whom what when where how than then so such into over under about after before "
    "all any each every some more most other only own same can will would should must may might "
    "has have had do does did done said says one two excerpt excerpts document documents text "
    "passage passages source sources summary summarise summarize summarises summarizes details "
    "list item items following"
)
_STOP = frozenset(_STOP_WORDS.split(" "))


def fold(text: str) -> str:
    """``text`` lower-cased, accents removed."""
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def words(text: str) -> set[str]:
    """The content words of ``text``, folded (stop words and one-letter words left out)."""
    return {w for w in _WORD.findall(fold(text)) if (len(w) > 1 or w.isdigit()) and w not in _STOP}


def facts(text: str) -> list[str]:
    """The names and numbers a line states, folded: numbers, and capitalised words that do
    not open the line."""
    found = [m.group(0).rstrip(".,:/-") for m in FIGURE.finditer(text)]
    tokens = _WORD.findall(text)
    for i, token in enumerate(tokens):
        if i and token[0].isupper() and not token.isdigit() and fold(token) not in _STOP:
            found.append(token)
    return list(dict.fromkeys(fold(f) for f in found if f))


def sentences(text: str) -> list[str]:
    """The sentences (and lines) of ``text``, stripped; fragments of under 3 words left out."""
    out = []
    for part in STATEMENT_GAP.split(text):
        part = part.strip(" \t-*•|")
        if len(part.split()) >= 3:
            out.append(part)
    return out


def clean_line(line: str) -> str:
    """A line of a reply without its bullet and citation marks."""
    return _MARK.sub("", _BULLET.sub("", line)).strip(" \t:-*")


@dataclass(frozen=True)
class Unit:
    """A sentence and the keys (chunk ids) of what supports it."""

    text: str
    keys: tuple[int, ...]


def units_of(texts: Iterable[tuple[int, str]]) -> list[Unit]:
    """Every sentence of each ``(key, text)`` as a unit cited to its key."""
    return [Unit(s, (key,)) for key, text in texts for s in sentences(text)]


@dataclass(frozen=True)
class Support:
    """The unit best supporting a line and the share of the line's content words it holds."""

    unit: Unit
    score: float


def support(
    line: str, units: Sequence[Unit], haystacks: dict[int, str], *, most_facts: bool = False
) -> Support | None:
    """The unit that supports ``line`` best, or None when none does: every name and number of
    the line must be in the unit's chunk(s) (``haystacks``: key -> folded text; a unit whose
    keys it lacks is read alone); the largest share of the line's content words wins, then,
    with ``most_facts``, the unit stating the most names and numbers; ties go to the earlier
    unit."""
    wanted = words(line)
    stated = facts(line)
    if not wanted:
        return None
    best: Support | None = None
    best_key: tuple[float, int] = (0.0, 0)
    for unit in units:
        hay = " ".join(haystacks.get(k, "") for k in unit.keys) or fold(unit.text)
        if not all(_has(f, hay) for f in stated):
            continue
        score = len(wanted & words(unit.text)) / len(wanted)
        key = (score, len(facts(unit.text)) if most_facts else 0)
        if best is None or key > best_key:
            best, best_key = Support(unit, score), key
    return best


def _has(fact: str, hay: str) -> bool:
    """True when the name or number ``fact`` (folded, as :func:`facts` gives it) is in the
    folded text ``hay`` (a number with or without its thousands separators; a name as a
    whole word)."""
    if fact[0].isdigit():
        return fact in hay or fact.replace(",", "") in hay.replace(",", "")
    return re.search(rf"(?<!\w){re.escape(fact)}(?!\w)", hay) is not None


def same_item(a: str, b: str) -> bool:
    """True when two items say the same thing: the same numbers, and the content words of one
    within the other's."""
    if set(FIGURE.findall(a)) != set(FIGURE.findall(b)):
        return False
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return fold(a).strip() == fold(b).strip()
    small, large = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return len(small & large) / len(small) >= 0.9
