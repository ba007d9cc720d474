"""Voice questions over HTTP: a multipart upload of a recording (field ``file``)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Annotated

from anyio import to_thread
from litestar import Controller, post
from litestar.datastructures import State, UploadFile
from litestar.enums import RequestEncodingType
from litestar.params import Body

from core.errors import InvalidInputError
from service.answering.voice import VoiceService
from service.schemas import VoiceAskResponse


@dataclass
class VoiceUpload:
    """A recorded question: any format PyAV reads (wav, flac, mp3, m4a, ogg, opus, webm)."""

    file: UploadFile


class VoiceAskController(Controller):
    """Questions asked by voice."""

    path = "/api/ask/voice"
    tags = ["ask"]

    @post("/", status_code=200)
    async def ask_voice(
        self,
        data: Annotated[VoiceUpload, Body(media_type=RequestEncodingType.MULTI_PART)],
        state: State,
    ) -> VoiceAskResponse:
        """Transcribe the uploaded recording (multipart field ``file``) and answer it like
        ``/api/ask``; the transcript is returned with the answer. An empty, unreadable or silent
        recording is a 4xx with the reason."""
        upload = data.file
        if not isinstance(upload, UploadFile):
            raise InvalidInputError("file: must be an uploaded recording", field="file")
        content = await upload.read()
        service: VoiceService = state.hearth.voice
        name = upload.filename or "recording"
        result = await to_thread.run_sync(service.answer, io.BytesIO(content), name)
        return VoiceAskResponse(**result.as_dict())
