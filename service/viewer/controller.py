"""Citations in place over HTTP: a chunk's view, a page as PNG, a document's original file."""

from __future__ import annotations

from typing import Annotated, Any

from anyio import to_thread
from litestar import Controller, Response, get
from litestar.datastructures import State
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter
from litestar.response import File

from core.errors import InvalidInputError
from core.knowledge import KnowledgeBase
from service.schemas import Id
from service.viewer.original import byte_range, read_range
from service.viewer.service import Viewer

Page = Annotated[int, Parameter(ge=1, le=100_000, description="A page number (1-based).")]
Scale = Annotated[
    float | None,
    Parameter(ge=0.25, le=4.0, description="Pixels per PDF point (the viewer.scale setting)."),
]
Gone = ResponseSpec(None, description="The file was deleted or moved since it was ingested.")
Changed = ResponseSpec(None, description="The file changed since it was ingested.")
FILE_ERRORS: dict[int, ResponseSpec] = {409: Changed, 410: Gone}


def viewer_of(state: State) -> Viewer:
    """The app's viewer, made on first use for the knowledge base it serves."""
    kb: KnowledgeBase = state.hearth.kb
    viewer: Viewer | None = state.get("viewer")
    if viewer is None or viewer.db is not kb.db:
        viewer = Viewer(kb.db, kb.settings)
        state["viewer"] = viewer
    return viewer


class ViewerController(Controller):
    """Show a citation where it is: the page, the photo, the recording, the rows."""

    path = "/api"
    tags = ["documents"]

    @get("/chunks/{chunk_id:int}/view", sync_to_thread=True)
    def view(self, chunk_id: Id, state: State) -> dict[str, Any]:
        """One chunk in place: ``kind`` (pdf, image, audio, table, text), the passage, its
        document and ``where`` in words; ``page`` (number, pages, width/height in points or
        pixels, ``image_url``, ``marked_url``, ``marks`` with ``rects`` and ``fractions``
        [x0, y0, x1, y1] from the top left) for PDFs and photos; ``audio`` (start, end in
        seconds, transcript ``lines``, ``media_url``); ``table`` (header, rows); ``context``
        (the text around the passage, ``cited`` on the passage); ``message`` for e-mail;
        ``original`` says whether the file is as ingested (else ``status`` 409/410 and
        ``reason``). 404 for a chunk that does not exist."""
        return viewer_of(state).view(chunk_id)

    @get(
        "/documents/{document_id:int}/pages/{page:int}",
        sync_to_thread=True,
        media_type="image/png",
        responses=FILE_ERRORS,
    )
    def page(
        self,
        document_id: Id,
        page: Page,
        state: State,
        scale: Scale = None,
        chunk: Annotated[
            int | None, Parameter(ge=1, le=2**31 - 1, description="Draw this chunk's marks.")
        ] = None,
    ) -> Response[bytes]:
        """Page ``page`` of a PDF (rendered at ``scale``) or frame of an image file as PNG,
        with ``chunk``'s marks drawn when given. 404 past the last page, for a file without
        pages or an unknown document; 409 / 410 when the file changed or went since ingest."""
        data = viewer_of(state).page_png(document_id, page, scale, chunk)
        return Response(
            data, media_type="image/png", headers={"Cache-Control": "private, max-age=300"}
        )

    @get(
        "/documents/{document_id:int}/original",
        responses={
            206: ResponseSpec(None, description="The requested byte range."),
            416: ResponseSpec(None, description="The byte range is outside the file."),
            **FILE_ERRORS,
        },
    )
    async def original(
        self,
        document_id: Id,
        state: State,
        range_: Annotated[str | None, Parameter(header="range", required=False)] = None,
    ) -> Any:
        """The document's file as it was ingested (its content type, ``Content-Disposition:
        inline``; ``Range: bytes=a-b`` answers 206 with that slice). Found by the catalogue's
        id only. 404 for an unknown document or an attachment; 410 when the file is gone,
        409 when it changed since ingest (size or sha256)."""
        found = await to_thread.run_sync(viewer_of(state).original, document_id)
        disposition = f'inline; filename="{found.filename}"'
        headers = {"Accept-Ranges": "bytes", "Content-Disposition": disposition}
        try:
            span = byte_range(range_, found.size)
        except InvalidInputError as exc:
            return Response(
                {"error": "RangeNotSatisfiable", "detail": exc.message, "field": "range"},
                status_code=416,
                headers={**headers, "Content-Range": f"bytes */{found.size}"},
            )
        if span is None:
            return File(
                found.path,
                filename=found.filename,
                media_type=found.media_type,
                content_disposition_type="inline",
                headers={"Accept-Ranges": "bytes"},
            )
        start, end = span
        data = await to_thread.run_sync(read_range, found.path, start, end)
        return Response(
            data,
            status_code=206,
            media_type=found.media_type,
            headers={**headers, "Content-Range": f"bytes {start}-{end}/{found.size}"},
        )
