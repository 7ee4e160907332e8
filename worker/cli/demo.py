"""`segcite demo`: the embedded services and a worker, a sample report ingested, one question answered."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from worker.cli.ask import ask_question
from worker.cli.documents import ingest_paths
from worker.processes import ensure_up, running_pid, stop_all, worker_pidfile
from worker.settings import load_settings

DEMO_DOCUMENT = Path(__file__).resolve().parent.parent / "demo" / "harbor_point_report.json"
DEMO_QUESTION = "How much electricity did the solar farm generate in 2025?"


@click.command()
@click.option("--keep", is_flag=True, help="Leave the services and worker running afterwards.")
def demo(keep: bool) -> None:
    """Embedded services + worker, ingest a sample report, ask one question, print the cited answer."""
    from worker.cli.text import DEMO_ANSWERER_NOTE, STOP_HINT

    settings = load_settings()
    starting = not settings.redis_url and running_pid(worker_pidfile(settings)) is None
    stop_after = starting and not keep
    if starting:
        then = "stopped at the end (--keep leaves them running)" if stop_after else f"left running: {STOP_HINT}"
        click.echo(f"starting the embedded Redis, PostgreSQL and a worker, {then}…", err=True)
    up = ensure_up(settings)
    try:
        click.echo(f"ingesting {DEMO_DOCUMENT.name}…", err=True)
        if not all(ingest_paths(settings, up.services, [DEMO_DOCUMENT], "demo", 600, fixed_ids=True)):
            sys.exit(1)
        click.echo(f"\nQ: {DEMO_QUESTION}\n")
        if not ask_question(settings, up.services, DEMO_QUESTION, "demo", False, 300):
            sys.exit(1)
        if settings.segcite_llm_provider == "extractive":
            click.echo(f"\n{DEMO_ANSWERER_NOTE}")
    finally:
        if stop_after:
            for line in stop_all(settings):
                click.echo(line, err=True)
