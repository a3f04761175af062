"""`runner merge`: join the shards of one run (`runner run --shard I/N`) into one run directory."""

from __future__ import annotations

from pathlib import Path

import click

from runner.report.report import print_report
from runner.runs.find import default_results, resolve_run
from runner.runs.holdout import tuning_view
from runner.runs.merge import merge_runs


@click.command("merge")
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="RUN_DIR...")
@click.option("--out", type=click.Path(path_type=Path), required=True, metavar="RUN_DIR",
              help="The merged run directory to make (must not exist).")
@click.option("--corpus", "corpus_dir", type=click.Path(path_type=Path), default=None,
              help="Where a bare run name is looked up (its results) [default: ./evals].")
def merge_command(shards: tuple[Path, ...], out: Path, corpus_dir: Path | None) -> None:
    """Join the N shard runs of one configuration (every shard once, one dataset and runtime) into one run that
    report, compare and flakes read like any other. A shard is a run directory or a run's --name."""
    lookup = default_results(corpus_dir)
    merged = merge_runs([resolve_run(shard, lookup, frozen=False) for shard in shards], out)
    click.echo(f"merged {len(shards)} shards into {merged.directory}: {len(merged.trials)} trial(s)", err=True)
    print_report(tuning_view(merged))
