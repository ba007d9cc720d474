"""Keyword search kept inside the catalogue: a Protocol and one backend per SQL dialect."""

from core.keywords.base import KeywordIndex, open_keyword_index

__all__ = ["KeywordIndex", "open_keyword_index"]
