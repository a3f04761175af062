"""`runner verify`: prove each case, base fails and oracle passes (over runner.verify.verify)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from corpus import Corpus
from corpus.cli_support import corpus_option, repo_option
from corpus.errors import ExitCode
from runner.commands.options import EXECUTOR_FLAGS, LIMIT_FLAGS, json_option, settings_options
from runner.settings import Settings
from runner.verify.progress import Step, Tracker, eta_text
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
    its fail-to-pass, those passing on both its pass-to-pass. On a terminal a bar shows the steps the running
    attempts are in and the time left; off it a line as each attempt starts and ends, and one per verdict, go to
    stderr. Ctrl-C stops every attempt and exits 130, the verdicts reached recorded. The logs of unexpected attempts
    are kept under .hindcast/verify/<id>/.
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
    """verify, with its estimate line; on a terminal a bar with the running attempts' steps and a moving ETA, off
    it a line per attempt as it starts and as it ends, and one per verdict."""

    def estimate(cases: int, attempts: int) -> str:
        return (f"verifying {cases} {kind}: {attempts} attempts (each base runs twice when measured) at "
                f"--jobs {settings.jobs}; a cold environment takes the longest")

    if sys.stderr.isatty():
        return _verify_with_bar(corpus, options, settings.jobs, estimate)

    def started(step: Step) -> None:
        if step.step == "environment":
            click.echo(f"{step.attempt}: started", err=True)

    def line(verdict: CaseVerdict) -> None:
        click.echo(verdict_line(verdict), err=True)

    return verify(corpus, options, progress=lambda text: click.echo(text, err=True), on_verdict=line,
                  on_start=lambda cases, attempts: click.echo(estimate(cases, attempts), err=True), on_step=started)


class _Eta(ProgressColumn):
    """The tracker's time left, recomputed at every refresh: it moves while attempts run."""

    def __init__(self, tracker: list[Tracker]) -> None:
        super().__init__()
        self.tracker = tracker

    def render(self, task: Task) -> Text:
        return Text(eta_text(self.tracker[0].eta()) if self.tracker else "")


def _verify_with_bar(corpus: Corpus, options: VerifyOptions, jobs: int,
                     estimate: Callable[[int, int], str]) -> VerifyReport:
    tracker: list[Tracker] = []
    console = Console(file=sys.stderr, highlight=False)
    with Progress(TextColumn("verifying"), BarColumn(bar_width=20), MofNCompleteColumn(), TaskProgressColumn(),
                  TimeElapsedColumn(), _Eta(tracker), TextColumn("{task.fields[steps]}"), console=console,
                  refresh_per_second=2) as bar:
        task = bar.add_task("verifying", total=None, steps="")

        def start(cases: int, total: int) -> None:
            bar.console.print(estimate(cases, total), markup=False)
            tracker.append(Tracker(total, jobs))
            bar.update(task, total=total)

        def step(one: Step) -> None:
            tracker[0].on(one)
            bar.update(task, completed=tracker[0].done, steps=tracker[0].phases(), refresh=True)

        return verify(corpus, options, on_start=start, on_step=step)
