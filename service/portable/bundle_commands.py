"""``hearth export BUNDLE`` and ``hearth import BUNDLE``."""

from __future__ import annotations

from pathlib import Path

import click

from core.settings import HearthSettings
from service.portable.bundle import export_bundle, import_bundle


@click.command("export")
@click.argument("bundle", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_obj
def export_command(settings: HearthSettings, bundle: Path) -> None:
    """Write the models in use, every prompt template version and the non-secret settings into
    one archive BUNDLE, with a manifest of sizes, sha256, versions and licences."""
    manifest = export_bundle(settings, bundle)
    size = sum(f["size"] for f in manifest["files"].values())
    names = ", ".join(f"{m['role']} {m['name']}" for m in manifest["models"])
    click.echo(f"wrote {bundle}: {len(manifest['files'])} files, {size / 2**20:.0f} MiB ({names})")


@click.command("import")
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_obj
def import_command(settings: HearthSettings, bundle: Path) -> None:
    """Check every file of BUNDLE against its manifest, then install its models and templates
    into this data directory (nothing is written when any check fails)."""
    done = import_bundle(settings, bundle)
    added = done["templates"]["added"]
    click.echo(f"imported {len(done['models'])} models, {added} template versions")
    click.echo(f"use its settings with: HEARTH_CONFIG={done['settings']}")
