"""Prompt lookup decoding (issue 19, point 4): its temperature-0 output is the plain output.

Hearth does not ship it: ``bench/lookup.py`` measured no generation gain worth its cost here
(2 draft tokens 1.06x, 10 draft tokens 0.41x, and llama-cpp-python's draft models need logits
at every prompt position, which slows prompt evaluation; NOTES.md, issue 19). This test keeps
the other half of that measurement honest: with a draft model the answer is the same text, so
the choice is about speed alone.
"""

from __future__ import annotations

from core.bundled import resolve_llm
from core.settings import HearthSettings

PASSAGE = (
    "The Norman conquest of England began in 1066, when William, Duke of Normandy, defeated "
    "King Harold at the Battle of Hastings. William was crowned at Westminster Abbey on "
    "Christmas Day 1066 and built castles across the country to hold it."
)


def _answer(llm: object, question: str) -> str:
    out = llm.create_chat_completion(  # type: ignore[attr-defined]
        messages=[
            {"role": "system", "content": "Answer from the passage in one sentence."},
            {"role": "user", "content": f"{PASSAGE}\n\nQuestion: {question}"},
        ],
        temperature=0.0,
        max_tokens=40,
        seed=0,
    )
    return str(out["choices"][0]["message"]["content"])


def test_lookup_decoding_writes_the_plain_answer_at_temperature_zero(
    settings: HearthSettings,
) -> None:
    import llama_cpp
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    path = str(resolve_llm("smollm2-135m", settings.models_dir))
    common = {"model_path": path, "n_ctx": 512, "n_threads": 1, "verbose": False}
    plain = llama_cpp.Llama(**common)
    lookup = llama_cpp.Llama(**common, draft_model=LlamaPromptLookupDecoding(num_pred_tokens=2))
    for question in ("When did the Norman conquest begin?", "Where was William crowned?"):
        expected = _answer(plain, question)
        assert expected.strip()
        assert _answer(lookup, question) == expected
