"""The map and reduce prompts of whole-document modes; their version keys the cache."""

from __future__ import annotations

from service.llm.base import ChatMessage

#: Bumped whenever a prompt below changes: cached results of older prompts are not reused.
TEMPLATE_VERSION = 1

SUMMARISE_SYSTEM = (
    "You summarise excerpts of a document for its owner. Write at most {n} short sentences "
    "stating the main facts of the excerpts, with their names, dates and numbers. Use only what "
    "the excerpts say. End each sentence with the number of the excerpt it comes from, like [2]."
)
REDUCE_SYSTEM = (
    "You combine numbered statements about a document into a summary of at most {n} sentences. "
    "Keep the most important facts, with their names, dates and numbers, and use only what the "
    "statements say. End each sentence with the numbers of the statements it comes from, like [3]."
)
EXTRACT_SYSTEM = (
    "You find items in excerpts of a document. Copy every {what} the excerpts mention, one per "
    "line, each line starting with '- ' and ending with its excerpt number like [2]. Copy the "
    "words of the excerpt. If the excerpts mention none, write NONE."
)
COMPARE_SYSTEM = (
    "You are told the changes between two versions of a document, one per numbered line. Say in "
    "at most {n} sentences what changed, with the names, dates and numbers. End each sentence "
    "with the numbers of the lines it comes from, like [2]."
)


def numbered(texts: list[str]) -> str:
    """``[1] text`` lines, numbered from 1."""
    return "\n\n".join(f"[{i}] {t.strip()}" for i, t in enumerate(texts, start=1))


def summarise_messages(excerpts: list[str], sentences: int) -> list[ChatMessage]:
    """The map prompt of ``summarise`` over one group of excerpts."""
    return [
        {"role": "system", "content": SUMMARISE_SYSTEM.format(n=sentences)},
        {"role": "user", "content": f"Excerpts:\n{numbered(excerpts)}\n\nSummarise the excerpts."},
    ]


def reduce_messages(statements: list[str], sentences: int) -> list[ChatMessage]:
    """The reduce prompt of ``summarise`` over partial results."""
    return [
        {"role": "system", "content": REDUCE_SYSTEM.format(n=sentences)},
        {"role": "user", "content": f"Statements:\n{numbered(statements)}\n\nSummarise them."},
    ]


def extract_messages(excerpts: list[str], what: str) -> list[ChatMessage]:
    """The map prompt of ``extract`` ("every ``what``") over one group of excerpts."""
    return [
        {"role": "system", "content": EXTRACT_SYSTEM.format(what=what)},
        {
            "role": "user",
            "content": f"Excerpts:\n{numbered(excerpts)}\n\nList every {what} in the excerpts.",
        },
    ]


def compare_messages(changes: list[str], sentences: int) -> list[ChatMessage]:
    """The reduce prompt of ``compare`` over the changes found."""
    return [
        {"role": "system", "content": COMPARE_SYSTEM.format(n=sentences)},
        {"role": "user", "content": f"Changes:\n{numbered(changes)}\n\nWhat changed?"},
    ]
