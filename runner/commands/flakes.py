"""`runner flakes`: label every case of a run stable or flaky (over runner.gate.flakes and runner.gate.render)."""

from __future__ import annotations

from pathlib import Path

import click

from corpus.errors import ExitCode
from corpus.store import Corpus
from runner.commands.options import RUN_HELP, exits, json_option, recorded_corpus_option, run_dir
from runner.gate.flakes import FlakesOptions, detect_flakes, quarantine_stubs
from runner.gate.pairing import load_trials, only_variant, policy_for
from runner.gate.quarantine import write_stubs
from runner.gate.render import flakes_json, render_flakes


@click.command("flakes", help="Label every case STABLE_PASS, STABLE_FAIL or FLAKY: "
               + exits(OK="", WARN="flaky", BAD_INPUT="bad input", BLOCK="too few trials") + ".\n\nRUN: " + RUN_HELP)
@click.argument("run", type=click.Path(path_type=Path))
@click.option("--variant", metavar="NAME", default=None, help="Label only this variant's cases, by case.")
@recorded_corpus_option
@click.option("--k", "k", type=int, default=3, show_default=True, help="The k of pass@k and pass^k.")
@click.option("--quarantine-out", type=click.Path(path_type=Path), default=None,
              help="Append stub entries for flaky, non-critical cases to this quarantine file.")
@json_option
def flakes_command(run: Path, variant: str | None, corpus_dir: Path | None, k: int, quarantine_out: Path | None,
                   as_json: bool) -> int:
    options = FlakesOptions(k=k)
    trials = load_trials(run_dir(run, corpus_dir))
    if variant is not None:
        trials = only_variant(trials, variant, "--variant")
    cases, source = policy_for(Corpus.open(corpus_dir) if corpus_dir is not None else None, trials)
    report = detect_flakes(trials, cases, options, policy_source=source)
    click.echo(flakes_json(report) if as_json else "\n".join(render_flakes(report)))
    if quarantine_out is not None and report.exit_code != ExitCode.BLOCK:
        added = write_stubs(quarantine_out, quarantine_stubs(report))
        click.echo(f"{quarantine_out}: {len(added)} stub {'entry' if len(added) == 1 else 'entries'} added; "
                   "fill in owner and expiry", err=True)
    return report.exit_code
