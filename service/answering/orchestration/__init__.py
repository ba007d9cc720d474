"""Orchestration: a question turned into a grounded, cited, stored answer, and what is kept of it.

Public: ``AnswerService`` (condense, retrieve, assemble the prompt, stream, review, store),
``AskOptions``, ``Answer``, ``Event``, ``validate_question``, ``MAX_QUESTION_CHARS``,
``CITATIONS_ONLY_REMINDER``, ``prompt_timings``, ``further_hops`` (the retrieval hops after
the first search, an answer's and its replay's); the answers table (``AnswerRecords``,
``AnswerRecordOut``); conversations (``ConversationStore``, ``ConversationOut``,
``MessageOut``); ``replay`` and ``ReplayResult``; voice questions (``VoiceService``,
``VoiceAnswer``). The HTTP controllers are ``service.answering.controllers``. The ``_modules``
are private.
"""

from service.answering.orchestration._conversations import (
    ConversationOut,
    ConversationStore,
    MessageOut,
)
from service.answering.orchestration._records import AnswerRecordOut, AnswerRecords
from service.answering.orchestration._replay import ReplayResult, replay
from service.answering.orchestration._service import (
    CITATIONS_ONLY_REMINDER,
    MAX_QUESTION_CHARS,
    Answer,
    AnswerService,
    AskOptions,
    Event,
    further_hops,
    prompt_timings,
    validate_question,
)
from service.answering.orchestration._voice import VoiceAnswer, VoiceService

__all__ = [
    "CITATIONS_ONLY_REMINDER",
    "MAX_QUESTION_CHARS",
    "Answer",
    "AnswerRecordOut",
    "AnswerRecords",
    "AnswerService",
    "AskOptions",
    "ConversationOut",
    "ConversationStore",
    "Event",
    "MessageOut",
    "ReplayResult",
    "VoiceAnswer",
    "VoiceService",
    "further_hops",
    "prompt_timings",
    "replay",
    "validate_question",
]
