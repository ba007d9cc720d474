"""The SQL catalogue: ORM models, engine and migrations."""

from core.db.answers import AnswerRecord, Conversation, Message
from core.db.models import Base, Chunk, Document, LedgerEntry
from core.db.session import Database
from core.db.templates import PromptTemplate, PromptTemplateVersion

__all__ = [
    "AnswerRecord",
    "Base",
    "Chunk",
    "Conversation",
    "Database",
    "Document",
    "LedgerEntry",
    "Message",
    "PromptTemplate",
    "PromptTemplateVersion",
]
