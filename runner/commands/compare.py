"""`runner compare`: gate a candidate run against a baseline (over runner.gate.gate and runner.gate.render)."""

from __future__ import annotations

from pathlib import Path

import click

from corpus.cli_support import corpus_option
from corpus.store import Corpus
from runner.commands.options import GATE_CORPUS_HELP, exits, json_option
from runner.gate.gate import CompareOptions, evaluate
from runner.gate.pairing import case_index, load_trials
from runner.gate.quarantine import Quarantine, load_quarantine
from runner.gate.render import compare_json, render_compare


@click.command("compare", help="Gate a candidate run against a baseline: "
               + exits(OK="PASS", WARN="WARN", BAD_INPUT="bad input", BLOCK="BLOCK") + ".")
@click.option("--baseline", type=click.Path(path_type=Path), required=True, help="The baseline run directory.")
@click.option("--candidate", type=click.Path(path_type=Path), required=True, help="The candidate run directory.")
@corpus_option(GATE_CORPUS_HELP)
@click.option("--quarantine", "quarantine_file", type=click.Path(path_type=Path), default=None,
              help="Quarantine YAML file (case, reason, owner, expiry per entry).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="False-block budget of the statistical rule.")
@click.option("--tolerance", type=float, default=2.0, show_default=True,
              help="Points of drop above which a drop that is not significant warns.")
@click.option("--max-cost-increase", type=float, default=20.0, show_default=True,
              help="Percent rise of the mean cost per trial above which the gate warns.")
@click.option("--allow-dataset-change", is_flag=True, help="Compare runs made on different dataset fingerprints.")
@json_option
def compare_command(baseline: Path, candidate: Path, corpus_dir: Path, quarantine_file: Path | None, alpha: float,
                    tolerance: float, max_cost_increase: float, allow_dataset_change: bool, as_json: bool) -> int:
    options = CompareOptions(alpha=alpha, tolerance_points=tolerance, max_cost_increase_pct=max_cost_increase,
                             allow_dataset_change=allow_dataset_change)
    report = evaluate(load_trials(baseline), load_trials(candidate), case_index(Corpus.open(corpus_dir)),
                      load_quarantine(quarantine_file) if quarantine_file else Quarantine(), options)
    click.echo(compare_json(report) if as_json else "\n".join(render_compare(report)))
    return report.exit_code
