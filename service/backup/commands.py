"""``hearth backup DEST`` and ``hearth restore SRC``."""

from __future__ import annotations

from pathlib import Path

import click

from core.settings import HearthSettings
from service.backup.restore import restore
from service.backup.snapshot import backup


@click.command("backup")
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
@click.pass_obj
def backup_command(settings: HearthSettings, dest: Path) -> None:
    """Snapshot the knowledge base into DEST (a new or empty folder); safe while serving."""
    result = backup(settings, dest)
    counts = ", ".join(f"{n} {t}" for t, n in result.manifest["counts"].items())
    click.echo(f"backed up to {dest}: {counts}")


@click.command("restore")
@click.argument("src", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.pass_obj
def restore_command(settings: HearthSettings, src: Path) -> None:
    """Restore the backup SRC into the (new or empty) data directory; stores are rebuilt."""
    stats = restore(settings, src)
    stores = ", ".join(f"{n} {size}" for n, size in stats["stores"].items())
    click.echo(
        f"restored into {settings.data_dir}: {stats['documents']} documents, "
        f"{stats['chunks']} chunks; stores: {stores}"
    )
