"""Passage cleaning shared by every template (the "don't know" sentence and citation markers are
the text toolkit's, ``core.text``).

The templates themselves are versioned in the database (service/templates/service.py; defaults from
migrations 0002 and 0006). Measured on the bundled Qwen 1.5B (see NOTES.md): worked examples inside
the system prompt made it decline questions the sources answer and were copied into answers; the
defaults since 0006 carry none, and give the passages as quoted data between markers.
"""

from __future__ import annotations

from core.text import CITATION, SOFT_BREAK

# Hard line breaks inside a sentence (PDF layout) and the document's own reference markers
# ("[17]" in Wikipedia text), which would read as citations of our numbered sources.
# A line that is a table row ("Name: Ann | Office: Leeds") keeps its breaks on both sides.
_ROW = " | "


def clean_for_prompt(text: str) -> str:
    """Passage text as the model sees it: soft line breaks joined (not around table rows),
    reference markers dropped."""
    lines = CITATION.sub("", text).split("\n")
    out: list[str] = []
    for line in lines:
        if out and _ROW not in line and _ROW not in out[-1]:
            joined = SOFT_BREAK.sub(" ", out[-1] + "\n" + line)
            if "\n" not in joined:
                out[-1] = joined
                continue
        out.append(line)
    return "\n".join(out)
