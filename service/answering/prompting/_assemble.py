"""Prompt assembly: a template's variables from the question, passages and history, the chat
messages of a rendered template, and the fitting of them into a model's context.

Moved from ``AnswerService`` (service/answering/orchestration) so that the answer, its replay
and the MCP prompt build the same messages in one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from core.provenance import as_turn
from service.answering.grounding import neutralize
from service.answering.prompting._clean import clean_for_prompt
from service.answering.retrieval import Passage, overflow, prompt_tokens
from service.llm.base import ChatMessage, LLMRuntime

if TYPE_CHECKING:
    from core.settings import HearthSettings
    from service.answering.prompting._render import RenderedPrompt

#: Turns of history kept at most before the token budget is applied.
MAX_HISTORY_TURNS = 12
#: The template translating a question into its passages' language before fitting.
TRANSLATE_QUESTION = "translate-question"


class Templates(Protocol):
    """What the assembler needs of the versioned templates (``service.templates``'
    ``TemplateService``, which renders through this package: named here by shape, not
    imported, so the two packages do not import each other)."""

    def render(
        self, name: str, variables: dict[str, Any], version: int | None = None
    ) -> RenderedPrompt:
        """The named template's version (the active one when ``version`` is None) rendered
        with ``variables``; ``NotFoundError`` when there is no such template or version."""
        ...


class PromptAssembler:
    """Renders the versioned templates of ``templates`` into chat messages; the translate
    language is read from ``settings`` at each call. ``neutralize`` takes out of a passage's
    text what is addressed to an assistant before the model reads it (by default
    ``service.answering.grounding.neutralize``; ``bench/injection.py`` measures the reader that
    keeps it, ``lambda text: text``)."""

    def __init__(
        self,
        templates: Templates,
        settings: HearthSettings,
        neutralize: Callable[[str], str] = neutralize,
    ) -> None:
        self.templates = templates
        self.settings = settings
        self.neutralize = neutralize

    def variables(
        self, question: str, passages: list[Passage], history: list[dict[str, str]]
    ) -> dict[str, Any]:
        """The template variables: ``question``, ``sources`` (number, label, text cleaned and
        neutralized, a recording's as its speaker's turn "Maria: ...", path), ``history`` and
        ``language``."""
        return {
            "question": question,
            "sources": [
                {
                    "number": p.number,
                    "label": p.label,
                    "text": as_turn(p.provenance, self.neutralize(clean_for_prompt(p.text))),
                    "path": p.path,
                }
                for p in passages
            ],
            "history": history,
            "language": self.settings.llm.translate_to,
        }

    def messages(
        self,
        template: str,
        version: int | None,
        question: str,
        passages: list[Passage],
        history: list[dict[str, str]],
    ) -> tuple[RenderedPrompt, list[ChatMessage]]:
        """The rendered ``template`` (its active version when ``version`` is None) as messages:
        system, the history's turns, user."""
        prompt = self.templates.render(
            template, self.variables(question, passages, history), version
        )
        messages: list[ChatMessage] = [{"role": "system", "content": prompt.system}]
        messages += [ChatMessage(role=t["role"], content=t["content"]) for t in history]
        messages.append({"role": "user", "content": prompt.user})
        return prompt, messages

    def fit(
        self,
        llm: LLMRuntime,
        template: str,
        version: int | None,
        question: str,
        passages: list[Passage],
        history: list[dict[str, str]],
        max_tokens: int,
    ) -> tuple[RenderedPrompt, list[ChatMessage], list[Passage], list[dict[str, str]]]:
        """Render and fit into the context, leaving ``max_tokens`` for the answer: the oldest
        turns go first, then the lowest-ranked passages; ``ContextOverflowError`` when the
        question (with its best passage) does not fit."""
        budget = llm.n_ctx - max_tokens
        history = history[-MAX_HISTORY_TURNS:]
        while True:
            prompt, messages = self.messages(template, version, question, passages, history)
            used = prompt_tokens(llm, messages)
            if used <= budget:
                return prompt, messages, passages, history
            if history:
                history = history[2:] if len(history) > 1 else []
            elif len(passages) > 1:
                passages = passages[:-1]
            else:
                what = "the question with the best passage" if passages else "the question"
                raise overflow(llm, used, max_tokens, what)

    def translate_question(self, question: str, language: str) -> list[ChatMessage]:
        """The translate-question prompt (its active version) of ``question`` into ``language``
        (as a prompt writes it: "French"), as messages."""
        variables = {**self.variables(question, [], []), "language": language}
        prompt = self.templates.render(TRANSLATE_QUESTION, variables)
        return [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ]

    def condense(
        self, llm: LLMRuntime, question: str, history: list[dict[str, str]], max_tokens: int
    ) -> tuple[list[ChatMessage], list[dict[str, str]]]:
        """The condense-question prompt of a follow-up as messages, and the history it keeps
        (the oldest turns go until it fits with ``max_tokens`` to spare; empty: nothing fits
        or there was no history)."""
        history = history[-MAX_HISTORY_TURNS:]
        messages: list[ChatMessage] = []
        while history:  # the oldest turns go until the prompt fits
            prompt = self.templates.render(
                "condense-question", self.variables(question, [], history)
            )
            messages = [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ]
            if prompt_tokens(llm, messages) <= llm.n_ctx - max_tokens:
                break
            history = history[2:] if len(history) > 1 else []
        return messages, history
