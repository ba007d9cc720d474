"""Prompt assembly: the one place a template is rendered, and the messages built from it.

Public: ``PromptAssembler`` (variables, messages, context fitting, the condense-question
prompt), ``render_parts`` and ``RenderedPrompt`` (Jinja2, sandboxed), ``SAMPLE`` (variables a
new version must render with), ``clean_for_prompt`` (passage text as the model sees it),
``MAX_HISTORY_TURNS``. The default template texts are files under ``defaults/<revision>/``
(``<name>.system.txt``, ``<name>.user.txt``, one final newline not part of the text), read by
the Alembic migration of that revision; they are package data, so an installed wheel has them.
``PromptAssembler(neutralize=...)`` is the seam for what the model reads of a passage. The
``_modules`` are private.
"""

from service.answering.prompting._assemble import MAX_HISTORY_TURNS, PromptAssembler
from service.answering.prompting._clean import clean_for_prompt
from service.answering.prompting._render import SAMPLE, RenderedPrompt, render_parts

__all__ = [
    "MAX_HISTORY_TURNS",
    "SAMPLE",
    "PromptAssembler",
    "RenderedPrompt",
    "clean_for_prompt",
    "render_parts",
]
