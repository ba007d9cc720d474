"""`hearth show`: a citation in place from the command line (the marked page or photo as PNG,
or the place and the passage in context), and the view URL ``hearth ask --json`` adds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from core.db.session import Database
from core.errors import InvalidInputError, NotFoundError
from core.provenance import clock
from core.settings import HearthSettings


def view_url(chunk_id: int) -> str:
    """The API path of a chunk's view."""
    return f"/api/chunks/{chunk_id}/view"


def with_view_urls(done: dict[str, Any]) -> dict[str, Any]:
    """An answer whose sources and citations each carry ``view`` (their view's API path)."""
    for key in ("sources", "citations"):
        for source in done.get(key) or []:
            if isinstance(source, dict) and "chunk_id" in source:
                source["view"] = view_url(int(source["chunk_id"]))
    return done


def cited_chunk(db: Database, answer_id: int, number: int) -> int:
    """The chunk id of source ``[number]`` of a stored answer."""
    from service.answering.orchestration import AnswerRecords

    record = AnswerRecords(db).get(answer_id)
    for source in record.retrieved:
        if int(source.get("number", 0)) == number:
            return int(source["chunk_id"])
    numbers = ", ".join(str(s.get("number")) for s in record.retrieved) or "none"
    raise NotFoundError(
        f"answer {answer_id} has no source [{number}] (its sources: {numbers})", field="cite"
    )


def describe_view(view: dict[str, Any]) -> list[str]:
    """The place and the passage in context, as lines for a terminal."""
    lines = [f"{view['name']} — {view['where'] or 'whole document'}", f"  {view['path']}"]
    original = view.get("original") or {}
    if not original.get("ok", True):
        lines.append(f"  note: {original.get('reason')}")
    message = view.get("message")
    if message:
        lines += [f"  {k}: {v}" for k, v in message.items()]
    page = view.get("page")
    if page:
        rects = page["marks"]["rects"]
        lines.append(
            f"  page {page['number']} of {page['pages']}, {len(rects)} marked "
            f"{'box' if len(rects) == 1 else 'boxes'} ({page['marks']['source']})"
        )
    audio = view.get("audio")
    if audio:
        lines.append(f"  plays {clock(audio['start'])}–{clock(audio['end'])}")
        for line in audio["lines"]:
            mark = ">" if line["cited"] else " "
            channel = f" [{line['channel']}]" if line.get("channel") else ""
            who = f" {line['speaker']}:" if line.get("speaker") else ""
            lines.append(f"  {mark} {clock(line['start'])}{channel}{who} {line['text']}")
        return lines
    table = view.get("table")
    if table:
        lines.append("  " + " | ".join(table["header"]))
        for row in table["rows"]:
            number = f"{row['number']}: " if row["number"] is not None else ""
            lines.append(f"  {number}" + " | ".join(row["cells"]))
        return lines
    context = view.get("context")
    if context:
        for part in context:
            text = part["text"].strip()
            lines.append(">>> " + text.replace("\n", "\n>>> ") if part["cited"] else text)
        return lines
    lines.append(view["text"])
    return lines


@click.command("show")
@click.argument("source", required=False, type=int)
@click.option("--answer", "answer_id", type=int, help="A stored answer's id (with --cite).")
@click.option("--cite", "number", type=int, help="The source number [N] of --answer.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write the marked page or photo to this PNG file.",
)
@click.pass_obj
def show_command(
    settings: HearthSettings,
    source: int | None,
    answer_id: int | None,
    number: int | None,
    output: Path | None,
) -> None:
    """Show a citation in place: SOURCE is a chunk id (or use --answer ID --cite N). Prints
    the place and the passage in context; -o FILE writes the page or photo with the passage
    marked as PNG (PDFs and images only)."""
    from service.viewer.service import Viewer

    if (source is None) == (answer_id is None) or (answer_id is None) != (number is None):
        raise click.UsageError("give a chunk id, or --answer ID with --cite N")
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.sqlalchemy_url)
    try:
        db.migrate()
        chunk_id = source if source is not None else cited_chunk(db, answer_id or 0, number or 0)
        viewer = Viewer(db, settings)
        view = viewer.view(chunk_id)
        for line in describe_view(view):
            click.echo(line)
        if output is not None:
            page = view.get("page")
            if not page:
                original = view.get("original") or {}
                why = original.get("reason") or f"a {view['kind']} passage has no page image"
                raise InvalidInputError(f"--output: nothing to draw ({why})", field="output")
            data = viewer.page_png(view["document_id"], page["number"], chunk_id=chunk_id)
            output.write_bytes(data)
            click.echo(f"wrote {output} ({len(data)} bytes)")
    finally:
        db.dispose()
