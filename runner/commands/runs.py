"""`runner runs`: the runs of a results directory, newest first (over runner.runs.find)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from runner.commands.options import json_option
from runner.runs.find import RunListing, default_results, list_runs


@click.command("runs")
@click.argument("results_dir", type=click.Path(path_type=Path), required=False, metavar="[DIR]")
@click.option("--corpus", "corpus_dir", type=click.Path(path_type=Path), default=None,
              help="List the runs of this corpus's results directory [default: ./evals].")
@json_option
def runs_command(results_dir: Path | None, corpus_dir: Path | None, as_json: bool) -> None:
    """List the runs of DIR (default: the corpus's results): name, date, mode, variants, cases, trials, pass
    rate per variant and dataset fingerprint, newest first."""
    listed = list_runs(results_dir if results_dir is not None else default_results(corpus_dir))
    if as_json:
        click.echo(json.dumps([_document(r) for r in listed], indent=2, sort_keys=True))
        return
    if not listed:
        click.echo("no runs")
        return
    rows = [_row(r) for r in listed]
    header = ("RUN", "NAME", "CREATED", "MODE", "VARIANTS", "CASES", "TRIALS", "PASS RATE", "DATASET")
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) for i in range(len(header) - 1)]
    for row in (header, *rows):
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)) + "  " + row[-1])


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _row(listing: RunListing) -> tuple[str, ...]:
    m = listing.manifest
    if m is None:
        return (listing.directory.name, "", "", "", "", "", "", "", f"unreadable: {listing.problem}")
    config = m.config
    trials = f"{listing.recorded}/{listing.planned}" if listing.problem is None else f"?/{listing.planned}"
    if listing.errors:
        trials += f" ({listing.errors} err)"
    rates = " ".join(f"{name} {_rate(rate)}" for name, rate in listing.pass_rates) if listing.problem is None else "-"
    dataset = m.dataset_fingerprint[:12] + (f"  unreadable: {listing.problem}" if listing.problem else "")
    name = (m.name or "") + (" (triage)" if m.triage is not None else "")
    return (listing.directory.name, name.strip() or "-", m.created[:16].replace("T", " "), config.mode,
            ",".join(v.name for v in config.variants), str(len(config.cases)), trials, rates, dataset)


def _document(listing: RunListing) -> dict[str, Any]:
    m = listing.manifest
    doc: dict[str, Any] = {"directory": str(listing.directory), "problem": listing.problem}
    if m is not None:
        doc.update(run_id=m.run_id, name=m.name, created=m.created, mode=m.config.mode,
                   variants=[v.name for v in m.config.variants], cases=len(m.config.cases),
                   trials_recorded=listing.recorded, trials_planned=listing.planned, errors=listing.errors,
                   pass_rate=dict(listing.pass_rates), dataset_fingerprint=m.dataset_fingerprint,
                   triage=m.triage)
    return doc
