"""`runner run`: every selected variant on every selected case, k trials each, evidence on disk, resumable."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corpus import Corpus, StoredCase, corpus_fingerprint
from corpus.errors import HindcastError, UsageError
from corpus.fsutil import staging_directory
from corpus.gitutil import open_repository
from runner.grading.failclosed import read_fix_config
from runner.process import kill_running
from runner.runs.load import LoadedRun, load_run
from runner.runs.manifest import (
    MODES,
    VARIANT_NAME,
    RunConfig,
    RunManifest,
    Variant,
    read_manifest,
    write_manifest,
)
from runner.runs.result import TrialResult, read_trial, trial_path
from runner.runs.runtime import runtime_info
from runner.trial.trial import (
    DEFAULT_TRANSCRIPT_LIMIT,
    CaseAssets,
    SavedAttempt,
    TrialContext,
    TrialSpec,
    run_trial,
)
from runner.workspace.workspace import build_template, template_tree

DEFAULT_AGENT_TIMEOUT = 1800.0
RESULTS_SUBDIR = "results"
Progress = Callable[[int, int, TrialResult], None]


@dataclass(frozen=True)
class RunOptions:
    """Everything `runner run` takes; None means "the default" (or, with resume, "as recorded")."""

    case_ids: tuple[str, ...] = ()
    """Cases to run (--case); exclusive with all_cases."""
    all_cases: bool = False
    """Run every active case (--all)."""
    trials: int | None = None
    """Trials per variant and case (default 1)."""
    mode: str | None = None
    """agent (default), baseline, oracle or regrade."""
    variants: tuple[Variant, ...] = ()
    """Agent variants (--agent-command is the variant "default")."""
    jobs: int = 1
    """Trials run at once."""
    results_dir: Path | None = None
    """Where run directories are made (default: CORPUS/results)."""
    resume: Path | None = None
    """A run directory to complete: its missing and errored trials run again."""
    patch_from: Path | None = None
    """regrade: the run whose candidate patches are graded again."""
    keep: bool = False
    """Keep each trial's scratch directory (workspace included)."""
    agent_timeout: float | None = None
    """Seconds before an agent's process group is killed (default 1800)."""
    repo: Path | None = None
    """Source repository overriding corpus.yaml's."""
    scratch_root: Path | None = None
    """Where scratch directories are made (default: the system temp dir)."""
    transcript_limit: int = DEFAULT_TRANSCRIPT_LIMIT
    """Bytes of agent output kept per trial."""


def parse_agent(spec: str) -> Variant:
    """NAME=CMD from --agent."""
    name, sep, command = spec.partition("=")
    if not sep or not command.strip():
        raise UsageError(f"--agent {spec!r}: expected NAME=COMMAND")
    return check_variant(Variant(name.strip(), command))


def check_variant(variant: Variant) -> Variant:
    """Variant names become folder names: letters, digits, '.', '_' and '-' only."""
    if not VARIANT_NAME.match(variant.name) or variant.name in MODES:
        raise UsageError(f"variant name {variant.name!r}: use letters, digits, '.', '_' or '-' "
                         f"(and not a mode name)")
    return variant


def new_run_id() -> str:
    """UTC timestamp plus a short random suffix, e.g. 20261129T141500Z-a1b2."""
    return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(2)}"


def run(corpus: Corpus, options: RunOptions, progress: Progress | None = None,
        announce: Callable[[Path, int], None] | None = None) -> LoadedRun:
    """Run (or resume) a run and return it as read back from disk.

    Bad input raises UsageError before anything is written. announce(run_dir, trials to run) is called once
    the run directory exists; progress(done, total, result) after every trial.
    """
    if options.jobs < 1 or (options.trials is not None and options.trials < 1):
        raise UsageError("--jobs and --trials must be at least 1")
    if options.agent_timeout is not None and options.agent_timeout <= 0:
        raise UsageError("--agent-timeout must be positive")
    repo = open_repository(corpus.repo_path(options.repo))
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
    else:
        config = new_config(options, stored_all)
        manifest = RunManifest(new_run_id(), _now(), dataset, runtime_info(config), config)
    missing = [c for c in config.cases if c not in stored_all]
    if missing:
        raise UsageError(f"case {missing[0]!r} is not in the corpus {corpus.root}")
    saved = source_trials(config) if config.mode == "regrade" else {}
    if options.resume is not None:
        plan = _plan(config, stored_all, saved, run_dir)
        _clean_staging(run_dir)
        resumed = {"at": _now(), "runtime": runtime_info(config), "trials": len(plan)}
        manifest = replace(manifest, resumed=(*manifest.resumed, resumed))
        write_manifest(run_dir, manifest)
    else:
        results_dir = options.results_dir or corpus.root / RESULTS_SUBDIR
        run_dir = _create_run(results_dir, manifest)
        plan = _plan(config, stored_all, saved, None)
    if announce:
        announce(run_dir, len(plan))
    hidden = _hidden_paths(corpus.root, repo, run_dir.parent, run_dir, config.patch_from)
    _execute(plan, repo, run_dir, config, options, hidden, corpus.config.test_globs, progress)
    return load_run(run_dir)


