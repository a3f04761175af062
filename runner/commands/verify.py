"""`runner verify`: prove each case, base fails and oracle passes (over runner.verify.verify)."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from corpus import Corpus
from corpus.cli_support import corpus_option, repo_option
from corpus.errors import ExitCode
from runner.commands.options import EXECUTOR_FLAGS, LIMIT_FLAGS, json_option, settings_options
from runner.settings import Settings
from runner.verify.render import render_verdicts, report_json, verdict_line
from runner.verify.verify import CaseVerdict, Interrupted, VerifyOptions, VerifyReport, verify


@click.command("verify")
@corpus_option()
@repo_option()
@click.option("--case", "case_ids", multiple=True, help="Verify only this case (repeatable).")
@click.option("--all", "all_cases", is_flag=True,
              help="Every active case, or with --candidates every candidate (cases default to all).")
@click.option("--repeats", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs of each side; all must agree.")
@click.option("--candidates", is_flag=True,
              help="Verify the miner's candidates (needs --case or --all); the measured tests are written into them.")
@click.option("--update", is_flag=True, help="Write the measured fail-to-pass and pass-to-pass tests into cases too.")
@click.option("--top", type=click.IntRange(min=1), default=None, metavar="N",
              help="Only the N best-scored (the miner's score); with --candidates, no --all needed.")
@click.option("--min-score", type=float, default=None, metavar="X", help="Only those the miner scored at least X.")
@click.option("--since", type=click.DateTime(["%Y-%m-%d"]), default=None, metavar="YYYY-MM-DD",
              help="Only fixes authored on or after this date.")
@settings_options("--jobs", "--keep", "--sandbox", "--env-cache", "--no-env-cache", *EXECUTOR_FLAGS, *LIMIT_FLAGS)
@json_option
def verify_command(corpus_dir: Path, repo: Path | None, case_ids: tuple[str, ...], all_cases: bool, repeats: int,
                   candidates: bool, update: bool, top: int | None, min_score: float | None, since: datetime | None,
                   settings: Settings, as_json: bool) -> int:
    """Prove each case: the broken base fails its hidden grader and the oracle passes it.

    The grader's test files run whole on both sides; the tests that fail at base and pass with the oracle are
    its fail-to-pass, those passing on both its pass-to-pass. A progress bar on a terminal, else one line per
    verdict, goes to stderr; the logs of unexpected attempts are kept under .hindcast/verify/<id>/.
    """
    corpus = Corpus.open(corpus_dir)
    options = VerifyOptions(case_ids=case_ids, repeats=repeats, settings=settings, repo=repo,
                            kind="candidates" if candidates else "cases", all_cases=all_cases, update=update,
                            top=top, min_score=min_score, since=since.date().isoformat() if since else None)
    kind = "candidate(s)" if candidates else "case(s)"
    try:
        report = _verify(corpus, options, settings, kind)
    except Interrupted as stop:
        done = len(stop.report.verdicts)
        recorded = " and recorded" if done else ""
        click.echo(f"runner: interrupted: every attempt stopped; {done} of {stop.selected} {kind} verified"
                   f"{recorded}, nothing half-written", err=True)
        if done:
            click.echo("\n".join(render_verdicts(stop.report)))
        return ExitCode.INTERRUPTED
    for warning in report.warnings:
        click.echo(f"runner: warning: {warning}", err=True)
    click.echo(report_json(report) if as_json else "\n".join(render_verdicts(report)))
    return ExitCode.OK if report.all_valid else ExitCode.FAILED


def _verify(corpus: Corpus, options: VerifyOptions, settings: Settings, kind: str) -> VerifyReport:
    """verify, with its estimate line, and a progress bar on a terminal or a line per attempt and verdict off it."""

    def estimate(cases: int, attempts: int) -> None:
        click.echo(f"verifying {cases} {kind}: {attempts} attempts (each base runs twice when measured) at "
                   f"--jobs {settings.jobs}; a cold environment takes the longest", err=True)

    with ExitStack() as stack:
        if sys.stderr.isatty():
            bars: list[Any] = []

            def start(cases: int, total: int) -> None:
                estimate(cases, total)
                bars.append(stack.enter_context(click.progressbar(length=total, label="verifying",
                                                                  file=sys.stderr, show_eta=True)))

            report = verify(corpus, options, progress=lambda _: bars[0].update(1), on_start=start)
        else:
            def line(verdict: CaseVerdict) -> None:
                click.echo(verdict_line(verdict), err=True)

            report = verify(corpus, options, progress=lambda text: click.echo(text, err=True), on_verdict=line,
                            on_start=estimate)
    return report
