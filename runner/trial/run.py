"""`runner run`: every selected variant on every selected case, k trials each, evidence on disk, resumable."""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from corpus import Corpus, corpus_fingerprint
from corpus.errors import UsageError
from corpus.fsutil import hindcast_temp, publish_directory
from corpus.gitutil import open_repository
from corpus.layout import RESULTS_DIR
from corpus.model import TamperingPolicy
from runner.behaviour.prices import load_prices
from runner.envs.cache import EnvCache, open_env_cache
from runner.envs.environment import uv_binary
from runner.executors.jobs import Janitor, Node, not_removed, run_jobs
from runner.executors.local import executor_for
from runner.grading.assets import AssetCache
from runner.runs.digests import DigestLedger, forget_trials
from runner.runs.load import LoadedRun, load_run
from runner.runs.manifest import (
    Origin,
    RunConfig,
    RunManifest,
    new_run_stamp,
    read_manifest,
    write_manifest,
)
from runner.runs.result import TrialResult, trial_path
from runner.runs.runtime import runtime_info
from runner.sandbox.bwrap import WORKSPACE
from runner.sandbox.confine import (
    PROMPT_FILE,
    Confinement,
    bwrap_version,
    confine,
    harness_dirs,
    hidden_paths,
    isolation,
)
from runner.settings import Change, RecordedSettings, Settings
from runner.trial.agent import render_command
from runner.trial.plan import (
    RunOptions,
    case_meta,
    check_run_name,
    new_config,
    plan_trials,
    resume_config,
    run_settings,
    source_trials,
)
from runner.trial.spec import TrialContext, TrialSpec
from runner.trial.state import OUTPUT_DIR, OUTPUT_DIR_NAME, TASK_DIR_NAME
from runner.trial.trial import TrialJob
from runner.workspace.prepare import WORKSPACE_DIR

Progress = Callable[[int, int, TrialResult], None]
DEFAULT_ERROR_STREAK = 5
"""Without --max-errors, a run stops when this many first trials to finish all errored with one reason."""


def run(corpus: Corpus, options: RunOptions, progress: Progress | None = None,
        announce: Callable[[Path, int], None] | None = None,
        stopped: Callable[[str], None] | None = None,
        overridden: Callable[[tuple[Change, ...]], None] | None = None,
        warned: Callable[[str], None] | None = None) -> LoadedRun:
    """Run (or resume) a run and return it as read back from disk.

    Bad input raises UsageError before anything is written. A resume restores the settings the run was started
    with but those options.given names, and calls overridden(changes) when those differ from the recorded ones.
    announce(run_dir, trials to run) is called once the run directory exists; progress(done, total, result)
    after every trial. When too many trials end in error (max_errors, see stop_reason) no new trial starts,
    running ones finish, the run stays resumable like an interrupted one and stopped(why) is called once.
    warned(line) is called for each scratch directory that could not be removed.
    """
    _check_numbers(options)
    repo = open_repository(corpus.repo_path(options.repo))
    results_dir = options.results_dir or corpus.root / RESULTS_DIR
    stored_all = {s.case.id: s for s in corpus.load_all("cases")}
    dataset = corpus_fingerprint((s.case, s.files) for s in stored_all.values())
    if options.resume is not None:
        run_dir = options.resume
        manifest = read_manifest(run_dir)
        config = resume_config(manifest.config, options, stored_all, run_dir)
        if manifest.dataset_fingerprint != dataset:
            raise UsageError(f"--resume {run_dir}: the corpus changed since the run was made (dataset "
                             f"fingerprint {manifest.dataset_fingerprint[:12]} is now {dataset[:12]}); "
                             f"start a new run")
        settings, changes = run_settings(options, manifest)
    else:
        config = new_config(options, stored_all)
        source = read_manifest(options.patch_from) if config.mode == "regrade" and options.patch_from else None
        settings, changes = run_settings(options, None, source)
    missing = [c for c in config.cases if c not in stored_all]
    if missing:
        raise UsageError(f"case {missing[0]!r} is not in the corpus {corpus.root}")
    # No variable of the agent's environment may name these; the sandbox also never shows the scratch root
    # (templates, other trials, other runs) or Hindcast's own packages.
    hidden = hidden_paths(corpus.root, repo, results_dir, options.resume, options.patch_from)
    scratch = options.scratch_root or hindcast_temp()
    unseen = hidden_paths(*hidden, scratch, *harness_dirs())
    confinement = confine(settings, unseen)
    record = RecordedSettings(settings, bwrap_version() if confinement.sandboxed else None, isolation(confinement))
    if options.resume is None:
        name = check_run_name(options.name) if options.name is not None else None
        run_id, created = new_run_stamp()
        manifest = RunManifest(run_id, created, dataset, runtime_info(config, record), config, name=name,
                               origin=Origin(str(corpus.root.resolve()), str(repo.resolve())),
                               cases_meta=case_meta(stored_all, config.cases, corpus.config.defaults.owner),
                               triage=options.triage, directions=dict(corpus.config.behaviour_directions),
                               settings=record)
    elif options.name is not None and options.name != manifest.name:
        raise UsageError(f"--name {options.name}: a resumed run keeps its name ({manifest.name or 'none'})")
    if settings.executor == "ray":
        if config.mode == "regrade":
            raise UsageError("--executor ray: regrade grades the saved patches of a run on this machine; "
                             "drop --executor ray")
        from runner.executors.ray_executor import connect

        connect(settings)  # before the run directory exists: no cluster, no run
    uv_binary()  # what the trials' threads need of the interpreter, resolved before they start
    env_cache = open_env_cache(settings.env_cache)
    try:
        saved = source_trials(config) if config.mode == "regrade" else {}
        if options.resume is not None:
            plan = plan_trials(config, stored_all, saved, run_dir)
            _clean_staging(run_dir)
            resumed = {"at": _now(), "runtime": runtime_info(config, record), "trials": len(plan),
                       "settings": record.to_json(), "overridden": [c.flag for c in changes],
                       "changes": [str(c) for c in changes]}
            manifest = replace(manifest, resumed=(*manifest.resumed, resumed))
            forget_trials(run_dir, manifest, [(s.variant, s.stored.case.id, s.trial) for s in plan])
            if changes and overridden:
                overridden(changes)
        else:
            run_dir = _create_run(results_dir, manifest)
            plan = plan_trials(config, stored_all, saved, None)
        if announce:
            announce(run_dir, len(plan))
        hidden = hidden_paths(*hidden, run_dir.parent, run_dir, config.patch_from)
        _execute(plan, repo, run_dir, config, replace(options, scratch_root=scratch), settings, hidden,
                 corpus.config.test_globs, progress, confinement, env_cache, stopped, warned,
                 tampering=corpus.config.grader_tampering)
    finally:
        if env_cache is not None:
            env_cache.close()
    return load_run(run_dir)


