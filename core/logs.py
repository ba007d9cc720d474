"""Logging set-up: quiet by default, never the user's text unless debug is switched on."""

from __future__ import annotations

import logging
import sys

_NOISY = (
    "httpx",
    "chromadb",
    "sentence_transformers",
    "faster_whisper",
    "urllib3",
    "uvicorn.access",
)


def configure_logging(level: str = "WARNING", log_file: str | None = None) -> None:
    """Configure the root logger.

    The default is WARNING to stderr with no file. User text (documents, questions, answers) is
    only ever logged at DEBUG, so it appears only when debug logging is switched on explicitly.
    """
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.WARNING
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    logging.basicConfig(
        level=numeric,
        handlers=handlers,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )
    for name in _NOISY:
        logging.getLogger(name).setLevel(max(numeric, logging.WARNING))
