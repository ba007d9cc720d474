"""Arithmetic a reply writes out, checked by Hearth (issue 35, item 5): "the iced lemon tea cost
$2.95 - $2.40 = $0.55 more than the coffee" and "[1] 400.00 + [1] 14.54 = [2] 414.54" were
replaced as inventing 0.55 and 414.54, numbers no passage holds, though each is the sum written
beside it of two numbers the passages hold (held-out dev h949, h849). A result is *derived*
when the reply writes it as ``a op b [op c ...] = result``, every operand is a number the
passages hold, and the expression, computed by Hearth left to right with ``×`` and ``/``
first, gives the result to the places it is written with. A derived result is then no claim to
find in the passages; a wrong sum stays one (and is declined as before).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.text import CITATION, NUMBER, fold, number_key, present

#: Operators as replies write them (a hyphen or dash is a minus only between spaces).
_OPERATORS = {
    "+": "+",
    "plus": "+",
    "-": "-",
    "−": "-",
    "–": "-",
    "minus": "-",
    "×": "*",
    "x": "*",
    "*": "*",
    "times": "*",
    "/": "/",
    "÷": "/",
}
#: An operand: a number with a currency mark or code before it and a unit or "%" after it.
_OPERAND = (
    r"(?:[$€£¥₹]\s?|\b(?:EUR|USD|CHF|GBP|INR)\s)?"
    rf"(?P<n@>{NUMBER.pattern})"
    r"(?:\s?(?:%|[$€£¥₹]|EUR|USD|CHF|GBP|INR)(?!\w))?"
)
_OPERATOR = r"\s*(?:[+×*/÷−]|\s[-–]\s|\s(?:plus|minus|times|x)\s)\s*"
#: At most this many operands in one expression ("a + b + c + d").
_MOST = 6


def _operand(name: str) -> str:
    return _OPERAND.replace("@", name)


#: "a op b [op c ...] = r": the first two operands required, up to ``_MOST`` in all.
_EXPRESSION = re.compile(
    _operand("0")
    + "".join(
        rf"(?:(?P<o{i}>{_OPERATOR}){_operand(str(i))})" + ("?" if i > 1 else "")
        for i in range(1, _MOST)
    )
    + r"\s*=\s*"
    + _operand("r"),
    re.IGNORECASE,
)


def _value(written: str) -> float | None:
    try:
        return float(number_key(written))
    except ValueError:
        return None


def _computed(values: list[float], operators: list[str]) -> float | None:
    """``values`` joined by ``operators`` ("+", "-", "*", "/"), products and quotients first."""
    terms: list[float] = [values[0]]
    signs: list[str] = []
    for op, value in zip(operators, values[1:], strict=True):
        if op == "*":
            terms[-1] *= value
        elif op == "/":
            if value == 0:
                return None
            terms[-1] /= value
        else:
            signs.append(op)
            terms.append(value)
    total = terms[0]
    for sign, term in zip(signs, terms[1:], strict=True):
        total = total + term if sign == "+" else total - term
    return total


def _places(written: str) -> int:
    key = number_key(written)
    return len(key.split(".", 1)[1]) if "." in key else 0


def derived(answer: str, texts: Iterable[str]) -> dict[str, str]:
    """The results of the expressions ``answer`` writes out whose operands the ``texts`` (the
    passages, their chunks) all hold and whose arithmetic is right to the result's written
    places, each (as ``number_key`` reads it) with its expression as written: ``{"0.55":
    "$2.95 - $2.40 = $0.55"}`` for a reply writing that over a passage holding 2.95 and 2.40.
    Citations inside the expression are read past."""
    stated = CITATION.sub(" ", answer)
    stated = re.sub(r"[ \t]{2,}", " ", stated)
    haystack = fold(" ".join(texts))
    found: dict[str, str] = {}
    for m in _EXPRESSION.finditer(stated):
        written = [m.group(f"n{i}") for i in range(_MOST) if m.group(f"n{i}")]
        operators = [
            _OPERATORS[m.group(f"o{i}").strip().lower()]
            for i in range(1, _MOST)
            if m.group(f"o{i}")
        ]
        values = [_value(w) for w in written]
        result = _value(m.group("nr"))
        if result is None or any(v is None for v in values) or len(operators) != len(written) - 1:
            continue
        if not all(present(w, haystack) for w in written):
            continue  # an operand no passage holds: the sum proves nothing
        total = _computed([v for v in values if v is not None], operators)
        if total is None:
            continue
        places = _places(m.group("nr"))
        if abs(total - result) <= 0.5 * 10**-places + 1e-9:
            found[number_key(m.group("nr"))] = m.group(0).strip()
    return found