def _check_numbers(options: RunOptions) -> None:
    if options.settings.jobs < 1 or (options.trials is not None and options.trials < 1):
        raise UsageError("--jobs and --trials must be at least 1")
    if options.agent_timeout is not None and options.agent_timeout <= 0:
        raise UsageError("--agent-timeout must be positive")
    if options.settings.max_errors is not None and options.settings.max_errors < 0:
        raise UsageError("--max-errors must be 0 (no limit) or more")


def stop_reason(errors: list[str], finished: int, max_errors: int | None) -> str | None:
    """Why a run stops starting trials, given the reasons of its trials ended in error so far and how many
    trials finished; None: go on.

    max_errors None: stop when the first DEFAULT_ERROR_STREAK trials to finish all errored with one reason (a
    broken setup, not a flaky trial); 0: never stop; N: stop at the Nth error, naming the commonest reason.
    """
    if max_errors is None:
        streak = finished == DEFAULT_ERROR_STREAK and len(errors) == finished and len(set(errors)) == 1
        return f"{finished} trials ended in error: {errors[0]}" if streak else None
    if max_errors == 0 or len(errors) < max_errors:
        return None
    return f"{len(errors)} trials ended in error: {Counter(errors).most_common(1)[0][0]}"


@dataclass(frozen=True)
class Preview:
    """What the first trial of one variant would run (`runner run --dry-run`)."""

    variant: str
    """The variant's name."""
    case_id: str | None
    """The case of its first trial; None when the variant has no trial left to run."""
    trial: int
    """The number of that trial (0 when there is none)."""
    command: str | None
    """The agent command with its placeholders filled as that trial would have them; None in a mode without agent."""


