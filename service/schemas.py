"""Request and response types of the REST API shared across features (they feed the OpenAPI
document): row-id bounds every controller uses, and the ask/answer shapes. A feature's own
shapes live in its folder (``service/library/schemas.py``, ``service/system/schemas.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, TypeVar

import msgspec
from litestar.params import Parameter

# Row ids are INTEGER columns: 64-bit on SQLite but 32-bit on Postgres, where a larger id is a
# driver error (a 500). One bound for both backends, checked before the database sees it.
MAX_ID = 2**31 - 1
# The same bound on a row id in a JSON body (msgspec enforces it while decoding).
BodyId = Annotated[int, msgspec.Meta(ge=1, le=MAX_ID)]


@dataclass
class AskRequest:
    """A question to answer from the knowledge base, optionally on a named model or task."""

    question: str
    model: str | None = None
    task: str | None = None
    conversation_id: BodyId | None = None
    collection: str | None = None


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


# A row id in a path: SQLite and Postgres integers are 64-bit, so a larger number is a 400 naming
# the parameter, not an OverflowError deep in the driver.
Id = Annotated[int, Parameter(ge=1, le=MAX_ID, description="A row id (1 to 2^31-1).")]
