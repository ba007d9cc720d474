"""Voice questions over HTTP: a multipart upload of a recording (field ``file``)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Annotated, Any

from litestar import Controller, Request, post
from litestar.datastructures import State, UploadFile
from litestar.enums import RequestEncodingType
from litestar.params import Body

from core.errors import InvalidInputError
from service.answering.schemas import VoiceAskResponse
from service.bridge import run_in_thread
from service.state import Hearth


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
        request: Request[Any, Any, Any],
    ) -> VoiceAskResponse:
        """Transcribe the uploaded recording (multipart field ``file``) and answer it like
        ``/api/ask``; the transcript is returned with the answer. An empty, unreadable or silent
        recording is a 4xx with the reason. A client that disconnects stops the answer."""
        upload = data.file
        if not isinstance(upload, UploadFile):
            raise InvalidInputError("file: must be an uploaded recording", field="file")
        content = await upload.read()
        hearth: Hearth = state.hearth
        service = hearth.voice
        name = upload.filename or "recording"
        result = await run_in_thread(
            lambda stop: service.answer(io.BytesIO(content), name, stop),
            None,
            "hearth-voice",
            request=request,
            generations=hearth.generations,
        )
        return VoiceAskResponse(**result.as_dict())
