"""The ask/answer shapes of the REST API (they feed the OpenAPI document): ``AskRequest``, the
answer's fields written once (``AnswerFields``, generic in the passage type), ``Source``,
``AskResponse`` and ``VoiceAskResponse``. Imports nothing of answering, so a feature that takes
a question or gives an answer's shape (whole documents, the ask and voice controllers) imports
this module alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from service.schemas import BodyId


@dataclass
class AskRequest:
    """A question to answer from the knowledge base, optionally on a named model or task;
    ``collection`` and ``speakers`` (names given to recordings' speakers, or labels such as
    ``Speaker 2``: only their turns are searched) limit what it sees."""

    question: str
    model: str | None = None
    task: str | None = None
    conversation_id: BodyId | None = None
    collection: str | None = None
    speakers: list[str] | None = None


@dataclass
class Source:
    """A passage given to the model, numbered as the answer cites it."""

    number: int
    chunk_id: int
    document_id: int
    path: str
    name: str
    label: str
    file_type: str
    provenance: dict[str, Any]
    score: float
    text: str


P = TypeVar("P")


@dataclass
class AnswerFields(Generic[P]):
    """The fields of an answer, written once: :class:`AskResponse` documents its passages as
    :class:`Source`, :class:`service.answering.orchestration.Answer` holds them as JSON-ready
    dicts."""

    answer: str
    sources: list[P]
    citations: list[P]
    model: str
    sampling: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict)
    answer_id: int | None = None
    conversation_id: BodyId | None = None
    standalone_question: str = ""
    template: dict[str, Any] = field(default_factory=dict)
    grounding: dict[str, Any] = field(default_factory=dict)


@dataclass
class AskResponse(AnswerFields[Source]):
    """An answer with the passages it was given and the ones it cites."""

    # Named again so the OpenAPI document shows Source (Litestar does not resolve a generic base).
    sources: list[Source]
    citations: list[Source]


@dataclass
class VoiceAskResponse(AskResponse):
    """An answer to a recorded question, with what was heard."""

    transcript: str = ""
    audio_seconds: float = 0.0
