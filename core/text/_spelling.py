"""British and American spellings read as one, and the content stems of a text: the words two
texts share whichever way each spells them ("neighbours" in a question, "neighbors" in Whisper's
transcript; "tyres" and "tires").

The folding is applied to both texts compared, so a rule that also changes a word it was not
meant for ("called" -> "caled") is harmless: both sides change alike."""

from __future__ import annotations

import re

from core.text._claims import WORD, fold
from core.text._words import STOP_WORDS, stems

#: Whole words spelt apart (British -> American).
_WORDS = {
    "tyre": "tire", "tyres": "tires", "grey": "gray", "greys": "grays", "cheque": "check",
    "cheques": "checks", "kerb": "curb", "plough": "plow", "aluminium": "aluminum",
    "programme": "program", "programmes": "programs", "pyjamas": "pajamas", "mould": "mold",
    "storey": "story", "storeys": "stories", "draught": "draft", "gaol": "jail",
    "defence": "defense", "licence": "license", "offence": "offense", "pretence": "pretense",
    "practise": "practice", "practised": "practiced", "jewellery": "jewelry", "sceptic": "skeptic",
    "manoeuvre": "maneuver", "oestrogen": "estrogen", "paediatric": "pediatric",
    "anaesthetic": "anesthetic", "foetus": "fetus", "whisky": "whiskey", "cosy": "cozy",
}  # fmt: skip
#: Endings spelt apart: colour/color, centre/center, organise/organize, analyse/analyze,
#: catalogue/catalog, travelled/traveled.
_ENDINGS = (
    (re.compile(r"^(\w{3,})our(s|ed|ing|ite|ites|able|ful|hood|less|er|ers)?$"), r"\1or\2"),
    (re.compile(r"^(\w{2,}[tb])re(s|d)?$"), r"\1er\2"),
    (re.compile(r"^(\w{2,})is(e|es|ed|ing|ation|ations|er|ers)$"), r"\1iz\2"),
    (re.compile(r"^(\w{2,})ys(e|es|ed|ing)$"), r"\1yz\2"),
    (re.compile(r"^(\w{2,}og)ue(s)?$"), r"\1\2"),
    (re.compile(r"^(\w*[^aeiou\W][aeiou])ll(ed|ing|er|ers)$"), r"\1l\2"),
)


def american(word: str) -> str:
    """One lower-case word in American spelling ("neighbours" -> "neighbors", "tyres" ->
    "tires", "organised" -> "organized"); other words as they are."""
    if word in _WORDS:
        return _WORDS[word]
    for pattern, to in _ENDINGS:
        if pattern.match(word):
            return pattern.sub(to, word)
    return word


def content_stems(text: str, leave_out: frozenset[str] = frozenset()) -> set[str]:
    """The stems of ``text``'s content words (folded, American spelling, stop words and the
    lower-case words of ``leave_out`` left out): what a question and a passage share when they
    speak of the same thing however each spells or inflects it."""
    words = [w.strip("'’-") for w in WORD.findall(fold(text))]
    kept = [american(w) for w in words if w and w not in STOP_WORDS and w not in leave_out]
    return {s for s in stems(kept) if len(s) > 1}
