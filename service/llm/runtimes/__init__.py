"""The LLM runtimes behind `service.llm.base.LLMRuntime`: llama.cpp in process (llama_cpp.py) and a
remote OpenAI-compatible server (remote_openai.py)."""
