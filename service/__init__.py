"""Hearth's service: the HTTP API, retrieval, prompts and the LLM runtime."""
