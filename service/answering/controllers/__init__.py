"""The HTTP controllers of answering: ``AskController`` (``/api/ask``, streamed or whole, and
``stream_events``, the SSE events of one answer, shared with MCP), ``ConversationController``,
``AnswerController`` (stored answers, replay) and ``VoiceAskController``. The ``_modules`` are
private; the work is ``service.answering.orchestration``'s.
"""

from service.answering.controllers._ask import AskController, stream_events
from service.answering.controllers._conversations import AnswerController, ConversationController
from service.answering.controllers._voice import VoiceAskController

__all__ = [
    "AnswerController",
    "AskController",
    "ConversationController",
    "VoiceAskController",
    "stream_events",
]
