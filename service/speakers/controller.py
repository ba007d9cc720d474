"""``GET/PUT /api/documents/{id}/speakers``: a recording's speakers and their names."""

from __future__ import annotations

from dataclasses import dataclass

from litestar import Controller, get, put
from litestar.datastructures import State

from core.knowledge import KnowledgeBase
from service.schemas import Id
from service.speakers.service import list_speakers, rename


@dataclass
class SpeakerName:
    """A speaker's number (from 1) and the name to call it by ("" for "Speaker N")."""

    speaker: int
    name: str


@dataclass
class SpeakerOut:
    """A speaker and how citations call it."""

    speaker: int
    label: str


class SpeakerController(Controller):
    """Who speaks in a recording."""

    path = "/api/documents/{document_id:int}/speakers"
    tags = ["documents"]

    @get("/", sync_to_thread=True)
    def speakers(self, document_id: Id, state: State) -> list[SpeakerOut]:
        """The document's speakers (empty for a document that is not a diarized recording)."""
        kb: KnowledgeBase = state.hearth.kb
        found = list_speakers(kb.db, document_id, state.hearth.settings.data_dir)
        return [SpeakerOut(k, v) for k, v in found.items()]

    @put("/", sync_to_thread=True)
    def name(self, document_id: Id, data: SpeakerName, state: State) -> list[SpeakerOut]:
        """Name a speaker; citations and later ingests of the file use the name. 400 naming
        ``speaker`` when the recording has no such speaker; 404 for an unknown document."""
        kb: KnowledgeBase = state.hearth.kb
        rename(kb.db, state.hearth.settings.data_dir, document_id, data.speaker, data.name)
        return [SpeakerOut(k, v) for k, v in list_speakers(kb.db, document_id).items()]
