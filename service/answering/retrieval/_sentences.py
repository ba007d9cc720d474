"""A passage's sentences, as fitting, language narrowing and the multi-hop search split it."""

from __future__ import annotations

from core.text import WIDE_SENTENCE_GAP, WRAPPED_LINE

#: Marks where sentences were left out of a passage.
GAP = " … "


def split_sentences(text: str) -> list[str]:
    """Sentences and lines of ``text`` (ends at . ! ? and their CJK forms, and line breaks; a
    line that goes on in lower case is the same sentence)."""
    return [
        s.strip() for s in WIDE_SENTENCE_GAP.split(WRAPPED_LINE.sub(" ", text)) if s and s.strip()
    ]
