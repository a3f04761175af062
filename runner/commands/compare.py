"""`runner compare`: gate a candidate run against a baseline (over runner.gate.gate and runner.gate.render)."""

from __future__ import annotations

from pathlib import Path

import click

from corpus.store import Corpus
from runner.commands.options import RUN_HELP, exits, json_option, recorded_corpus_option, run_dir
from runner.gate.behaviour import directions_for
from runner.gate.gate import CompareOptions, evaluate
from runner.gate.pairing import load_trials, only_variant, policy_for
from runner.gate.quarantine import Quarantine, load_quarantine
from runner.gate.render import compare_json, render_compare
from runner.gate.triage import find_triage
from runner.report.compare_html import write_compare_html
from runner.runs.load import held_until_exit


@click.command("compare", help="Gate a candidate run against a baseline: "
               + exits(OK="PASS", WARN="WARN", BAD_INPUT="bad input", BLOCK="BLOCK") + ".\n\nRUN: " + RUN_HELP)
@click.option("--baseline", type=click.Path(path_type=Path), required=True, metavar="RUN",
              help="The baseline run.")
@click.option("--candidate", type=click.Path(path_type=Path), required=True, metavar="RUN",
              help="The candidate run (may be the baseline's own directory with two variants).")
@click.option("--baseline-variant", metavar="NAME", default=None,
              help="Compare only this variant of the baseline run, by case.")
@click.option("--candidate-variant", metavar="NAME", default=None,
              help="Compare only this variant of the candidate run, by case.")
@recorded_corpus_option
@click.option("--quarantine", "quarantine_file", type=click.Path(path_type=Path), default=None,
              help="Quarantine YAML file (case, reason, owner, expiry per entry).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="False-block budget of the statistical rule.")
@click.option("--tolerance", type=float, default=2.0, show_default=True,
              help="Points of drop above which a drop that is not significant warns.")
@click.option("--max-cost-increase", type=float, default=20.0, show_default=True,
              help="Percent rise of the mean cost per trial above which the gate warns.")
@click.option("--allow-dataset-change", is_flag=True, help="Compare runs made on different dataset fingerprints.")
@click.option("--html", "html_file", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="Also write the comparison as an HTML page, with the behaviour comparison and every trial's "
                   "artifacts (above 200 trials on trial pages in FILE's _files folder beside it).")
@click.option("--holdout", "include_holdout", is_flag=True,
              help="Include the holdout cases (left out by default, so tuning never sees them): the verdict covers "
                   "them, and the candidate's gain on the tuning set is set against its gain on the holdout set "
                   "(a release's gate).")
@json_option
def compare_command(baseline: Path, candidate: Path, baseline_variant: str | None, candidate_variant: str | None,
                    corpus_dir: Path | None, quarantine_file: Path | None, alpha: float, tolerance: float,
                    max_cost_increase: float, allow_dataset_change: bool, html_file: Path | None,
                    as_json: bool, include_holdout: bool) -> int:
    options = CompareOptions(alpha=alpha, tolerance_points=tolerance, max_cost_increase_pct=max_cost_increase,
                             allow_dataset_change=allow_dataset_change, holdout=include_holdout)
    with held_until_exit():
        base = load_trials(run_dir(baseline, corpus_dir))
        cand = load_trials(run_dir(candidate, corpus_dir))
    if baseline_variant is not None:
        base = only_variant(base, baseline_variant, "--baseline-variant")
    if candidate_variant is not None:
        cand = only_variant(cand, candidate_variant, "--candidate-variant")
    corpus = Corpus.open(corpus_dir) if corpus_dir is not None else None
    cases, source = policy_for(corpus, cand, base)
    report = evaluate(base, cand, cases, load_quarantine(quarantine_file) if quarantine_file else Quarantine(),
                      options, policy_source=source, directions=directions_for(corpus, cand, base))
    triage = find_triage(report)
    if html_file is not None:
        write_compare_html(report, html_file, triage)
    click.echo(compare_json(report, triage) if as_json else "\n".join(render_compare(report, triage)))
    return report.exit_code
