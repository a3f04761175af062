"""`runner import` and `runner export`: runs made elsewhere as JSONL rows (over runner.runs.interop)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from corpus.fsutil import atomic_write_text
from runner.commands.options import RUN_HELP, run_dir
from runner.runs.frozen import freeze
from runner.runs.interop import export_rows, import_rows
from runner.runs.load import load_run


@click.command("import")
@click.argument("source", type=click.Path(path_type=Path), metavar="FILE.jsonl|JOB_DIR")
@click.option("--out", type=click.Path(path_type=Path), required=True, metavar="RUN_DIR",
              help="The run directory to make (it must not exist).")
@click.option("--variant", default="imported", show_default=True, metavar="NAME",
              help="The variant of rows that do not name one.")
@click.option("--policy", type=click.Choice(["blocking", "advisory"]), default="blocking", show_default=True,
              help="The policy of the imported cases (a case a row marks critical is blocking and critical).")
@click.option("--name", default=None, metavar="LABEL", help="Name the run, as `runner run --name` does.")
def import_command(source: Path, out: Path, variant: str, policy: str, name: str | None) -> None:
    """Make a run directory from per-trial JSONL rows (case_id, trial, passed, critical, cost_usd, trajectory), or
    from a Harbor job directory (one result.json per trial, its reward the outcome), so report, compare and flakes
    read results produced by another harness."""
    made = import_rows(source, out, variant, policy, name)
    click.echo(f"imported {source} as run {made}")


@click.command("export", help=(
    "Write a run's trials as JSONL rows (--jsonl: case_id, variant, trial, passed, outcome, reason, critical, "
    "cost_usd, tokens and the trajectory read from each transcript), or the whole run as one frozen file (--json: "
    "run.json and every trial's result and behaviour, without transcripts or patches).\n\nRUN: " + RUN_HELP))
@click.argument("run", type=click.Path(path_type=Path))
@click.option("--jsonl", "jsonl_file", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Write one row per trial to FILE ('-' for stdout).")
@click.option("--json", "json_file", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Write the run as one frozen file ('-' for stdout) that report, compare and flakes accept "
                   "wherever they take a run: a gate baseline to commit.")
@click.option("--corpus", "corpus_dir", type=click.Path(path_type=Path), default=None,
              help="Where a bare `latest` or run name is looked up [default: ./evals].")
def export_command(run: Path, jsonl_file: Path | None, json_file: Path | None, corpus_dir: Path | None) -> None:
    if (jsonl_file is None) == (json_file is None):
        raise click.UsageError("give either --jsonl FILE or --json FILE")
    loaded = load_run(run_dir(run, corpus_dir))
    text, target = (export_rows(loaded), jsonl_file) if jsonl_file is not None else (freeze(loaded), json_file)
    assert target is not None
    if str(target) == "-":
        sys.stdout.write(text)
    else:
        atomic_write_text(target, text)
