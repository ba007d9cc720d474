"""OpenAI-compatible routes (/v1): audio now; chat, embeddings and models move here."""
