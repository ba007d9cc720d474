"""LLM runtimes behind one Protocol."""

from service.llm.base import ChatMessage, LLMRuntime, SamplingParams

__all__ = ["ChatMessage", "LLMRuntime", "SamplingParams"]
