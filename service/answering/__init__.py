"""Answering a question: retrieval, the prompt, the model's answer, its grounding check, the
conversations and answer records kept of it, replay of a recorded answer, voice questions, and the
HTTP controllers for asking, conversations and voice."""
