"""`hearth templates ...`: manage versioned prompt templates from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from core.db.session import Database
from core.settings import HearthSettings
from service.templates.service import TemplateService, TemplateVersion


def _service(settings: HearthSettings) -> TemplateService:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.sqlalchemy_url)
    db.migrate()
    return TemplateService(db)


def _line(v: TemplateVersion) -> str:
    mark = "*" if v.active else " "
    when = f"{v.created_at:%Y-%m-%d %H:%M}"
    return f"{mark} {v.name:18} v{v.version:<3} {v.content_hash[:12]}  {when}  {v.note}"


@click.group("templates")
def templates() -> None:
    """Versioned prompt templates (qa, summarize, translate, code, write, condense-question,
    translate-question, the wholedoc ones)."""


@templates.command("list")
@click.argument("name", required=False)
@click.pass_obj
def list_cmd(settings: HearthSettings, name: str | None) -> None:
    """Active versions, or every version of NAME (* marks the active one)."""
    svc = _service(settings)
    for v in svc.versions(name) if name else svc.active():
        click.echo(_line(v))


@templates.command("show")
@click.argument("name")
@click.option("--version", "-v", type=int, help="Default: the active version.")
@click.pass_obj
def show(settings: HearthSettings, name: str, version: int | None) -> None:
    """Print one version."""
    v = _service(settings).get(name, version)
    click.echo(_line(v))
    click.echo(f"--- system\n{v.system}\n--- user\n{v.user}")


@templates.command("add")
@click.argument("name")
@click.option(
    "--system",
    "system_file",
    type=click.Path(exists=True, path_type=Path),
    help="File with the system part (default: the active version's).",
)
@click.option(
    "--user",
    "user_file",
    type=click.Path(exists=True, path_type=Path),
    help="File with the user part (default: the active version's).",
)
@click.option("--note", default="", help="Why this version exists.")
@click.option("--activate", is_flag=True, help="Make it the active version.")
@click.pass_obj
def add(
    settings: HearthSettings,
    name: str,
    system_file: Path | None,
    user_file: Path | None,
    note: str,
    activate: bool,
) -> None:
    """Add a version; it is refused when it does not render."""
    svc = _service(settings)
    if system_file is None or user_file is None:
        base = svc.get(name)
    system = system_file.read_text() if system_file else base.system
    user = user_file.read_text() if user_file else base.user
    click.echo(_line(svc.add_version(name, system, user, note, activate)))


@templates.command("activate")
@click.argument("name")
@click.argument("version", type=int)
@click.pass_obj
def activate(settings: HearthSettings, name: str, version: int) -> None:
    """Make VERSION the active one."""
    click.echo(_line(_service(settings).activate(name, version)))


@templates.command("rollback")
@click.argument("name")
@click.pass_obj
def rollback(settings: HearthSettings, name: str) -> None:
    """Activate the version before the active one."""
    click.echo(_line(_service(settings).rollback(name)))


@templates.command("diff")
@click.argument("name")
@click.argument("a", type=int)
@click.argument("b", type=int)
@click.pass_obj
def diff(settings: HearthSettings, name: str, a: int, b: int) -> None:
    """Unified diff of two versions."""
    click.echo(_service(settings).diff(name, a, b) or "(identical)")


@templates.command("export")
@click.argument("file", type=click.Path(path_type=Path), required=False)
@click.pass_obj
def export(settings: HearthSettings, file: Path | None) -> None:
    """Write every version of every template to FILE (JSON; default stdout)."""
    text = json.dumps(_service(settings).export(), indent=2, ensure_ascii=False)
    if file:
        file.write_text(text)
    else:
        sys.stdout.write(text + "\n")


@templates.command("import")
@click.argument("file", type=click.Path(exists=True, path_type=Path))
@click.pass_obj
def import_cmd(settings: HearthSettings, file: Path) -> None:
    """Import an export made on another machine (same numbers and hashes)."""
    try:
        data = json.loads(file.read_text())
    except ValueError as exc:
        raise click.ClickException(f"{file}: not JSON ({exc})") from exc
    click.echo(f"imported {_service(settings).import_(data)['added']} versions")
