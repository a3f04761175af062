"""`runner run`: score agents on the corpus, with a progress bar on a terminal (over runner.trial.run)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import click
from click.core import ParameterSource
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from corpus import Corpus
from corpus.cli_support import corpus_option, repo_option
from corpus.errors import ExitCode
from runner.behaviour.parse import FORMATS
from runner.behaviour.prices import load_prices
from runner.commands.options import (
    env_cache_dir,
    env_cache_options,
    executor_options,
    ray_settings,
    sandbox_option,
)
from runner.envs.cache import default_cache_dir
from runner.executors.settings import RaySettings
from runner.gate.select import changed_since, select_cases
from runner.report.report import print_report
from runner.runs.find import default_results, recorded_origin, resolve_run
from runner.runs.load import LoadedRun
from runner.runs.manifest import MODES, Variant
from runner.runs.result import TrialResult
from runner.trial.plan import RunOptions, parse_agents, with_trajectory_files, with_transcript_formats
from runner.trial.presets import PRESETS
from runner.trial.run import preview, run
from runner.verify.record import unverified_warning


@click.command("run", help=(
    "Score coding agents: k trials per case in isolated workspaces, graded after the agent stops.\n\n"
    f"Exits {ExitCode.OK:d} when every trial was scored, {ExitCode.FAILED:d} when some ended in error or the run "
    "stopped early because of errors (resume the run to retry them), {ExitCode.BAD_INPUT:d} on bad input, {ExitCode.INTERRUPTED:d} when interrupted (the run "
    "stays resumable)."))
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
@click.option("--prices", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="A price table (YAML or JSON: per model, USD per million input, cache_read, cache_write and "
                   "output tokens) costing trials whose agent reports tokens but no cost.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Trials run at once.")
@executor_options
@click.option("--shard", metavar="I/N", default=None,
              help="Run only the I-th of N deterministic parts of the trials (a CI matrix job); `runner merge` "
                   "joins the N runs.")
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where run directories are made [default: CORPUS/results].")
@click.option("--resume", type=click.Path(path_type=Path), default=None, metavar="RUN",
              help="Complete a run (a directory, `latest` or a run's --name): only its missing and errored trials "
                   "run, on the corpus and repository the run recorded unless --corpus/--repo say otherwise.")
@click.option("--patch-from", type=click.Path(path_type=Path), default=None, metavar="RUN",
              help="regrade: the run whose candidate patches are graded again.")
@click.option("--transcript-format", "transcript_formats", multiple=True, metavar="[NAME=]FORMAT",
              help="How each agent's transcript is read into behaviour.json: " + ", ".join(FORMATS)
                   + " [default: auto, detected from its first lines]; NAME= for one variant (repeatable).")
@click.option("--name", metavar="LABEL", default=None,
              help="Name the new run (e.g. nightly, gpt-5-prompt-b): `runner runs` shows it, and wherever a run is "
                   "expected the name stands for the newest run of that name.")
@click.option("--keep", is_flag=True, help="Keep each trial's workspace (for debugging a trial).")
@click.option("--agent-timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="S",
              help="Seconds before the agent's whole process group is killed [default: 1800].")
@sandbox_option
@click.option("--agent-network", type=click.Choice(["host", "none"]), default="host", show_default=True,
              help="The agent's network inside the sandbox: the host's, or none (loopback only).")
@click.option("--agent-bind", "agent_binds", multiple=True, type=click.Path(path_type=Path), metavar="PATH",
              help="Show this host path read-only at the same path inside the sandbox, e.g. the agent's CLI or "
                   "a toolchain under your home directory (repeatable).")
@click.option("--agent-home", "agent_home", multiple=True, type=click.Path(path_type=Path), metavar="PATH",
              help="Copy this file or directory of your home directory into each agent's own HOME, e.g. "
                   "~/.codex or ~/.claude (repeatable); changes stay in the trial.")
@click.option("--max-errors", type=click.IntRange(min=0), default=None, metavar="N",
              help="Stop starting trials once N have ended in error; 0 never stops [default: stop when the first "
                   "five to finish all errored with the same reason]. The run stays resumable.")
@click.option("--dry-run", is_flag=True,
              help="Check the options and print the expanded agent command of each variant's first trial; "
                   "run and write nothing.")
@env_cache_options
def run_command(corpus_dir: Path, repo: Path | None, case_ids: tuple[str, ...], all_cases: bool,
            select_since: str | None, trials: int | None, mode: str | None, agent_command: str | None,
            agents: tuple[str, ...], jobs: int,
            results_dir: Path | None, resume: Path | None, patch_from: Path | None, keep: bool,
            agent_timeout: float | None, sandbox: str, agent_network: str, agent_binds: tuple[Path, ...],
            agent_home: tuple[Path, ...], max_errors: int | None, dry_run: bool, env_cache: Path | None,
            no_env_cache: bool, transcript_formats: tuple[str, ...], name: str | None,
            agent_args: tuple[str, ...] = (), trajectory_files: tuple[str, ...] = (),
            prices: Path | None = None, shard: str | None = None, executor: str = "local",
            ray_address: str | None = None, retries: int = 2, trial_cpus: float = 1.0,
            trial_memory: str | None = None) -> int:
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
    if prices is not None:
        load_prices(prices)  # checked before anything runs
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
    warning = unverified_warning(corpus, case_ids, all_cases, mode)
    options = RunOptions(case_ids=case_ids, all_cases=all_cases, trials=trials, mode=mode, variants=variants,
                         jobs=jobs, results_dir=results_dir, resume=resume, patch_from=patch_from, keep=keep,
                         agent_timeout=agent_timeout, repo=repo, sandbox=sandbox,
                         agent_network=agent_network == "host", agent_binds=agent_binds, agent_home=agent_home,
                         env_cache=env_cache_dir(env_cache, no_env_cache), max_errors=max_errors, name=name,
                         prices=prices, shard=shard, executor=executor,
                         ray=ray_settings(executor, ray_address, retries, trial_cpus, trial_memory))
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
                click.echo(f"run {run_dir}: {total} trial(s)", err=True)

            loaded = run(corpus, options, progress=print_progress, announce=announce, stopped=why.append)
    except KeyboardInterrupt:
        if not made:
            raise
        click.echo(f"runner: interrupted; the run stays resumable: {resume_command(made[0], options)}", err=True)
        return ExitCode.INTERRUPTED
    for reason in why:
        click.echo(f"stopped: {reason}; resume with: {resume_command(loaded.directory, options)}", err=True)
    print_report(loaded)
    return ExitCode.FAILED if why or any(t.outcome == "error" for t in loaded.trials) else ExitCode.OK


def resume_command(run_dir: Path, options: RunOptions) -> str:
    """The `runner run --resume` command line that completes run_dir with the options this run used that run.json
    does not record (the corpus, repository, cases, mode, trials and agents it does)."""
    words = ["runner", "run", "--resume", str(run_dir.absolute())]
    if options.jobs != 1:
        words += ["--jobs", str(options.jobs)]
    if options.sandbox != "bwrap":
        words += ["--sandbox", options.sandbox]
    if not options.agent_network:
        words += ["--agent-network", "none"]
    for path in options.agent_binds:
        words += ["--agent-bind", str(path)]
    for path in options.agent_home:
        words += ["--agent-home", str(path)]
    if options.env_cache is None:
        words.append("--no-env-cache")
    elif options.env_cache != default_cache_dir():
        words += ["--env-cache", str(options.env_cache)]
    if options.keep:
        words.append("--keep")
    if options.max_errors is not None:
        words += ["--max-errors", str(options.max_errors)]
    if options.prices is not None:
        words += ["--prices", str(options.prices.absolute())]
    if options.executor == "ray":
        ray = options.ray
        words += ["--executor", "ray", *(["--ray-address", ray.address] if ray.address else []),
                  *(["--retries", str(ray.retries)] if ray.retries != RaySettings.retries else []),
                  *(["--trial-cpus", f"{ray.trial_cpus:g}"] if ray.trial_cpus != RaySettings.trial_cpus else []),
                  *(["--trial-memory", str(ray.trial_memory)] if ray.trial_memory else [])]
    return shlex.join(words)


def print_progress(done: int, total: int, result: TrialResult) -> None:
    click.echo(f"[{done}/{total}] {result.variant}::{result.case_id} #{result.trial}: {result.outcome} "
               f"({result.reason})", err=True)


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

        def progress(done: int, total: int, result: TrialResult) -> None:
            bar.update(task, completed=done, last=f"{result.variant}::{result.case_id} #{result.trial} "
                                                 f"{result.outcome}")

        return run(corpus, options, progress=progress, announce=announce, stopped=stopped)
