"""Hearth's service: the HTTP API, the CLI and one folder per feature (answering, library,
templates, tokens, openai_compat, evaluation, system, llm, ui)."""

from importlib.metadata import version

#: The installed package's version (pyproject.toml is the one place it is written).
__version__ = version("hearth")