def preview(corpus: Corpus, options: RunOptions) -> tuple[Preview, ...]:
    """The first trial of each variant and its expanded agent command, checked like a run but with nothing run
    or written (UsageError on bad input).

    Inside the sandbox the placeholders are the paths the agent sees; on the host the trial's scratch directory
    gets a random name, shown as XXXXXXXX.
    """
    _check_numbers(options)
    stored = {s.case.id: s for s in corpus.load_all("cases")}
    if options.resume is not None:
        manifest = read_manifest(options.resume)
        config = resume_config(manifest.config, options, stored, options.resume)
        settings, _ = run_settings(options, manifest)
    else:
        config = new_config(options, stored)
        settings = options.settings
    missing = [c for c in config.cases if c not in stored]
    if missing:
        raise UsageError(f"case {missing[0]!r} is not in the corpus {corpus.root}")
    saved = source_trials(config) if config.mode == "regrade" else {}
    plan = plan_trials(config, stored, saved, options.resume)
    previews = []
    for variant in config.variants:
        first = next((s for s in plan if s.variant == variant.name), None)
        if first is None:
            previews.append(Preview(variant.name, None, 0, None))
            continue
        command = None
        if first.command is not None:
            case_id = first.stored.case.id
            if settings.sandbox == "none":
                scratch = (options.scratch_root or hindcast_temp()) / f"hindcast-{case_id}-XXXXXXXX"
                places = {"workspace": str(scratch / WORKSPACE_DIR),
                          "prompt_file": str(scratch / TASK_DIR_NAME / "prompt.md"),
                          "output_dir": str(scratch / OUTPUT_DIR_NAME)}
            else:
                places = {"workspace": WORKSPACE, "prompt_file": PROMPT_FILE, "output_dir": OUTPUT_DIR}
            command = render_command(first.command, {**places, "case_id": case_id, "trial": str(first.trial)})
        previews.append(Preview(variant.name, first.stored.case.id, first.trial, command))
    return tuple(previews)


def _clean_staging(run_dir: Path) -> None:
    """Remove staging folders an interrupted run left behind (they were never visible as trials)."""
    for path in run_dir.glob("*/*/.*.staging"):
        shutil.rmtree(path, ignore_errors=True)


def _create_run(results_dir: Path, manifest: RunManifest) -> Path:
    """Publish a new run directory holding run.json, atomically (nothing is left when that fails)."""
    return publish_directory(results_dir, manifest.run_id, lambda staged: write_manifest(staged, manifest))


def _execute(plan: list[TrialSpec], repo: Path, run_dir: Path, config: RunConfig, options: RunOptions,
             settings: Settings, hidden: tuple[str, ...], test_globs: tuple[str, ...], progress: Progress | None,
             confinement: Confinement, env_cache: EnvCache | None = None,
             stopped: Callable[[str], None] | None = None, warned: Callable[[str], None] | None = None, *,
             tampering: TamperingPolicy = "fail") -> None:
    """Run the planned trials as jobs of the executor the settings choose, jobs at a time; on any interruption
    every running command is killed; when stop_reason says so, trials not yet started are dropped and running
    ones finish. warned gets a line per scratch directory that could not be removed."""
    if not plan:
        return
    if options.scratch_root is not None:
        options.scratch_root.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="hindcast-run-", dir=options.scratch_root))
    janitor = Janitor()
    ctx = TrialContext(agent_timeout=config.agent_timeout, hidden=hidden, test_globs=test_globs,
                       tampering=tampering, keep=settings.keep, transcript_limit=options.transcript_limit,
                       prices=load_prices(settings.prices) if settings.prices is not None else None)
    node = Node(repo, AssetCache(repo, root), confinement, env_cache, scratch=options.scratch_root,
                discard=janitor.discard)
    jobs = (TrialJob(spec, ctx, trial_path(run_dir, spec.variant, spec.stored.case.id, spec.trial))
            for spec in plan)
    ledger = DigestLedger(run_dir)
    finished = 0
    errors: list[str] = []
    why: str | None = None

    def done(job: TrialJob, result: TrialResult | None) -> bool:
        nonlocal finished, why
        finished += 1
        if result is None:
            return why is None
        ledger.record(result)
        if progress:
            progress(finished, len(plan), result)
        if why is None:
            if result.outcome == "error":
                errors.append(result.reason)
            why = stop_reason(errors, finished, settings.max_errors)
            if why is not None and stopped:
                stopped(why)
        return why is None

    try:
        executor = executor_for(settings, node)
        try:  # published while the run stopped are recorded too (recording one twice changes nothing)
            run_jobs(executor, jobs, settings.jobs, done, rescued=ledger.record)
        finally:
            executor.close()
    finally:
        for warning in not_removed(janitor.close(root)):
            if warned is not None:
                warned(warning)
        ledger.flush()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
