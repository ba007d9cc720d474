"""The OpenAI-compatible API Hearth serves (`/v1/...`): request and response shapes (schemas.py),
chat completions over Hearth's model and knowledge base (chat.py), the HTTP controller
(controller.py) and the audio routes (audio.py). The opposite direction, Hearth as a client of a
remote server, is service/llm/runtimes/remote_openai.py."""
