"""The SQL catalogue: ORM models, engine and migrations."""

from core.db.answers import AnswerRecord, Conversation, Message
from core.db.models import Base, Chunk, Document, LedgerEntry
from core.db.session import Database
from core.db.speakers import SpeakerName
from core.db.templates import PromptTemplate, PromptTemplateVersion
from core.db.tokens import AccessToken

__all__ = [
    "AccessToken",
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
    "SpeakerName",
]
