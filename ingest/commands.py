"""The `hearth ingest`, `hearth remove` and `hearth watch` commands.

Each writes to the data directory, so each holds its :class:`~core.lock.WriterLock` while it runs.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import click

from core.catalogue import Action
from core.errors import HearthError
from core.lock import WriterLock
from core.settings import HearthSettings
from ingest.files import catalogue_path, iter_files
from ingest.pipeline import FileResult, IngestPipeline, IngestReport
from ingest.progress import ProgressBar
from ingest.prune import prune_folders
from ingest.remove import named_path, remove_documents


def _open_pipeline(settings: HearthSettings) -> IngestPipeline:
    from core.embedder import create_embedder
    from core.knowledge import KnowledgeBase

    kb = KnowledgeBase(settings)
    kb.repair()
    return IngestPipeline(kb, create_embedder(settings.embedder, lazy=True))


#: Exit code of `hearth ingest` when at least one file failed (click's usage error is 2).
EXIT_FILES_FAILED = 3


def print_summary(report: IngestReport) -> None:
    """Totals, then every removed or moved file, then every failure with its reason."""
    done = (Action.ADDED, Action.UPDATED, Action.UNCHANGED, Action.EMPTY, Action.FAILED)
    counts: dict[str, int] = {a: report.count(a) for a in done}
    pruned = {a: report.count(a) for a in (Action.MOVED, Action.REMOVED) if report.count(a)}
    rate = report.chunks / report.seconds if report.seconds else 0.0
    carried = sum(r.attachments for r in report.results)
    click.echo(
        f"added {counts['added']}, updated {counts['updated']}, unchanged {counts['unchanged']}, "
        f"empty {counts['empty']}, failed {counts['failed']}"
        + "".join(f", {a} {n}" for a, n in pruned.items())
        + f"{f', attachments {carried}' if carried else ''} "
        f"({report.chunks} chunks in {report.seconds:.1f} s, {rate:.1f} chunks/s)"
    )
    for r in report.results:
        if r.action in (Action.MOVED, Action.REMOVED):
            click.echo(f"  {r.action}: {r.path}")
    for failure in report.failures:
        click.echo(f"  failed: {failure.path}: {failure.error}", err=True)


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--collection", default="default", show_default=True, help="Collection to add to.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option(
    "--no-prune",
    is_flag=True,
    help="Keep documents ingested from the folders before whose files are gone.",
)
@click.pass_obj
def ingest_command(
    settings: HearthSettings,
    paths: tuple[Path, ...],
    collection: str,
    quiet: bool,
    no_prune: bool,
) -> None:
    """Ingest files and folders (recursively) into the knowledge base.

    A folder ingested before is brought up to date: documents ingested from it whose files were
    deleted are removed, moved files keep their chunks (--no-prune keeps the old documents).
    Exit status: 0 when every file was ingested, unchanged or empty; 3 when any file failed
    (each is listed with its reason); 2 for a usage error.
    """
    from tqdm import tqdm

    try:
        files = list(iter_files(list(paths), follow_symlinks=settings.ingest.follow_symlinks))
    except HearthError as exc:
        raise click.ClickException(exc.message) from exc
    lock = WriterLock.for_settings(settings).acquire()
    pipeline = _open_pipeline(settings)
    # The bar counts bytes, so it moves within a large file as its batches are embedded.
    sizes = {os.path.abspath(f): _size(f) for f in files}
    shown: dict[str, int] = {}
    bar = tqdm(
        total=sum(sizes.values()),
        unit="B",
        unit_scale=True,
        disable=quiet or None,
        file=sys.stderr,
        desc="ingest",
    )

    def within(path: str, fraction: float) -> None:
        done = int(sizes.get(path, 0) * fraction)
        bar.update(done - shown.get(path, 0))
        shown[path] = done

    def progress(result: FileResult) -> None:
        bar.update(sizes.get(result.path, 0) - shown.pop(result.path, 0))
        bar.set_postfix_str(result.action)

    try:
        folders = [] if no_prune else [p for p in paths if p.is_dir()]
        pruned, handled = prune_folders(pipeline, folders, files, collection)
        for result in pruned:
            if result.action not in (Action.MOVED, Action.REMOVED):
                progress(result)
        todo = [f for f in files if f not in handled]
        report = pipeline.ingest(todo, collection, progress, within)
        report.results[:0] = pruned
    finally:
        bar.close()
        pipeline.kb.close()
        lock.release()
    print_summary(report)
    if report.failures:
        sys.exit(EXIT_FILES_FAILED)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # a broken link or a file gone: its failure is reported by the pipeline
        return 0


@click.command("remove")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.pass_obj
def remove_command(settings: HearthSettings, paths: tuple[Path, ...]) -> None:
    """Remove documents (a file, or everything below a folder) from every store."""
    from core.knowledge import KnowledgeBase

    with WriterLock.for_settings(settings):
        kb = KnowledgeBase(settings)
        kb.repair()
        try:
            results = remove_documents(kb, [named_path(kb, p) for p in paths])
        finally:
            kb.close()
    if not results:
        raise click.ClickException(f"no document found at {', '.join(map(str, paths))}")
    for r in results:
        click.echo(f"removed {r.path} ({r.chunks} chunks)")


@click.command("formats")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def formats_command(as_json: bool) -> None:
    """Every kind of file Hearth reads, with its loader, library and provenance."""
    import json
    import textwrap
    from dataclasses import asdict

    from ingest.loaders.base import formats

    rows = formats()
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    for r in rows:
        click.echo(f"{r.file_type:9} {r.loader}, library: {r.library}")
        click.echo(f"{'':9} provenance: {r.provenance}")
        files = " ".join(r.extensions) or "(by content)"
        for line in textwrap.wrap(f"files: {files}", 88):
            click.echo(f"{'':9} {line}")
    click.echo("Files are also checked by content: a file whose extension lies is read as what")
    click.echo("it is, or refused with the reason; e-mail attachments become linked documents.")


def _echo_results(results: list[FileResult]) -> None:
    counts: dict[str, int] = {}
    for r in results:
        counts[r.action] = counts.get(r.action, 0) + 1
        if r.action in (Action.MOVED, Action.REMOVED, Action.FAILED):
            detail = f": {r.error}" if r.error else ""
            click.echo(f"{r.action} {r.path}{detail}", err=r.action == Action.FAILED)
    changed = {k: v for k, v in counts.items() if k != Action.UNCHANGED}
    if changed:
        click.echo(", ".join(f"{k} {v}" for k, v in sorted(changed.items())))


@click.command("watch")
@click.argument(
    "folders",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
)
@click.option(
    "--quiet-seconds",
    type=float,
    default=None,
    help="Ingest a file once it has not changed for this long (default: watch.quiet_seconds).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.pass_obj
def watch_command(
    settings: HearthSettings, folders: tuple[Path, ...], quiet_seconds: float | None, quiet: bool
) -> None:
    """Keep the knowledge base in step with FOLDERS (recursively) until interrupted.

    On start, whatever changed while nothing watched is applied (new, changed, deleted and moved
    files); then every add, edit, delete, move and rename as it happens.
    """
    from ingest.mail.commands import start_followers
    from ingest.watcher import create_watcher

    if quiet_seconds is not None:
        settings.watch.quiet_seconds = quiet_seconds
    roots = [catalogue_path(f) for f in folders]
    with WriterLock.for_settings(settings):
        pipeline = _open_pipeline(settings)
        watcher = create_watcher(
            pipeline, settings.watch, roots, progress=ProgressBar(quiet), on_results=_echo_results
        )
        # Mail accounts (`hearth mail add`) are followed beside the folders (mail.follow).
        followers = start_followers(pipeline, settings, quiet=quiet) if settings.mail.follow else []
        signal.signal(signal.SIGTERM, lambda *_: watcher.stop_event.set())
        click.echo(f"watching {', '.join(map(str, roots))} (Ctrl-C to stop)", err=True)
        try:
            watcher.run()
        finally:
            for follower in followers:
                follower.stop()
            pipeline.kb.close()
