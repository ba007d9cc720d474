"""`hearth tokens ...`: create, list and revoke the access tokens of the HTTP service."""

from __future__ import annotations

import json

import click

from core.db.session import Database
from core.settings import HearthSettings
from service.tokens.service import TokenInfo, TokenStore


def token_store(settings: HearthSettings) -> TokenStore:
    """The token store of this data directory's catalogue (migrated to head first)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.sqlalchemy_url)
    db.migrate()
    return TokenStore(db)


def _as_dict(t: TokenInfo) -> dict[str, object]:
    return {
        "id": t.token_id,
        "name": t.name,
        "created_at": t.created_at.isoformat(),
        "revoked_at": t.revoked_at.isoformat() if t.revoked_at else None,
    }


@click.group("tokens")
def tokens() -> None:
    """Access tokens: once one exists, every HTTP route but /api/health needs
    ``Authorization: Bearer <token>``."""


@tokens.command("create")
@click.option("--name", default="", help="A label to recognise the token by (e.g. laptop).")
@click.option("--json", "as_json", is_flag=True, help="Print {id, name, token} as JSON.")
@click.pass_obj
def create(settings: HearthSettings, name: str, as_json: bool) -> None:
    """Create a token and print its secret (shown this once; only its hash is stored)."""
    store = token_store(settings)
    info, secret = store.create(name)
    store.db.dispose()
    if as_json:
        click.echo(json.dumps({**_as_dict(info), "token": secret}))
        return
    click.echo(secret)
    click.echo(
        f"token {info.token_id} created; copy it now, it is not shown again. "
        f"Send it as 'Authorization: Bearer <token>'.",
        err=True,
    )


@tokens.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def list_cmd(settings: HearthSettings, as_json: bool) -> None:
    """Every token: id, name, created, and whether it is revoked (never the secret)."""
    store = token_store(settings)
    rows = store.all()
    store.db.dispose()
    if as_json:
        click.echo(json.dumps([_as_dict(t) for t in rows], indent=2))
        return
    for t in rows:
        state = f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else "active"
        click.echo(f"{t.token_id}  {t.created_at:%Y-%m-%d %H:%M}  {state:24} {t.name}")
    if not rows:
        click.echo("no tokens: the HTTP service is open to anyone who can reach it", err=True)


@tokens.command("revoke")
@click.argument("key")
@click.pass_obj
def revoke(settings: HearthSettings, key: str) -> None:
    """Revoke the token whose id (or name) is KEY; it stops working at once."""
    store = token_store(settings)
    try:
        done = store.revoke(key)
    finally:
        store.db.dispose()
    for t in done:
        click.echo(f"revoked {t.token_id} {t.name}".rstrip())
