"""`hearth speakers list DOC` and `hearth speakers name DOC SPEAKER NAME`."""

from __future__ import annotations

import click

from core.db.session import Database
from core.settings import HearthSettings
from service.speakers.service import find_document, list_speakers, rename


@click.group("speakers")
def speakers() -> None:
    """The speakers of a recording (a document id or the file's path)."""


@speakers.command("list")
@click.argument("document")
@click.pass_obj
def list_command(settings: HearthSettings, document: str) -> None:
    """Each speaker of DOCUMENT, with its name once given."""
    db = Database(settings.sqlalchemy_url)
    try:
        db.migrate()
        found = list_speakers(db, find_document(db, document), settings.data_dir)
    finally:
        db.dispose()
    if not found:
        click.echo("no speakers recorded (not a recording, or diarization was off)")
    for speaker, label in found.items():
        click.echo(f"{speaker}\t{label}")


@speakers.command("name")
@click.argument("document")
@click.argument("speaker", type=int)
@click.argument("name")
@click.pass_obj
def name_command(settings: HearthSettings, document: str, speaker: int, name: str) -> None:
    """Call SPEAKER (its number) of DOCUMENT by NAME from now on and after re-ingests; an empty
    NAME goes back to "Speaker N"."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.sqlalchemy_url)
    try:
        db.migrate()
        changed = rename(db, settings.data_dir, find_document(db, document), speaker, name)
    finally:
        db.dispose()
    click.echo(f"speaker {speaker}: {name or f'Speaker {speaker}'} ({changed} chunks)")
