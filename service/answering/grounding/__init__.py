"""Grounding: every check of a generated reply against the passages it was given, one module
each, and the review that applies them.

Public: ``review`` (the reply shown and its ``Grounding`` verdict) with the sentences it
shows instead (``NOT_VERIFIED``, ``FOLLOWED_INSTRUCTION``); the combined check (``check``,
``Grounding``, ``recite``, ``cite_sentences``, ``strip_invalid``, a reply stating no
fact, ``states_nothing``, or ending on a word no sentence ends on, ``dangling``;
numbers no passage holds, ``invented``); the
attribution of an uncited reply (``attribute``, ``cite``); numbers bound to the wrong thing
(``unbound``, ``near_misses``); names, and numbers to names, tied that no passage ties
(``unlinked``, ``places``);
injected instructions (``check_answer``, ``InjectionVerdict``, ``neutralize``,
``without_instructions``, ``LEFT_OUT``); the difference of two cited numbers a years- or
days-between question asks for, computed by Hearth (``compute``, ``Computed``), or the side
of a comparison whose table cell is larger (``compare``, ``Compared``), and the two sides
searched for it (``sides``); a "Yes" its passage's sentence negates (``polarity``,
``Polarity``); the date a "when" question asks for, read when the reply gives another
(``dated``, ``Dated``, ``DATE_QUESTION``). The
``_modules`` are private.
"""

from service.answering.grounding._arithmetic import Computed, compute, sides
from service.answering.grounding._attribution import attribute, cite
from service.answering.grounding._check import (
    Grounding,
    check,
    cite_sentences,
    dangling,
    invented,
    recite,
    states_nothing,
    strip_invalid,
)
from service.answering.grounding._comparison import Compared, compare
from service.answering.grounding._dates import DATE_QUESTION, Dated, dated
from service.answering.grounding._injection import (
    LEFT_OUT,
    InjectionVerdict,
    check_answer,
    neutralize,
    without_instructions,
)
from service.answering.grounding._numbers import near_misses, unbound
from service.answering.grounding._polarity import Polarity, polarity
from service.answering.grounding._relations import places, unlinked
from service.answering.grounding._review import FOLLOWED_INSTRUCTION, NOT_VERIFIED, review

__all__ = [
    "DATE_QUESTION",
    "FOLLOWED_INSTRUCTION",
    "LEFT_OUT",
    "NOT_VERIFIED",
    "Compared",
    "Computed",
    "Dated",
    "Grounding",
    "InjectionVerdict",
    "Polarity",
    "attribute",
    "check",
    "check_answer",
    "cite",
    "cite_sentences",
    "compare",
    "compute",
    "dangling",
    "dated",
    "invented",
    "near_misses",
    "neutralize",
    "places",
    "polarity",
    "recite",
    "review",
    "sides",
    "states_nothing",
    "strip_invalid",
    "unbound",
    "unlinked",
    "without_instructions",
]
