"""Prompt helpers shared by every template: the "don't know" sentence, passage cleaning, citations.

The templates themselves are versioned in the database (service/templates/service.py; defaults from
migrations 0002 and 0006). Measured on the bundled Qwen 1.5B (see NOTES.md): worked examples inside
the system prompt made it decline questions the sources answer and were copied into answers; the
defaults since 0006 carry none, and give the passages as quoted data between markers.
"""

from __future__ import annotations

import re

from core.evalmetrics import DONT_KNOW

__all__ = ["DONT_KNOW", "cited_numbers", "clean_for_prompt"]

_CITATION = re.compile(r"\[(\d{1,3})\]")
# Hard line breaks inside a sentence (PDF layout) and the document's own reference markers
# ("[17]" in Wikipedia text), which would read as citations of our numbered sources.
# A line that is a table row ("Name: Ann | Office: Leeds") keeps its breaks on both sides.
_SOFT_BREAK = re.compile(r"(?<![.:!?])\n(?!\s*(?:[•\-*]|\d+[.)]\s))")
_ROW = " | "


def clean_for_prompt(text: str) -> str:
    """Passage text as the model sees it: soft line breaks joined (not around table rows),
    reference markers dropped."""
    lines = _CITATION.sub("", text).split("\n")
    out: list[str] = []
    for line in lines:
        if out and _ROW not in line and _ROW not in out[-1]:
            joined = _SOFT_BREAK.sub(" ", out[-1] + "\n" + line)
            if "\n" not in joined:
                out[-1] = joined
                continue
        out.append(line)
    return "\n".join(out)


def cited_numbers(answer: str) -> list[int]:
    """Source numbers cited in an answer, in first-cited order, without repeats."""
    seen: list[int] = []
    for m in _CITATION.finditer(answer):
        n = int(m.group(1))
        if n not in seen:
            seen.append(n)
    return seen
