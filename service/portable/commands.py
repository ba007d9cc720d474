"""``hearth models list``: every model file known, with its sha256 and origin."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from core.settings import HearthSettings
from service.portable.inventory import inventory


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def models_list_command(settings: HearthSettings, as_json: bool) -> None:
    """Every model file known (bundled, configured, or recorded as having answered), with its
    size, sha256 and where it came from."""
    rows = inventory(settings)
    if as_json:
        click.echo(json.dumps([asdict(r) for r in rows], indent=2))
        return
    for r in rows:
        size = f"{r.size / 2**20:8.1f} MiB" if r.size else " " * 12
        click.echo(f"{r.name:22} {r.kind:9} {size}  {r.sha256 or '-':64}  {r.source}")
        if r.path:
            click.echo(f"{'':22} {'':9} {r.path}")