def new_config(options: RunOptions, stored: dict[str, StoredCase]) -> RunConfig:
    """The configuration of a new run, checked."""
    mode = options.mode or "agent"
    if mode not in MODES:
        raise UsageError(f"--mode {mode!r}: expected one of {', '.join(MODES)}")
    if options.case_ids and options.all_cases:
        raise UsageError("--case and --all exclude each other")
    if not options.case_ids and not options.all_cases:
        raise UsageError("choose the cases: --case ID (repeatable) or --all")
    unknown = [c for c in options.case_ids if c not in stored]
    if unknown:
        raise UsageError(f"--case {unknown[0]}: no such case in the corpus")
    cases = tuple(dict.fromkeys(options.case_ids)) or tuple(i for i, s in stored.items() if s.case.status == "active")
    if not cases:
        raise UsageError("the corpus has no active case to run")
    if mode != "regrade" and options.patch_from is not None:
        raise UsageError("--patch-from is only for --mode regrade")
    if mode != "agent" and options.variants:
        raise UsageError(f"--mode {mode} runs no agent; drop --agent-command/--agent")
    trials = options.trials or 1
    timeout = options.agent_timeout or DEFAULT_AGENT_TIMEOUT
    if mode == "agent":
        if not options.variants:
            raise UsageError("--mode agent needs --agent-command CMD or --agent NAME=CMD")
        names = [check_variant(v).name for v in options.variants]
        if len(set(names)) != len(names):
            raise UsageError(f"variant {next(n for n in names if names.count(n) > 1)!r} is given twice")
        return RunConfig(mode, trials, options.variants, cases, timeout, options.jobs)
    if mode in ("baseline", "oracle"):
        return RunConfig(mode, trials, (Variant(mode, None),), cases, timeout, options.jobs)
    if options.patch_from is None:
        raise UsageError("--mode regrade needs --patch-from RUN_DIR")
    source = read_manifest(options.patch_from).config
    if options.trials is not None and options.trials != source.trials:
        raise UsageError(f"--trials {options.trials}: regrade replays the {source.trials} trials of "
                         f"{options.patch_from}")
    outside = [c for c in options.case_ids if c not in source.cases]
    if outside:
        raise UsageError(f"--case {outside[0]}: not in the run {options.patch_from}")
    cases = tuple(c for c in (options.case_ids or source.cases) if c in stored)
    if not cases:
        raise UsageError(f"{options.patch_from}: none of its cases is in the corpus")
    return RunConfig(mode, source.trials, source.variants, tuple(dict.fromkeys(cases)), source.agent_timeout,
                     options.jobs, str(options.patch_from.resolve()))


def resume_config(recorded: RunConfig, options: RunOptions, stored: dict[str, StoredCase],
                  run_dir: Path) -> RunConfig:
    """The recorded configuration, after checking that every option given on the command line agrees."""
    given: dict[str, Any] = {}
    if options.mode is not None:
        given["mode"] = options.mode
    if options.trials is not None:
        given["trials"] = options.trials
    if options.variants:
        given["variants"] = tuple(options.variants)
    if options.case_ids:
        given["cases"] = tuple(dict.fromkeys(options.case_ids))
    elif options.all_cases:
        given["cases"] = tuple(i for i, s in stored.items() if s.case.status == "active")
    if options.agent_timeout is not None:
        given["agent_timeout"] = options.agent_timeout
    if options.patch_from is not None:
        given["patch_from"] = str(options.patch_from.resolve())
    for key, value in given.items():
        if getattr(recorded, key) != value:
            raise UsageError(f"--resume {run_dir}: the run was made with a different {key.replace('_', ' ')} "
                             f"({_show(getattr(recorded, key))} vs {_show(value)}); start a new run")
    return recorded


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(v.name if isinstance(v, Variant) else str(v) for v in value)
    return str(value)


def source_trials(config: RunConfig) -> dict[tuple[str, str, int], SavedAttempt]:
    """regrade: every recorded trial of the source run, by (variant, case, trial)."""
    assert config.patch_from is not None
    source_dir = Path(config.patch_from)
    manifest = read_manifest(source_dir)
    saved = {}
    for variant in config.variants:
        for case_id in config.cases:
            for t in range(1, config.trials + 1):
                result = read_trial(source_dir, variant.name, case_id, t)
                if result is not None:
                    folder = trial_path(source_dir, variant.name, case_id, t)
                    saved[(variant.name, case_id, t)] = SavedAttempt(manifest.run_id, folder, result)
    return saved


