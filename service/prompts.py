"""The question-answering prompt: instructions with two worked examples, then numbered sources.

Measured on the bundled Qwen 1.5B (see NOTES.md): worked examples inside the system prompt make it
decline questions the sources do not answer; as separate chat turns they leaked into answers.
"""

from __future__ import annotations

import re

from service.llm.base import ChatMessage
from service.retrieval import Passage

DONT_KNOW = "I don't know: your documents do not say."

# The examples are deliberately unlike real questions so they do not leak into answers.
SYSTEM = (
    "You are Hearth, a private assistant. Answer the question using ONLY the numbered sources "
    "the user gives. Cite the source number of each fact in square brackets, like [1]. "
    f"If the sources do not contain the answer, reply exactly: {DONT_KNOW}\n\n"
    "Example 1\nSources:\n[1] The Zorbin valve was patented by Ada Quell in 1911.\n"
    "Question: Who patented the Zorbin valve?\n"
    "Answer: Ada Quell patented the Zorbin valve in 1911 [1].\n\n"
    "Example 2\nSources:\n[1] Blue-green tiles line the Velmo pool.\n"
    f"Question: How deep is the Velmo pool?\nAnswer: {DONT_KNOW}"
)

_CITATION = re.compile(r"\[(\d{1,3})\]")
# Hard line breaks inside a sentence (PDF layout) and the document's own reference markers
# ("[17]" in Wikipedia text), which would read as citations of our numbered sources.
_SOFT_BREAK = re.compile(r"(?<![.:!?])\n(?!\s*(?:[•\-*]|\d+[.)]\s))")


def clean_for_prompt(text: str) -> str:
    """Passage text as the model sees it: soft line breaks joined, reference markers dropped."""
    return _SOFT_BREAK.sub(" ", _CITATION.sub("", text))


def render_sources(passages: list[Passage]) -> str:
    """Numbered sources block."""
    return "\n\n".join(f"[{p.number}] ({p.label}) {clean_for_prompt(p.text)}" for p in passages)


def build_messages(question: str, passages: list[Passage]) -> list[ChatMessage]:
    """Chat messages for a question over these passages."""
    user = f"Sources:\n{render_sources(passages)}\n\nQuestion: {question}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def cited_numbers(answer: str) -> list[int]:
    """Source numbers cited in an answer, in first-cited order, without repeats."""
    seen: list[int] = []
    for m in _CITATION.finditer(answer):
        n = int(m.group(1))
        if n not in seen:
            seen.append(n)
    return seen
