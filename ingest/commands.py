"""The `hearth ingest` and `hearth remove` commands."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from core.errors import HearthError
from core.settings import HearthSettings
from ingest.files import iter_files
from ingest.pipeline import FileResult, IngestPipeline, IngestReport
from ingest.remove import remove_documents


def _open_pipeline(settings: HearthSettings) -> IngestPipeline:
    from core.embedder import create_embedder
    from core.knowledge import KnowledgeBase

    kb = KnowledgeBase(settings)
    kb.repair()
    return IngestPipeline(kb, create_embedder(settings.embedder))


def print_summary(report: IngestReport) -> None:
    """Totals, then every failure with its reason."""
    counts = {a: report.count(a) for a in ("added", "updated", "unchanged", "empty", "failed")}
    rate = report.chunks / report.seconds if report.seconds else 0.0
    carried = sum(r.attachments for r in report.results)
    click.echo(
        f"added {counts['added']}, updated {counts['updated']}, unchanged {counts['unchanged']}, "
        f"empty {counts['empty']}, failed {counts['failed']}"
        f"{f', attachments {carried}' if carried else ''} "
        f"({report.chunks} chunks in {report.seconds:.1f} s, {rate:.1f} chunks/s)"
    )
    for failure in report.failures:
        click.echo(f"  failed: {failure.path}: {failure.error}", err=True)


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--collection", default="default", show_default=True, help="Collection to add to.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.pass_obj
def ingest_command(
    settings: HearthSettings, paths: tuple[Path, ...], collection: str, quiet: bool
) -> None:
    """Ingest files and folders (recursively) into the knowledge base."""
    from tqdm import tqdm

    try:
        files = list(iter_files(list(paths)))
    except HearthError as exc:
        raise click.ClickException(exc.message) from exc
    pipeline = _open_pipeline(settings)
    bar = tqdm(total=len(files), unit="file", disable=quiet or None, file=sys.stderr, desc="ingest")

    def progress(result: FileResult) -> None:
        bar.update(1)
        bar.set_postfix_str(result.action)

    try:
        report = pipeline.ingest(files, collection, progress)
    finally:
        bar.close()
        pipeline.kb.close()
    print_summary(report)
    if report.failures and len(report.failures) == len(report.results):
        sys.exit(1)


@click.command("remove")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.pass_obj
def remove_command(settings: HearthSettings, paths: tuple[Path, ...]) -> None:
    """Remove documents (a file, or everything below a folder) from every store."""
    from core.knowledge import KnowledgeBase

    kb = KnowledgeBase(settings)
    kb.repair()

    try:
        results = remove_documents(kb, list(paths))
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
