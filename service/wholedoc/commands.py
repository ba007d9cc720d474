"""`hearth summarise PATH...`, `hearth extract WHAT PATH...` (also `hearth ask --every WHAT`) and
`hearth compare A B`: whole-document modes in a terminal, with a progress bar."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import click

from core.settings import HearthSettings
from service.wholedoc.service import WholeRequest


def run_mode(settings: HearthSettings, request: WholeRequest, as_json: bool) -> dict[str, Any]:
    """Run ``request`` on a Hearth started here, a bar on stderr; print the result (text, then
    its sources; or JSON). Ctrl-C stops the run and stores nothing."""
    from tqdm import tqdm

    from service.state import Hearth
    from service.wholedoc.service import WholeDocService

    settings.llm.warmup = False  # one request: warming up first would only delay it
    hearth = Hearth.start(settings)
    stop = threading.Event()
    done: dict[str, Any] = {}
    try:
        service = WholeDocService(
            hearth.kb, hearth.pool, settings.data_dir / "wholedoc", hearth.embedder
        )
        job = service.prepare(request)
        bar = None
        try:
            for event in service.stream(job, stop, service.admit(job)):
                if event.kind == "progress":
                    if bar is None:
                        bar = tqdm(
                            total=event.data["chunks_total"],
                            unit="chunk",
                            desc=request.mode,
                            file=sys.stderr,
                            disable=None,  # a bar on a terminal only
                        )
                    bar.update(event.data["chunks_read"] - bar.n)
                elif event.kind == "done":
                    done = event.data
        except KeyboardInterrupt:
            stop.set()
            raise
        finally:
            if bar is not None:
                bar.close()
    finally:
        hearth.close()
    if done and not done.get("cached"):
        seconds = done.get("timings", {}).get("total_s", 0.0)
        click.echo(
            f"read {done['chunks_read']} chunks in {done['groups']} group(s), {seconds:.1f} s",
            err=True,
        )
    if as_json:
        click.echo(json.dumps(done, ensure_ascii=False, indent=2))
        return done
    click.echo(done.get("answer", ""))
    if done.get("cached"):
        click.echo("(from the cache: the documents have not changed)", err=True)
    if done.get("sources"):
        click.echo("\nSources:")
        for src in done["sources"]:
            click.echo(f"  [{src['number']}] {src['label']}  ({src['path']})")
    return done


def _refs(paths: tuple[str, ...]) -> tuple[str, ...]:
    """Paths as the catalogue records them (absolute); ids and file names as given."""
    return tuple(str(Path(p).resolve()) if Path(p).exists() else p for p in paths)


_json = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
_refresh = click.option("--refresh", is_flag=True, help="Read again even if a result is cached.")
_collection = click.option(
    "--collection", default=None, help="With no PATH: every document of this collection."
)


@click.command("summarise")
@click.argument("paths", nargs=-1)
@_collection
@_json
@_refresh
@click.pass_obj
def summarise_command(
    settings: HearthSettings,
    paths: tuple[str, ...],
    collection: str | None,
    as_json: bool,
    refresh: bool,
) -> None:
    """Summarise whole documents (files, folders, ids or names), reading every chunk; each
    sentence cited. With no PATH, the whole --collection."""
    if not paths and not collection:
        raise click.UsageError("give a PATH (file, folder, id or name) or --collection")
    request = WholeRequest("summarise", _refs(paths), collection, refresh=refresh, confirm=True)
    run_mode(settings, request, as_json)


@click.command("extract")
@click.argument("what")
@click.argument("paths", nargs=-1)
@_collection
@_json
@_refresh
@click.pass_obj
def extract_command(
    settings: HearthSettings,
    what: str,
    paths: tuple[str, ...],
    collection: str | None,
    as_json: bool,
    refresh: bool,
) -> None:
    """List every WHAT (e.g. "deadline") in whole documents, one cited line per item."""
    extract(settings, what, paths, collection, as_json, refresh)


def extract(
    settings: HearthSettings,
    what: str,
    paths: tuple[str, ...],
    collection: str | None,
    as_json: bool,
    refresh: bool = False,
) -> None:
    """``hearth extract`` and ``hearth ask --every``: every ``what`` in the documents."""
    request = WholeRequest("extract", _refs(paths), collection, what, refresh=refresh, confirm=True)
    run_mode(settings, request, as_json)


@click.command("compare")
@click.argument("first")
@click.argument("second")
@_json
@_refresh
@click.pass_obj
def compare_command(
    settings: HearthSettings, first: str, second: str, as_json: bool, refresh: bool
) -> None:
    """What is the same and what changed between two documents (or two versions of one),
    each change cited to both sides."""
    request = WholeRequest("compare", _refs((first, second)), refresh=refresh, confirm=True)
    run_mode(settings, request, as_json)
