"""The `hearth eval` and `hearth models bench` commands (the work is in this package)."""

from __future__ import annotations

from pathlib import Path

import click

from core.settings import HearthSettings

# Shared by `eval` and `models bench`: a missing file stops the command before any work.
answers_from_option = click.option(
    "--answers-from",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="BEIR sets: expected answers from a JSON-lines file of {id, answers}.",
)


@click.command("eval")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--k",
    type=click.IntRange(1, 100),
    default=10,
    show_default=True,
    help="Documents ranked per question (recall@k).",
)
@click.option("--collection", default=None, help="Only look in this collection (GOLD.jsonl).")
@click.option(
    "--answers",
    type=click.IntRange(0),
    default=None,
    help="Answer N questions (default: all of a GOLD.jsonl, 20 of a BEIR set).",
)
@click.option("--no-answers", is_flag=True, help="Score retrieval only (no model is loaded).")
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the first N questions.")
@click.option("--model", default=None, help="Model to answer with (default: the configured one).")
@answers_from_option
@click.option("--json", "as_json", is_flag=True, help="Print only the report as JSON.")
@click.pass_obj
def eval_command(
    settings: HearthSettings,
    path: Path,
    k: int,
    collection: str | None,
    answers: int | None,
    no_answers: bool,
    limit: int | None,
    model: str | None,
    answers_from: Path | None,
    as_json: bool,
) -> None:
    """Score retrieval and answers on PATH: a GOLD.jsonl file of questions (each with its
    expected source, optionally an answer or "unanswerable": true) over your knowledge base, or
    a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) ingested into a scratch base under
    <data dir>/eval/scratch. The report is also written to <data dir>/eval/last.json."""
    from service.evaluation.report import last_report_path
    from service.evaluation.runner import EvalOptions, run_eval

    if no_answers and answers:
        raise click.UsageError("give either --answers N or --no-answers")
    options = EvalOptions(
        k=k,
        collection=collection,
        answers=0 if no_answers else answers,
        limit=limit,
        model=model,
        answers_from=answers_from,
    )
    report = run_eval(settings, path, options)
    if as_json:
        click.echo(report.to_json())
        for warning in report.warnings:
            click.echo(f"warning: {warning}", err=True)
        return
    click.echo(report.text())
    click.echo(f"report written to {last_report_path(settings.data_dir)}")


@click.command("bench")
@click.option(
    "--gold",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="GOLD.jsonl or BEIR folder for answer quality (a small sample of it).",
)
@click.option("--models", "names", default=None, help="Comma-separated model names (default: all).")
@click.option(
    "--answers",
    type=click.IntRange(0),
    default=10,
    show_default=True,
    help="Gold questions answered per model.",
)
@answers_from_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of the table.")
@click.pass_obj
def models_bench_command(
    settings: HearthSettings,
    gold: Path | None,
    names: str | None,
    answers: int,
    answers_from: Path | None,
    as_json: bool,
) -> None:
    """Load each model in turn: load time, memory planned and measured, prompt and generation
    tokens/s, time to first token on a fixed RAG prompt, and answer quality with --gold."""
    from service.evaluation.models_bench import run_bench

    wanted = [n.strip() for n in names.split(",") if n.strip()] if names else None
    report = run_bench(settings, wanted, gold, answers, answers_from)
    click.echo(report.to_json() if as_json else report.table())
