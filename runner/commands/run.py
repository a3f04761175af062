"""`runner run`: score agents on the corpus, with a progress bar on a terminal (over runner.trial.run)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click
from click.core import ParameterSource
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from corpus import Corpus
from corpus.cli_support import corpus_option, repo_option
from corpus.errors import ExitCode, HindcastError
from runner.behaviour.parse import FORMATS
from runner.behaviour.prices import load_prices
from runner.commands.options import SETTINGS_FLAGS, settings_options
from runner.gate.ahead import gate_warnings
from runner.gate.select import changed_since, select_cases
from runner.report.report import print_report
from runner.runs.find import default_results, recorded_origin, resolve_run
from runner.runs.holdout import tuning_view
from runner.runs.load import LoadedRun
from runner.runs.manifest import MODES, RunManifest, Variant, read_manifest
from runner.runs.result import TrialResult
from runner.settings import Change, Settings, resume_command
from runner.trial.plan import RunOptions, parse_agents, with_trajectory_files, with_transcript_formats
from runner.trial.presets import PRESETS
from runner.trial.run import preview, run
from runner.verify.record import unverified_warning


@click.command("run", help=(
    "Score coding agents: k trials per case in isolated workspaces, graded after the agent stops.\n\n"
    f"Exits {ExitCode.OK:d} when every trial was scored, {ExitCode.FAILED:d} when some ended in error or the run "
    f"stopped early because of errors (resume the run to retry them), {ExitCode.BAD_INPUT:d} on bad input, "
    f"{ExitCode.INTERRUPTED:d} when interrupted (the run stays resumable)."))
@corpus_option()
@repo_option()
@click.option("--case", "case_ids", multiple=True, metavar="ID", help="Run this case (repeatable).")
@click.option("--all", "all_cases", is_flag=True, help="Run every active case.")
@click.option("--select-since", metavar="REV", default=None,
              help="Run only the cases whose trigger paths match the files changed since REV.")
@click.option("--trials", type=click.IntRange(min=1), default=None, help="Trials per variant and case [default: 1].")
@click.option("--mode", type=click.Choice(MODES), default=None,
              help="agent: run the agent; baseline: no change; oracle: the known fix; regrade: saved patches "
                   "with today's grader [default: agent].")
@click.option("--agent-command", default=None, metavar="CMD",
              help="Agent command; {workspace}, {prompt_file}, {case_id}, {trial} are replaced, shell-quoted.")
@click.option("--agent", "agents", multiple=True, metavar="NAME=CMD|PRESET",
              help="A named agent variant (repeatable): every variant runs on every case. A preset ("
                   + ", ".join(PRESETS) + "; NAME=preset:PRESET to name it) is that CLI's non-interactive command "
                   "line and transcript format.")
@click.option("--agent-arg", "agent_args", multiple=True, metavar="[NAME:]KEY=VALUE",
              help="Vary a preset: model=MODEL adds its model flag; NAME: for one variant (repeatable).")
@click.option("--trajectory-file", "trajectory_files", multiple=True, metavar="[NAME=]PATH",
              help="Read the agent's behaviour from this file it leaves in its workspace (a path relative to it, "
                   "e.g. a mini-swe-agent .traj.json) instead of its stdout; NAME= for one variant (repeatable).")
@click.option("--shard", metavar="I/N", default=None,
              help="Run only the I-th of N deterministic parts of the trials (a CI matrix job); `runner merge` "
                   "joins the N runs.")
@click.option("--seed", type=click.IntRange(min=0), default=None, metavar="N",
              help="What each trial's wording is drawn from, with the trial's number, for cases with several "
                   "(prompts:); runs with one seed give each trial the same wording [default: 0; a resume keeps "
                   "the run's].")
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where run directories are made [default: CORPUS/results].")
@click.option("--resume", type=click.Path(path_type=Path), default=None, metavar="RUN",
              help="Complete a run (a directory, `latest` or a run's --name): only its missing and errored trials "
                   "run, on the corpus and repository the run recorded unless --corpus/--repo say otherwise, with "
                   "every setting it was started with (--sandbox, --agent-bind, --env-cache, --executor, --jobs, "
                   "...) but those given, which stderr names.")
@click.option("--patch-from", type=click.Path(path_type=Path), default=None, metavar="RUN",
              help="regrade: the run whose candidate patches are graded again.")
@click.option("--transcript-format", "transcript_formats", multiple=True, metavar="[NAME=]FORMAT",
              help="How each agent's transcript is read into behaviour.json: " + ", ".join(FORMATS)
                   + " [default: auto, detected from its first lines]; NAME= for one variant (repeatable).")
@click.option("--name", metavar="LABEL", default=None,
              help="Name the new run (e.g. nightly, gpt-5-prompt-b): `runner runs` shows it, and wherever a run is "
                   "expected the name stands for the newest run of that name.")
@click.option("--agent-timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="S",
              help="Seconds before the agent's whole process group is killed [default: 1800].")
@click.option("--dry-run", is_flag=True,
              help="Check the options and print the expanded agent command of each variant's first trial; "
                   "run and write nothing.")
@settings_options(*SETTINGS_FLAGS)
def run_command(corpus_dir: Path, repo: Path | None, case_ids: tuple[str, ...], all_cases: bool,
                select_since: str | None, trials: int | None, mode: str | None, agent_command: str | None,
                agents: tuple[str, ...], results_dir: Path | None, resume: Path | None, patch_from: Path | None,
                agent_timeout: float | None, dry_run: bool, transcript_formats: tuple[str, ...], name: str | None,
                settings: Settings, given: frozenset[str], agent_args: tuple[str, ...] = (),
                trajectory_files: tuple[str, ...] = (), shard: str | None = None, seed: int | None = None) -> int:
    variants: tuple[Variant, ...] = ()
    if agent_command is not None and agents:
        raise click.UsageError("use either --agent-command or --agent NAME=CMD, not both")
    if agent_command is not None:
        variants = (Variant("default", agent_command),)
    elif agents:
        variants = parse_agents(agents, agent_args)
    if agent_args and not agents:
        raise click.UsageError("--agent-arg varies a preset: give one with --agent (" + ", ".join(PRESETS) + ")")
    variants = with_transcript_formats(variants, transcript_formats)
    variants = with_trajectory_files(variants, trajectory_files)
    if settings.prices is not None:
        load_prices(settings.prices)  # checked before anything runs
    lookup = results_dir if results_dir is not None else default_results(corpus_dir)
    if patch_from is not None and mode == "regrade":
        patch_from = resolve_run(patch_from, lookup, frozen=False)
    if resume is not None:
        resume = resolve_run(resume, lookup, frozen=False)
        recorded_corpus, recorded_repo = recorded_origin(resume)
        source = click.get_current_context().get_parameter_source
        if source("corpus_dir") is ParameterSource.DEFAULT:
            corpus_dir = recorded_corpus
        if repo is None:
            repo = recorded_repo
    corpus = Corpus.open(corpus_dir)
    if select_since is not None:
        if case_ids or all_cases or resume is not None:
            raise click.UsageError("--select-since cannot be combined with --case, --all or --resume")
        case_ids = tuple(select_cases(corpus, changed_since(corpus.repo_path(repo), select_since)))
        if not case_ids:
            click.echo(f"no case's trigger paths match the files changed since {select_since}; nothing to run",
                       err=True)
            return ExitCode.OK
    warnings = (unverified_warning(corpus, case_ids, all_cases, mode),
                *(gate_warnings(corpus, case_ids, all_cases, trials) if mode in (None, "agent") else ()))
    warning = "\n".join(w for w in warnings if w) or None
    options = RunOptions(case_ids=case_ids, all_cases=all_cases, trials=trials, mode=mode, variants=variants,
                         settings=settings, given=given, results_dir=results_dir, resume=resume,
                         patch_from=patch_from, agent_timeout=agent_timeout, repo=repo, name=name, shard=shard,
                         seed=seed)
    if dry_run:
        previews = preview(corpus, options)
        if warning:
            click.echo(warning, err=True)
        for p in previews:
            if p.case_id is None:
                click.echo(f"{p.variant}: no trial left to run")
            else:
                click.echo(f"{p.variant}::{p.case_id} #{p.trial}: {p.command or f'no agent ({p.variant} mode)'}")
        return ExitCode.OK
    why: list[str] = []
    made: list[Path] = []
    try:
        if sys.stdout.isatty():
            loaded = _run_with_bar(corpus, options, warning, why.append, made.append)
        else:

            def announce(run_dir: Path, total: int) -> None:
                made.append(run_dir)
                if warning:
                    click.echo(warning, err=True)
                click.echo(f"run {run_dir}: {trials_line(total)}", err=True)

            loaded = run(corpus, options, progress=print_progress, announce=announce, stopped=why.append,
                         overridden=print_overrides, warned=print_warning)
    except KeyboardInterrupt:
        if not made:
            raise
        click.echo(f"runner: interrupted; the run stays resumable: {completing(made[0], settings)}", err=True)
        return ExitCode.INTERRUPTED
    for reason in why:
        click.echo(f"stopped: {reason}; resume with: {completing(loaded.directory, settings, loaded.manifest)}",
                   err=True)
    print_report(tuning_view(loaded))
    return ExitCode.FAILED if why or any(t.outcome == "error" for t in loaded.trials) else ExitCode.OK


def trials_line(total: int) -> str:
    """How many trials a run is about to run; a resumed run that recorded them all says so."""
    return f"{total} trial(s)" if total else "every trial is recorded, nothing left to run"


def completing(run_dir: Path, given: Settings, manifest: RunManifest | None = None) -> str:
    """The `runner run --resume` command line that completes run_dir with the settings this command ran it with,
    as run.json records them (given, should run.json not be readable)."""
    try:
        recorded = (manifest or read_manifest(run_dir)).current_settings()
    except HindcastError:
        recorded = None
    return resume_command(run_dir.absolute(), recorded.settings if recorded is not None else given.absolute())


def overrides_line(changes: tuple[Change, ...]) -> str:
    """The line naming the settings a resume was given otherwise than the run recorded them."""
    return f"resume: the run's settings overridden: {', '.join(str(c) for c in changes)}"


def print_overrides(changes: tuple[Change, ...]) -> None:
    click.echo(overrides_line(changes), err=True)


def print_progress(done: int, total: int, result: TrialResult) -> None:
    click.echo(f"[{done}/{total}] {result.variant}::{result.case_id} #{result.trial}: {result.outcome} "
               f"({result.reason})", err=True)


def print_warning(line: str) -> None:
    """A warning of the run on stderr (a scratch directory it could not remove)."""
    click.echo(f"runner: warning: {line}", err=True)


def _run_with_bar(corpus: Corpus, options: RunOptions, warning: str | None,
                  stopped: Callable[[str], None], made: Callable[[Path], None]) -> LoadedRun:
    console = Console(highlight=False)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[last]}"), console=console) as bar:
        task = bar.add_task("trials", total=None, last="")

        def announce(run_dir: Path, total: int) -> None:
            made(run_dir)
            if warning:
                bar.console.print(warning, markup=False)
            bar.update(task, total=total, description=f"run {run_dir.name}")
            if not total:
                bar.console.print(f"run {run_dir}: {trials_line(total)}", markup=False)

        def progress(done: int, total: int, result: TrialResult) -> None:
            bar.update(task, completed=done, last=f"{result.variant}::{result.case_id} #{result.trial} "
                                                 f"{result.outcome}")

        return run(corpus, options, progress=progress, announce=announce, stopped=stopped,
                   overridden=lambda changes: bar.console.print(overrides_line(changes), markup=False),
                   warned=print_warning)
