"""The fixed RAG prompt `hearth models bench` times every model on: one question and three
numbered passages, rendered the way the default ``qa`` template renders them (system rules, then
``Sources:`` and the question), so the figures compare across models and runs."""

from __future__ import annotations

from core.evalmetrics import DONT_KNOW
from service.llm.base import ChatMessage

QUESTION = "When did the lighthouse on Skerry Point first shine, and who kept it?"
EXPECTED = ("1872", "Maren Holt")

PASSAGES = (
    (
        "skerry_point.txt, page 1",
        "The lighthouse on Skerry Point was lit for the first time on 14 March 1872. Its first "
        "keeper, Maren Holt, kept a logbook of every ship that passed the cape, noting the wind, "
        "the tide and the weather at each watch. The light was a fixed white lamp burning "
        "colza oil, visible for twelve nautical miles in clear weather.",
    ),
    (
        "harbour_history.pdf, page 4",
        "The harbour was dredged in 1869 so that larger fishing boats could land their catch. "
        "A breakwater of granite blocks followed in 1875, paid for by a levy on every barrel of "
        "herring landed. The harbour master's house still stands beside the old fish market.",
    ),
    (
        "keepers.docx",
        "After Maren Holt retired in 1901, the light was kept by her nephew Anders until it was "
        "automated in 1958. The keepers' cottage is now a small museum with the original lens, "
        "the logbooks and a barometer that has hung in the same place since 1880.",
    ),
)

SYSTEM = (
    "You are Hearth, a private assistant. Answer the question using ONLY the numbered sources "
    "the user gives. Cite the source number of each fact in square brackets, like [1]. "
    f"If the sources do not contain the answer, reply exactly: {DONT_KNOW}"
)


def fixed_messages(tag: str = "") -> list[ChatMessage]:
    """The fixed prompt as chat messages; ``tag`` leads the system text so that repeated runs do
    not reuse the previous run's cached prompt."""
    sources = "".join(f"[{n}] ({label}) {text}\n\n" for n, (label, text) in enumerate(PASSAGES, 1))
    system = f"{tag} {SYSTEM}".strip()
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Sources:\n{sources}Question: {QUESTION}"},
    ]
