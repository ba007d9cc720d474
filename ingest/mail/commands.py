"""`hearth mail add | list | remove | sync | follow`: IMAP accounts followed like folders.

Every command that writes the catalogue holds the data directory's writer lock while it writes.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from core.errors import HearthError
from core.settings import HearthSettings
from ingest.mail.accounts import TLS_MODES, Account, AccountStore, Tls, default_port, read_password
from ingest.mail.transport import check_login, check_transport
from ingest.pipeline import IngestPipeline
from ingest.progress import ProgressBar as FileBar

if TYPE_CHECKING:
    from ingest.mail.sync import MailReport

#: Exit code of `hearth mail sync` when a message failed (as `hearth ingest`).
EXIT_MESSAGES_FAILED = 3


def account_store(settings: HearthSettings) -> AccountStore:
    """The accounts of the settings' data directory."""
    return AccountStore(settings.data_dir)


def open_pipeline(settings: HearthSettings) -> IngestPipeline:
    """A pipeline on the data directory (stores repaired first), as `hearth ingest` opens it."""
    from core.embedder import create_embedder
    from core.knowledge import KnowledgeBase

    kb = KnowledgeBase(settings)
    kb.repair()
    return IngestPipeline(kb, create_embedder(settings.embedder, lazy=True))


def transport_label(account: Account) -> str:
    """``IMAPS``, ``STARTTLS``, ``plaintext`` and ``INSECURE`` when verification is off."""
    label = {"ssl": "IMAPS", "starttls": "STARTTLS", "none": "plaintext"}[account.tls]
    return f"{label}, INSECURE" if account.insecure else label


def account_lines(accounts: list[Account]) -> list[str]:
    """One line per account for `hearth mail list` and `hearth status` (never a password)."""
    lines = []
    for a in accounts:
        folders = "all but Trash/Spam/Junk" if a.all_folders else ", ".join(a.folders)
        state = "following" if a.following else "NOT following"
        last = a.last_sync or "never"
        error = f"; last error: {a.last_error}" if a.last_error else ""
        lines.append(
            f"{a.name}  {a.user}@{a.host}:{a.port} ({transport_label(a)})  folders: {folders}  "
            f"collection: {a.collection}  {state}, last sync {last}{error}"
        )
    return lines


class _Bar(FileBar):
    """A tqdm bar on stderr for a sync's downloads (implements ``MailProgress``)."""

    def __init__(self, quiet: bool, name: str) -> None:
        super().__init__(quiet)
        self.name = name

    def begin(self, total: int) -> None:
        from tqdm import tqdm

        self._bar = tqdm(
            total=total, unit="msg", disable=self.quiet or None, file=sys.stderr, desc=self.name
        )


def echo_report(report: MailReport) -> None:
    """The summary line, then each failed message with its reason (stderr)."""
    click.echo(report.summary())
    for failure in report.failures:
        click.echo(f"  failed: {failure.path}: {failure.error}", err=True)


@click.group("mail")
def mail() -> None:
    """IMAP mail accounts followed like folders: new mail is ingested, deleted mail removed."""


@mail.command("add")
@click.argument("host")
@click.option("--user", required=True, help="The IMAP login name.")
@click.option("--port", type=int, default=None, help="Default 993 (IMAPS), 143 (STARTTLS).")
@click.option(
    "--tls",
    type=click.Choice(TLS_MODES),
    default="ssl",
    show_default=True,
    help="IMAPS, STARTTLS, or none (plaintext: loopback only unless --insecure).",
)
@click.option("--folder", "folders", multiple=True, help="A folder to follow (repeat; INBOX).")
@click.option("--all-folders", is_flag=True, help="Follow every folder but Trash, Spam, Junk.")
@click.option(
    "--ca-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="PEM certificate(s) to trust for this server (a self-signed server).",
)
@click.option(
    "--insecure",
    is_flag=True,
    help="Allow plaintext beyond loopback and skip certificate checks (shown by list, status).",
)
@click.option("--name", default=None, help="Name of the account (default USER@HOST).")
@click.option("--collection", default="default", show_default=True, help="Collection to add to.")
@click.option("--password-env", metavar="VAR", help="Read the password from this variable.")
@click.option(
    "--password-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read the password from the first line of this file.",
)
@click.pass_obj
def add_command(
    settings: HearthSettings,
    host: str,
    user: str,
    port: int | None,
    tls: Tls,
    folders: tuple[str, ...],
    all_folders: bool,
    ca_file: Path | None,
    insecure: bool,
    name: str | None,
    collection: str,
    password_env: str | None,
    password_file: Path | None,
) -> None:
    """Follow the IMAP account USER at HOST (the login is checked first; nothing is fetched until
    `hearth mail sync`, `hearth serve` or `hearth watch`). Without --password-env or
    --password-file the password is asked for (hidden)."""
    if folders and all_folders:
        raise click.UsageError("give --folder or --all-folders, not both")
    account = Account(
        name=name or f"{user}@{host}",
        host=host,
        port=port or default_port(tls),
        user=user,
        tls=tls,
        folders=list(folders) or ["INBOX"],
        all_folders=all_folders,
        ca_file=str(ca_file.resolve()) if ca_file else None,
        insecure=insecure,
        collection=collection,
    )
    check_transport(account)
    password = read_password(env=password_env, file=password_file)
    if password is None:
        password = click.prompt(f"Password for {account.name}", hide_input=True)
    followed = check_login(account, password, settings.mail.timeout_seconds)
    account_store(settings).add(account, password)
    click.echo(f"added {account.name}: {', '.join(followed)} ({transport_label(account)})")


