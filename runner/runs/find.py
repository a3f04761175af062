"""Finding runs: the runs of a results directory, newest first, and what a run argument names (a directory,
``latest``, or a run's --name), and the corpus a run was made on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from corpus.errors import HindcastError, UsageError
from corpus.layout import RESULTS_DIR, default_corpus
from runner.runs.manifest import RUN_FILE, RunManifest, read_manifest

LATEST = "latest"
"""The word that names the newest run of a results directory."""


@dataclass(frozen=True)
class FoundRun:
    """A directory of a results directory holding run.json, with its manifest (None when unreadable)."""

    directory: Path
    """The run directory."""
    manifest: RunManifest | None
    """run.json; None when it cannot be read."""
    problem: str | None = None
    """Why run.json cannot be read."""


def runs_in(results_dir: Path) -> list[FoundRun]:
    """Every run directory of results_dir, newest first (by creation time, then id); unreadable ones last."""
    if not results_dir.is_dir():
        raise UsageError(f"{results_dir}: no such results directory")
    found: list[FoundRun] = []
    for child in results_dir.iterdir():
        if child.name.startswith(".") or not (child / RUN_FILE).is_file():
            continue
        try:
            found.append(FoundRun(child, read_manifest(child)))
        except HindcastError as exc:
            found.append(FoundRun(child, None, exc.message))
    dated = sorted(((f.manifest.created, f.manifest.run_id, index) for index, f in enumerate(found)
                    if f.manifest is not None), reverse=True)
    unreadable = sorted((f for f in found if f.manifest is None), key=lambda f: f.directory.name)
    return [found[index] for _, _, index in dated] + unreadable


def default_results(corpus_dir: Path | None) -> Path:
    """Where a bare ``latest`` or run name is looked up: the results directory of --corpus (default ./evals)."""
    return (corpus_dir or default_corpus()) / RESULTS_DIR


def resolve_run(argument: Path, results_dir: Path, *, frozen: bool = True) -> Path:
    """The run directory an argument names.

    A frozen run (one file, ``runner.runs.frozen``) is unpacked into a temporary run directory (frozen=False:
    refused, for the commands that add trials to a run). An existing directory is itself. Otherwise the last component is ``latest`` (the newest run that is not a
    triage run) or a run name
    given with --name (the newest run of that name), looked up in the directory before it, or in results_dir
    when the argument is the bare word. UsageError when nothing matches.
    """
    from runner.runs.frozen import is_frozen, thawed

    if is_frozen(argument):
        if not frozen:
            raise UsageError(f"{argument}: a frozen run is one file of results; it cannot be resumed, regraded or "
                             f"rerun (use its run directory)")
        return thawed(argument)
    if argument.is_dir():
        return argument
    word = argument.name
    where = argument.parent if argument.parent != Path(".") or str(argument).startswith(".") else results_dir
    if word != LATEST and (argument.exists() or not where.is_dir()):
        raise UsageError(f"{argument}: not a run directory")
    if not where.is_dir():
        raise UsageError(f"{argument}: no results directory {where} to find the {word} run in")
    runs = [f for f in runs_in(where) if f.manifest is not None]
    if word == LATEST:  # a triage run reruns another run's regressions: it is never what "the latest run" means
        runs = [f for f in runs if f.manifest is not None and f.manifest.triage is None]
    else:
        runs = [f for f in runs if f.manifest is not None and f.manifest.name == word]
        if not runs:
            raise UsageError(f"{argument}: not a run directory (nor the --name of a run in {where})")
    if not runs:
        raise UsageError(f"{argument}: {where} holds no run")
    return runs[0].directory


def recorded_origin(run_dir: Path, manifest: RunManifest | None = None) -> tuple[Path, Path]:
    """The corpus and repository a run recorded; UsageError when it recorded none or the corpus is gone."""
    origin = (manifest or read_manifest(run_dir)).origin
    if origin is None:
        raise UsageError(f"{run_dir}: the run does not record its corpus (made by an older Hindcast); pass --corpus")
    corpus = Path(origin.corpus)
    if not corpus.is_dir():
        raise UsageError(f"{run_dir}: the run was made on the corpus {corpus}, which no longer exists; "
                         f"pass --corpus")
    return corpus, Path(origin.repo)


@dataclass(frozen=True)
class RunListing:
    """One line of `runner runs`: a run's identity and what it measured, or why it cannot be read."""

    directory: Path
    """The run directory."""
    manifest: RunManifest | None
    """run.json; None when unreadable."""
    pass_rates: tuple[tuple[str, float | None], ...] = ()
    """Per variant, passes / scored trials over the cases that are not holdout (None: nothing scored)."""
    recorded: int = 0
    """Trials recorded."""
    planned: int = 0
    """Trials planned: trials x cases x variants."""
    errors: int = 0
    """Recorded trials that ended in error."""
    problem: str | None = None
    """Why the run cannot be read (run.json unreadable, or a trial that does not match it)."""


def list_runs(results_dir: Path) -> list[RunListing]:
    """Every run of results_dir, newest first, each read and audited like `runner report` reads it."""
    from runner.runs.holdout import tuning_view
    from runner.runs.load import load_run

    listed: list[RunListing] = []
    for found in runs_in(results_dir):
        manifest = found.manifest
        if manifest is None:
            listed.append(RunListing(found.directory, None, problem=found.problem))
            continue
        config = manifest.config
        planned = config.trials * len(config.cases) * len(config.variants)
        try:
            loaded = load_run(found.directory)
        except (HindcastError, OSError) as exc:
            problem = exc.message if isinstance(exc, HindcastError) else f"cannot read: {exc.strerror}"
            listed.append(RunListing(found.directory, manifest, planned=planned, problem=problem))
            continue
        rates = tuple((v.variant, v.passes / v.scored if v.scored else None) for v in tuning_view(loaded).variants)
        listed.append(RunListing(found.directory, manifest, rates, len(loaded.trials), planned,
                                 sum(1 for t in loaded.trials if t.outcome == "error")))
    return listed
