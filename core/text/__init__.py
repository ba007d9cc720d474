"""The text toolkit: what answering, grounding, injection checks and evaluation read in a text.

Public: the decline sentence (``DONT_KNOW``); citation markers (``CITATION``, ``CITE``,
``cited_numbers``); names and numbers a text states and whether another holds them (``NUMBER``,
``WORD``, ``fold``, ``claims``, ``names_in``, ``holds_all``, ``present``, ``asked_numbers``).
The modules behind them (``_decline``, ``_citations``, ``_claims``) are private.
"""

from core.text._citations import CITATION, cited_numbers
from core.text._claims import (
    CITE,
    NUMBER,
    WORD,
    asked_numbers,
    claims,
    fold,
    holds_all,
    names_in,
    present,
)
from core.text._decline import DONT_KNOW

__all__ = [
    "CITATION",
    "CITE",
    "DONT_KNOW",
    "NUMBER",
    "WORD",
    "asked_numbers",
    "cited_numbers",
    "claims",
    "fold",
    "holds_all",
    "names_in",
    "present",
]
