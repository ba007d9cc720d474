"""A question asked in one language over passages of prose written in another (an English
question over a French recording, an Italian e-mail): the language to translate the question
into before fitting, so the passages' sentences are scored against words they use.

The embedder (all-MiniLM-L6-v2) is English-only and the lexical share counts the question's own
words, so "for how many years had computers been teaching us to click on icons?" scores the
French sentence that answers it no higher than its neighbours, and fitting leaves it out
(held-out dev: five of sixteen answers retrieval found and fitting lost were such questions;
with a translation beside the question, fitting kept four of them). End to end on the dev half
it is no sure gain: of the 23 questions it fired on, one answer was gained (that recording),
two over tables were lost (hence prose only) and an unanswerable one was answered; see
NOTES.md. The answer's prompt still carries the question as asked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from core.languages import confirmed_language, language_of, written_in
from service.answering.retrieval import Passage, is_tabular

#: The languages a question is translated into: English (the embedder's), and the Latin-script
#: languages the bundled model writes well whose words the embedder's vocabulary and the
#: lexical share can still match (lingua names). A script MiniLM cannot read gains nothing,
#: and lingua's low-accuracy guesses on tables ("NYMEX Month: 10-Day High | ..." as Yoruba, a
#: state-code sheet as Latin) fall outside this list.
TARGETS = frozenset(
    {
        "ENGLISH", "FRENCH", "GERMAN", "SPANISH", "ITALIAN", "PORTUGUESE", "DUTCH", "ROMANIAN",
        "POLISH", "CATALAN", "SWEDISH", "DANISH", "CZECH", "TURKISH", "INDONESIAN",
    }
)  # fmt: skip


#: Letters a question has at least for its own language to be read (a question is translated
#: into English only then): "What is Robert Schneider AG's mobile number?" reads as German.
MIN_QUESTION_LETTERS = 40


def passages_language(question: str, passages: Sequence[Passage]) -> str | None:
    """The lingua name of the language to translate ``question`` into before fitting
    ``passages`` ("FRENCH"), or None. Of the passages of prose (not ``is_tabular``: a row is
    matched by its names and figures, which translation does not change, and on the dev half
    the German invoice's and the Spanish export table's questions, translated, were answered
    from a neighbouring cell) whose language is sure (``language_of``, then
    ``confirmed_language`` against English): the first one's language, else the one most
    are written in when at least half are (ties: the better-ranked passage's); in ``TARGETS``;
    and not the question's (``_asked_in``: short English questions full of names read as
    German or Latin, so a question is put into English only when surely in another
    language)."""
    prose = [p for p in passages if not is_tabular(p)]
    known = [lang for p in prose if (lang := _language(p.text)) is not None]
    if not known:
        return None
    counts = Counter(known)
    most = max(counts, key=lambda lang: (counts[lang], -known.index(lang)))
    for language in dict.fromkeys((known[0], most)):  # the best passage's, then the most's
        held = language == known[0] or counts[language] * 2 >= len(known)
        if language in TARGETS and held and not _asked_in(question, language):
            return language
    return None


def _asked_in(question: str, language: str) -> bool:
    """True unless ``question`` is surely not written in ``language``: an English question
    is in English unless it is surely in another language of ``TARGETS`` and has at least
    ``MIN_QUESTION_LETTERS`` letters; any question is in another language when
    ``written_in`` says so."""
    if language != "ENGLISH":
        return written_in(question, language)
    if sum(c.isalpha() for c in question) < MIN_QUESTION_LETTERS:
        return True
    asked = _language(question)
    return asked is None or asked == language or asked not in TARGETS


def _language(text: str) -> str | None:
    """The language ``text`` is surely written in: lingua's low-accuracy first, confirmed by
    its high-accuracy detector over that language and English."""
    found = language_of(text)
    return found if found is None or found == "ENGLISH" else confirmed_language(text, found)


def language_label(name: str) -> str:
    """A lingua name as a prompt writes it: "FRENCH" -> "French"."""
    return name.replace("_", " ").title()
