"""LLM runtimes behind one Protocol."""

from service.llm.base import ChatMessage, LLMRuntime, SamplingParams
from service.llm.registry import create_runtime

__all__ = ["ChatMessage", "LLMRuntime", "SamplingParams", "create_runtime"]
