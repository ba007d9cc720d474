"""Answering a question: passages fitted to the prompt, and (after the restructure) the rest."""
