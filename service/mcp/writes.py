"""The writing tools, ``ingest`` and ``remove`` of a path: refused unless ``mcp.allow_writes`` is
on, and for any path (or any file a folder holds, links followed) outside ``mcp.write_folders``.

Each holds the data directory's writer lock while it writes, as ``hearth ingest`` / ``remove``
do (a second writer is refused, named); ``ingest`` reports MCP progress per file and stops
after the current file when the client cancels the call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from anyio import from_thread, to_thread
from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from core.catalogue import Action
from core.errors import InvalidInputError
from core.lock import WriterLock
from core.settings import HearthSettings
from ingest.files import iter_files
from ingest.pipeline import FileResult
from ingest.remove import remove_documents
from service.library.service import valid_collection
from service.mcp.errors import as_tool_errors
from service.mcp.schemas import WriteResult

if TYPE_CHECKING:
    from service.mcp.server import HearthMCP
    from service.state import Hearth

Report = Callable[[int, int, str], None]
#: One MCP write at a time in this process (the writer lock is shared within a process).
_WRITING = threading.Lock()


class Stopped(Exception):
    """The client cancelled an ingest; raised between two files."""


def allowed_path(settings: HearthSettings, raw: str) -> Path:
    """``raw`` made absolute, if writes over MCP are on and it lies inside ``mcp.write_folders``
    (links resolved, so a link cannot lead out); else ``InvalidInputError`` naming ``path``."""
    cfg = settings.mcp
    if not cfg.allow_writes:
        raise InvalidInputError(
            "path: writes over MCP are off (set mcp.allow_writes and mcp.write_folders)",
            field="path",
        )
    if not raw or not raw.strip():
        raise InvalidInputError("path: must not be empty", field="path")
    path = Path(raw.strip()).expanduser()
    if not path.is_absolute():
        raise InvalidInputError(f"path: {raw!r} is not an absolute path", field="path")
    if not inside(path, cfg.write_folders):
        raise InvalidInputError(
            f"path: {path} is outside the folders MCP may write (mcp.write_folders)",
            field="path",
        )
    return path


def inside(path: Path, folders: list[Path]) -> bool:
    """True when ``path``, links resolved, lies in one of ``folders`` (also resolved)."""
    real = path.resolve()
    return any(real.is_relative_to(folder.expanduser().resolve()) for folder in folders)


def file_dict(result: FileResult) -> dict[str, Any]:
    """A file's outcome as the tools return it."""
    return {
        "path": result.path,
        "action": str(result.action),
        "chunks": result.chunks,
        "error": result.error,
    }


def ingest_path(
    hearth: Hearth, path: Path, collection: str, stop: threading.Event, report: Report
) -> WriteResult:
    """Ingest a file or a folder (recursively) with the library's pipeline under the writer lock;
    files a folder's links lead out of ``mcp.write_folders`` are refused, each named."""
    settings = hearth.settings
    if not path.exists():
        raise InvalidInputError(f"path: {path}: no such file or folder", field="path")
    found = list(iter_files([path], follow_symlinks=settings.ingest.follow_symlinks))
    outside = [f for f in found if not inside(f, settings.mcp.write_folders)]
    files = [f for f in found if f not in outside]
    results = [
        FileResult(str(f), Action.FAILED, error=f"{f}: leads outside mcp.write_folders")
        for f in outside
    ]
    pipeline = hearth.library.pipeline

    def step(result: FileResult) -> None:
        results.append(result)
        report(len(results), len(found), f"{len(results)} of {len(found)} files")
        if stop.is_set():
            raise Stopped

    with _WRITING, WriterLock.for_settings(settings), suppress(Stopped):
        pipeline.ingest(files, collection, step)
    return WriteResult(path=str(path), files=[file_dict(r) for r in results])


def remove_path(hearth: Hearth, path: Path) -> WriteResult:
    """Remove the documents at a path (a file, or everything below a folder) from every store,
    under the writer lock; a path with no document is an error naming it."""
    with _WRITING, WriterLock.for_settings(hearth.settings):
        results = remove_documents(hearth.kb, [path])
    if not results:
        raise InvalidInputError(f"path: no document found at {path}", field="path")
    return WriteResult(path=str(path), files=[file_dict(r) for r in results])


async def in_worker(work: Callable[[threading.Event], WriteResult]) -> WriteResult:
    """Run ``work(stop)`` in a worker thread; if the call is cancelled, ``stop`` is set (the work
    ends after its current file) and the call returns at once."""
    stop = threading.Event()
    try:
        return await to_thread.run_sync(lambda: work(stop), abandon_on_cancel=True)
    finally:
        stop.set()


def progress_reporter(ctx: Context[Any, Any]) -> Report:
    """A per-file report that sends MCP progress from the worker thread (never fails the work:
    a client gone mid-ingest only loses its notifications)."""

    def report(done: int, total: int, message: str) -> None:
        with suppress(RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            from_thread.run(ctx.report_progress, float(done), float(total), message)

    return report


WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
Path_ = Annotated[str, Field(description="An absolute path inside the folders MCP may write.")]


def register(server: HearthMCP) -> None:
    """Add ``ingest`` and ``remove`` to ``server`` (listed always; refused while writes are off,
    so a client learns why)."""

    @server.tool(annotations=WRITES, structured_output=True)
    async def ingest(
        path: Path_,
        ctx: Context[Any, Any],
        collection: Annotated[str, Field(description="The collection it joins.")] = "default",
    ) -> WriteResult:
        """Add a file or a folder (recursively) to the library, or bring it up to date. Only
        when the user allowed writes over MCP, and only inside the folders they named."""
        with as_tool_errors("an MCP ingest"):
            hearth = await server.provider()
            target = allowed_path(hearth.settings, path)
            name = valid_collection(collection)
            report = progress_reporter(ctx)
            return await in_worker(lambda stop: ingest_path(hearth, target, name, stop, report))

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, open_world_hint=False
        ),
        structured_output=True,
    )
    async def remove(path: Path_) -> WriteResult:
        """Remove the documents at a path (a file, or everything below a folder) from the
        library; the files themselves stay. Only where ingest may write."""
        with as_tool_errors("an MCP removal"):
            hearth = await server.provider()
            target = allowed_path(hearth.settings, path)
            return await in_worker(lambda _stop: remove_path(hearth, target))