@mail.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def list_command(settings: HearthSettings, as_json: bool) -> None:
    """Every followed account: server, transport (INSECURE shown), folders, last sync."""
    accounts = account_store(settings).accounts()
    if as_json:
        click.echo(json.dumps([a.public() for a in accounts], indent=2))
        return
    if not accounts:
        click.echo("no mail account (add one with 'hearth mail add')")
    for line in account_lines(accounts):
        click.echo(line)


@mail.command("remove")
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.pass_obj
def remove_command(settings: HearthSettings, name: str, yes: bool) -> None:
    """Stop following account NAME and remove its documents (messages and attachments)."""
    from core.knowledge import KnowledgeBase
    from ingest.mail.sync import account_documents, remove_account_documents

    store = account_store(settings)
    account = store.get(name)
    kb = KnowledgeBase(settings)
    try:
        messages, documents = account_documents(kb, account)
        click.echo(
            f"{name}: {documents} documents ({messages} messages and their attachments) will be "
            "removed from every store"
        )
        if not yes and not click.confirm("Remove them?", default=False):
            click.echo("nothing removed")
            return
        kb.repair()
        removed = remove_account_documents(kb, account)
        store.remove(name)
    finally:
        kb.close()
    click.echo(f"removed {name} and {len(removed)} documents")


@mail.command("sync")
@click.argument("names", nargs=-1)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.pass_obj
def sync_command(settings: HearthSettings, names: tuple[str, ...], quiet: bool) -> None:
    """Sync every account (or those NAMED) once: new messages in, deleted ones out.

    Exit status 0, or 3 when a message failed (listed with its reason), or 1 when an account
    could not be synced (its error is printed; the other accounts are still synced).
    """
    from ingest.mail.sync import MailSync

    store = account_store(settings)
    accounts = [store.get(n) for n in names] if names else store.accounts()
    if not accounts:
        raise click.ClickException("no mail account (add one with 'hearth mail add')")
    pipeline = open_pipeline(settings)
    failed = errors = 0
    try:
        for account in accounts:
            sync = MailSync(pipeline, store, settings.mail, _Bar(quiet, account.name))
            try:
                report = sync.sync(account)
            except HearthError as exc:
                store.record(account.name, error=exc.message)
                click.echo(f"error: {exc.message}", err=True)
                errors += 1
                continue
            echo_report(report)
            failed += len(report.failures)
    finally:
        pipeline.kb.close()
    if errors:
        sys.exit(1)
    if failed:
        sys.exit(EXIT_MESSAGES_FAILED)


@mail.command("follow")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.pass_obj
def follow_command(settings: HearthSettings, quiet: bool) -> None:
    """Keep every account in step until interrupted (IDLE, or polling every mail.poll_seconds)."""
    pipeline = open_pipeline(settings)
    followers = start_followers(pipeline, settings, quiet=quiet)
    if not followers:
        pipeline.kb.close()
        raise click.ClickException("no mail account to follow (add one with 'hearth mail add')")
    signal.signal(signal.SIGTERM, lambda *_: [f.stop_event.set() for f in followers])
    click.echo(f"following {', '.join(f.name for f in followers)} (Ctrl-C to stop)", err=True)
    try:
        for follower in followers:
            while follower._thread is not None and follower._thread.is_alive():
                follower._thread.join(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for follower in followers:
            follower.stop()
        pipeline.kb.close()


def start_followers(
    pipeline: IngestPipeline, settings: HearthSettings, *, quiet: bool = True
) -> list[Any]:
    """A started :class:`~ingest.mail.follower.MailFollower` per followed account."""
    from ingest.mail.follower import MailFollower
    from ingest.mail.sync import MailSync

    store = account_store(settings)
    followers = []
    for account in store.accounts():
        if not account.following:
            continue
        sync = MailSync(pipeline, store, settings.mail, _Bar(quiet, account.name))
        followers.append(MailFollower(sync, account.name, on_report=echo_report).start())
    return followers
