"""Chooses and builds the LLM runtime from settings."""

from __future__ import annotations

from core.settings import HearthSettings
from service.llm.base import LLMRuntime
from service.llm.config import model_configs


def create_runtime(settings: HearthSettings) -> LLMRuntime:
    """The first configured model's runtime (llama.cpp in process or an OpenAI-compatible
    server, by ``llm.backend``); the service itself loads every model through ``ModelPool``."""
    from service.llm.pool import create_slot_runtime

    return create_slot_runtime(settings, model_configs(settings)[0])