def _plan(config: RunConfig, stored: dict[str, StoredCase], saved: dict[tuple[str, str, int], SavedAttempt],
          resume_dir: Path | None) -> list[TrialSpec]:
    """The trials to run: all of them, or (resuming) those without a result or with an error."""
    plan = []
    for case_id in config.cases:
        for variant in config.variants:
            for t in range(1, config.trials + 1):
                if resume_dir is not None and _recorded(resume_dir, variant.name, case_id, t):
                    continue
                if config.mode == "regrade" and (variant.name, case_id, t) not in saved:
                    continue
                plan.append(TrialSpec(stored[case_id], variant.name, t, config.mode, variant.command,
                                      saved.get((variant.name, case_id, t))))
    return plan


def _recorded(run_dir: Path, variant: str, case_id: str, trial: int) -> bool:
    """True when the trial has a readable pass or fail result (errors and unreadable results run again)."""
    try:
        result = read_trial(run_dir, variant, case_id, trial)
    except UsageError:
        return False
    return result is not None and result.outcome != "error"


def _clean_staging(run_dir: Path) -> None:
    """Remove staging folders an interrupted run left behind (they were never visible as trials)."""
    for path in run_dir.glob("*/*/.*.staging"):
        shutil.rmtree(path, ignore_errors=True)


def _create_run(results_dir: Path, manifest: RunManifest) -> Path:
    """Publish a new run directory holding run.json, atomically."""
    results_dir.mkdir(parents=True, exist_ok=True)
    staged = staging_directory(results_dir, manifest.run_id)
    write_manifest(staged, manifest)
    target = results_dir / manifest.run_id
    os.rename(staged, target)
    return target


def _hidden_paths(*paths: Path | str | None) -> tuple[str, ...]:
    hidden = set()
    for path in paths:
        if path is None:
            continue
        hidden.add(str(path))
        hidden.add(str(Path(path).resolve()))
    return tuple(sorted(h for h in hidden if h not in ("", "/", ".")))


class _AssetCache:
    """Builds each case's template and fix configuration once, on first use, one builder per case."""

    def __init__(self, repo: Path, root: Path) -> None:
        self.repo, self.root = repo, root
        self.lock = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}
        self.built: dict[str, CaseAssets | HindcastError] = {}

    def get(self, stored: StoredCase) -> CaseAssets | HindcastError:
        case = stored.case
        with self.lock:
            lock = self.locks.setdefault(case.id, threading.Lock())
        with lock:
            if case.id not in self.built:
                try:
                    template = build_template(self.repo, case.base_commit, self.root / case.id)
                    tree, paths = template_tree(template)
                    self.built[case.id] = CaseAssets(template, tree, paths,
                                                     read_fix_config(self.repo, case.fix_commit))
                except HindcastError as exc:
                    self.built[case.id] = exc
            return self.built[case.id]


def _execute(plan: list[TrialSpec], repo: Path, run_dir: Path, config: RunConfig, options: RunOptions,
             hidden: tuple[str, ...], test_globs: tuple[str, ...], progress: Progress | None) -> None:
    """Run the planned trials, jobs at a time; on any interruption every running command is killed."""
    if not plan:
        return
    if options.scratch_root is not None:
        options.scratch_root.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="hindcast-run-", dir=options.scratch_root))
    janitor = ThreadPoolExecutor(max_workers=1)
    cancel = threading.Event()

    def discard(path: Path) -> None:
        janitor.submit(shutil.rmtree, path, True)

    ctx = TrialContext(repo=repo, run_dir=run_dir, agent_timeout=config.agent_timeout, hidden=hidden,
                       test_globs=test_globs, scratch_root=options.scratch_root, keep=options.keep,
                       transcript_limit=options.transcript_limit, cancel=cancel,
                       discard=discard)
    assets = _AssetCache(repo, root)
    pool = ThreadPoolExecutor(max_workers=options.jobs)

    def one(spec: TrialSpec) -> TrialResult | None:
        return run_trial(spec, ctx, assets.get(spec.stored))

    futures: list[Future[TrialResult | None]] = [pool.submit(one, spec) for spec in plan]
    done = 0
    try:
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                result = future.result()
                done += 1
                if progress and result is not None:
                    progress(done, len(plan), result)
    except BaseException:
        cancel.set()
        for future in futures:
            future.cancel()
        while not all(f.done() for f in futures):
            kill_running()
            wait(futures, timeout=0.2)
        raise
    finally:
        pool.shutdown(wait=True)
        janitor.shutdown(wait=True)
        shutil.rmtree(root, ignore_errors=True)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
