"""Orchestration: a question turned into a grounded, cited, stored answer, and what is kept of it.

Public: ``AnswerService`` (condense, retrieve, assemble the prompt, stream, review, store),
``AskOptions``, ``Answer``, ``Event``, ``validate_question``, ``MAX_QUESTION_CHARS``,
``prompt_timings``, ``further_hops`` (the retrieval hops after the first search, an answer's
and its replay's), ``with_turns_around`` (a recording's turn with its neighbours, after fitting),
``restatement``, ``restating``, ``RESTATE_REMINDER`` and ``NO_CITATION`` (a
reply stating no fact asked once more, unable to cite: an answer's and its replay's); the
answers table (``AnswerRecords``, ``AnswerRecordOut``); conversations (``ConversationStore``,
``ConversationOut``, ``MessageOut``); ``replay`` and ``ReplayResult``; voice questions
(``VoiceService``, ``VoiceAnswer``); the language a question is translated into before fitting
passages in another (``passages_language``, ``language_label``). The HTTP controllers are
``service.answering.controllers``. The ``_modules`` are private.
"""

from service.answering.orchestration._conversations import (
    ConversationOut,
    ConversationStore,
    MessageOut,
)
from service.answering.orchestration._crosslingual import language_label, passages_language
from service.answering.orchestration._records import AnswerRecordOut, AnswerRecords
from service.answering.orchestration._replay import ReplayResult, replay
from service.answering.orchestration._service import (
    MAX_QUESTION_CHARS,
    NO_CITATION,
    RESTATE_REMINDER,
    Answer,
    AnswerService,
    AskOptions,
    Event,
    further_hops,
    prompt_timings,
    restatement,
    restating,
    validate_question,
    with_turns_around,
)
from service.answering.orchestration._voice import VoiceAnswer, VoiceService

__all__ = [
    "MAX_QUESTION_CHARS",
    "NO_CITATION",
    "RESTATE_REMINDER",
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
    "language_label",
    "passages_language",
    "prompt_timings",
    "replay",
    "restatement",
    "restating",
    "validate_question",
    "with_turns_around",
]
