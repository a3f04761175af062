"""`runner sample`: draw passing trials for a person to review (over runner.report.sample)."""

from __future__ import annotations

from pathlib import Path

import click

from runner.commands.options import run_dir
from runner.report.sample import SampleOptions, sample_passes
from runner.runs.load import load_run


@click.command("sample")
@click.argument("run", type=click.Path(path_type=Path), metavar="RUN")
@click.option("--passes", type=click.IntRange(min=1), required=True, metavar="N",
              help="Passing trials to draw (all of them when the run has fewer).")
@click.option("--seed", type=int, default=0, show_default=True, help="The draw's seed: one seed, one sample.")
@click.option("--holdout", "include_holdout", is_flag=True, help="Draw from the holdout cases' passes too.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Where to write the page and the checklist [default: RUN/review/].")
@click.option("--corpus", "corpus_dir", type=click.Path(path_type=Path), default=None,
              help="Where a bare `latest` or run name is looked up [default: ./evals].")
def sample_command(run: Path, passes: int, seed: int, include_holdout: bool, out: Path | None,
                   corpus_dir: Path | None) -> None:
    """Draw N passing trials for a person to read, weighted toward low reviewability, files outside the allowed
    paths, scorecard findings and flags; write a review page (each patch beside the reference patch) and a
    checklist to fill in (looks right, wrong fix, gamed the test) that `runner report` reads back.

    RUN is a run directory, `latest` (the newest run) or a run's --name, bare or after a results directory."""
    loaded = load_run(run_dir(run, corpus_dir))
    sample = sample_passes(loaded, SampleOptions(passes, seed, include_holdout, out))
    for pick in sample.picks:
        click.echo(f"{pick.key}: {'; '.join(pick.why) or 'drawn at random'}")
    held = f" ({len(sample.held_out)} holdout cases left out)" if sample.held_out else ""
    click.echo(f"drew {len(sample.picks)} of {sample.passes} passes{held}")
    click.echo(f"review page: {sample.page}")
    click.echo(f"checklist: {sample.checklist}")
