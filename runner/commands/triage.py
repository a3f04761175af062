"""`runner triage`: rerun a comparison's regressions and label them (over runner.gate.triage and runner.trial.run)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from corpus.errors import ExitCode
from corpus.store import Corpus
from runner.commands.options import (
    RUN_HELP,
    SETTINGS_FLAGS,
    json_option,
    recorded_corpus_option,
    run_dir,
    settings_options,
)
from runner.commands.run import print_progress
from runner.gate.gate import CompareOptions, evaluate
from runner.gate.pairing import load_trials, only_variant, policy_for
from runner.gate.quarantine import Quarantine, load_quarantine
from runner.gate.triage import check_dataset, label_regressions
from runner.runs.find import recorded_origin
from runner.runs.manifest import read_manifest
from runner.settings import Settings
from runner.trial.run import run
from runner.trial.triage import triage_options


@click.command("triage", help=(
    "Rerun each regression of a comparison N more times with the candidate's configuration (a new run beside the "
    "candidate) and label it reproduced (no rerun passed), flaky (some did) or not reproduced (every scored rerun "
    "passed); `runner compare` then shows the labels. The reruns have the settings the candidate was started with "
    "(--sandbox, --agent-bind, --env-cache, --jobs, ...) but those given. "
    + f"Exits {ExitCode.OK:d} when every regression is labelled, {ExitCode.FAILED:d} when a rerun ended in error, "
    + f"{ExitCode.BAD_INPUT:d} on bad input.\n\nRUN: " + RUN_HELP))
@click.option("--baseline", type=click.Path(path_type=Path), required=True, metavar="RUN", help="The baseline run.")
@click.option("--candidate", type=click.Path(path_type=Path), required=True, metavar="RUN",
              help="The candidate run whose regressions are rerun.")
@click.option("--baseline-variant", metavar="NAME", default=None, help="Compare only this variant of the baseline.")
@click.option("--candidate-variant", metavar="NAME", default=None, help="Compare only this variant of the candidate.")
@click.option("--reruns", type=click.IntRange(min=1), default=5, show_default=True,
              help="Trials per regressed case.")
@recorded_corpus_option
@click.option("--quarantine", "quarantine_file", type=click.Path(path_type=Path), default=None,
              help="Quarantine YAML file: its cases are not regressions, as in `runner compare`.")
@click.option("--repo", type=click.Path(path_type=Path), default=None,
              help="Source repository [default: the one the candidate run recorded].")
@settings_options(*SETTINGS_FLAGS)
@json_option
def triage_command(baseline: Path, candidate: Path, baseline_variant: str | None, candidate_variant: str | None,
                   reruns: int, corpus_dir: Path | None, quarantine_file: Path | None, repo: Path | None,
                   settings: Settings, given: frozenset[str], as_json: bool) -> int:
    base_dir, cand_dir = run_dir(baseline, corpus_dir), run_dir(candidate, corpus_dir, frozen=False)
    base, cand = load_trials(base_dir), load_trials(cand_dir)
    if baseline_variant is not None:
        base = only_variant(base, baseline_variant, "--baseline-variant")
    if candidate_variant is not None:
        cand = only_variant(cand, candidate_variant, "--candidate-variant")
    manifest = read_manifest(cand_dir)
    recorded_corpus, recorded_repo = recorded_origin(cand_dir, manifest)
    corpus = Corpus.open(corpus_dir or recorded_corpus)
    cases, source = policy_for(corpus if corpus_dir is not None else None, cand, base)
    quarantine = load_quarantine(quarantine_file) if quarantine_file else Quarantine()
    report = evaluate(base, cand, cases, quarantine, CompareOptions(), policy_source=source)
    check_dataset(corpus, manifest)
    options = triage_options(report, manifest, reruns, corpus.root.resolve(), settings, given,
                             repo=repo or recorded_repo)
    click.echo(f"triage: rerunning {len(report.regressions())} regression(s) {reruns} time(s) each", err=True)
    loaded = run(corpus, options, progress=print_progress, announce=lambda d, n: click.echo(f"run {d}: {n} trial(s)", err=True))
    triage = label_regressions(report, loaded)
    if as_json:
        click.echo(json.dumps({"run_id": triage.run_id, "directory": str(triage.directory),
                               "labels": {k: {"label": v.label, "passes": v.passes, "fails": v.fails,
                                              "errors": v.errors} for k, v in triage.labels.items()}},
                              indent=2, sort_keys=True))
    else:
        width = max((len(k) for k in triage.labels), default=4)
        for key, label in triage.labels.items():
            click.echo(f"{key:<{width}}  {label.text()}")
        click.echo(f"triage run: {triage.directory}")
    return ExitCode.FAILED if any(t.outcome == "error" for t in loaded.trials) else ExitCode.OK
