"""Answering a question: condensing, retrieval, prompt fitting, generation and checks."""
