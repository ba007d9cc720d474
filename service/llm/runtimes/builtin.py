"""Hearth's own LLM runtimes as a plugin (core/plugins.py): ``local`` (llama.cpp in process) and
``openai`` (an OpenAI-compatible server), registered through the hook a third party's uses."""

from __future__ import annotations

from core.bundled import resolve_llm
from core.plugins import Register, hookimpl
from core.settings import HearthSettings
from service.llm.base import LLMRuntime, ModelConfig


def open_llama_cpp(settings: HearthSettings, config: ModelConfig) -> LLMRuntime:
    """The configured GGUF (bundled name or path) loaded by llama.cpp in this process."""
    from service.llm.runtimes.llama_cpp import LlamaCppRuntime

    path = resolve_llm(config.model, settings.models_dir)
    return LlamaCppRuntime(
        config.name, path, settings.llm, n_ctx=config.n_ctx, kv_type=config.kv_type
    )


def open_remote(settings: HearthSettings, config: ModelConfig) -> LLMRuntime:
    """A client of the OpenAI-compatible server at the model's ``url``."""
    from service.llm.runtimes.remote_openai import OpenAIRuntime

    return OpenAIRuntime(
        config.name, config.model, config.url or "", config.n_ctx, settings.llm.remote_timeout_s
    )


@hookimpl
def register_llm_runtimes(register: Register) -> None:
    """``local`` and ``openai``."""
    register("local", open_llama_cpp)
    register("openai", open_remote)
