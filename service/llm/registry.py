"""Chooses and builds the LLM runtime from settings."""

from __future__ import annotations

from core.bundled import resolve_llm
from core.settings import HearthSettings
from service.llm.base import LLMRuntime


def create_runtime(settings: HearthSettings) -> LLMRuntime:
    """The configured model: a bundled name (assembled if needed) or a GGUF path."""
    from service.llm.llama_cpp_runtime import LlamaCppRuntime

    path = resolve_llm(settings.llm.model, settings.models_dir)
    return LlamaCppRuntime(settings.llm.model, path, settings.llm)
