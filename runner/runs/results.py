"""Runs on disk: the run manifest, one result per trial, and aggregates recomputed from the trials on every read."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from corpus.errors import UsageError
from corpus.fsutil import atomic_write_text
from runner.gate.stats import pass_at_k, pass_hat_k, wilson_interval

FORMAT = 1
RUN_FILE = "run.json"
RESULT_FILE = "result.json"
ARTIFACTS = ("prompt.md", "transcript.log", "candidate.patch", "grader.log", "result.json")
OUTCOMES = ("pass", "fail", "error")
MODES = ("agent", "baseline", "oracle", "regrade")
VARIANT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
Outcome = Literal["pass", "fail", "error"]


@dataclass(frozen=True)
class Variant:
    """One column of the matrix: a name and the agent command template it runs (None without an agent)."""

    name: str
    """Directory name of the variant's trials."""
    command: str | None
    """Agent command template with {workspace}, {prompt_file}, {case_id}, {trial}."""


@dataclass(frozen=True)
class RunConfig:
    """What a run measures; a resumed run must match it."""

    mode: str
    """agent, baseline, oracle or regrade."""
    trials: int
    """Trials per variant and case."""
    variants: tuple[Variant, ...]
    """The variants, in order."""
    cases: tuple[str, ...]
    """The case ids, in order."""
    agent_timeout: float
    """Seconds before an agent's process group is killed."""
    jobs: int = 1
    """Trials run at once when the run was created (not part of what a resume must match)."""
    patch_from: str | None = None
    """regrade: the run directory whose candidate patches are graded again."""

    def comparable(self) -> dict[str, Any]:
        """The fields a resumed run must reproduce (everything but jobs)."""
        data = asdict(self)
        data.pop("jobs")
        return data


@dataclass(frozen=True)
class RunManifest:
    """run.json: identity, fingerprints and configuration of a run."""

    run_id: str
    """UTC timestamp plus a short random suffix."""
    created: str
    """ISO 8601 creation time."""
    dataset_fingerprint: str
    """Fingerprint of the corpus's active cases when the run was created."""
    runtime: dict[str, Any]
    """Hindcast version and commit, Python, OS, git, agent commands, mode, trials, and their fingerprint."""
    config: RunConfig
    """What is measured."""
    resumed: tuple[dict[str, Any], ...] = ()
    """One entry per resume: when, and the runtime it resumed with."""


@dataclass(frozen=True)
class Durations:
    """Seconds spent in each phase of a trial (None for a phase that did not run)."""

    setup: float | None = None
    """Workspace, interpreter and setup command."""
    agent: float | None = None
    """The agent command (or applying a patch)."""
    grader: float | None = None
    """Restoration, grader files and the grader command."""
    total: float | None = None
    """The whole trial."""


@dataclass(frozen=True)
class TrialResult:
    """result.json: one trial's outcome and the facts behind it."""

    case_id: str
    """The case."""
    variant: str
    """The variant."""
    trial: int
    """1-based trial number."""
    outcome: Outcome
    """pass, fail, or error (excluded from the success denominator)."""
    reason: str
    """One line saying why."""
    case_fingerprint: str
    """Fingerprint of the case the trial ran on."""
    started: str
    """ISO 8601 start time."""
    durations: Durations = field(default_factory=Durations)
    """Time per phase."""
    mode: str = "agent"
    """How the candidate was produced."""
    agent_exit_code: int | None = None
    """The agent command's exit code (None: did not run, could not start, or timed out)."""
    agent_timed_out: bool = False
    """True when the agent was killed at its timeout (the trial is then a fail)."""
    grader_outcome: Outcome | None = None
    """What the grader alone decided (None when it did not run)."""
    grader_reason: str | None = None
    """The grader's one-line reason."""
    grader_exit_code: int | None = None
    """The grader command's exit code."""
    changed_files: tuple[str, ...] = ()
    """Paths the candidate patch touches."""
    flags: tuple[str, ...] = ()
    """edited_tests, edited_test_config, added_test_config, transcript_truncated."""
    test_edits: tuple[str, ...] = ()
    """Changed paths that are grader or test files."""
    restored: tuple[dict[str, str], ...] = ()
    """Test configuration put back before grading: {path, action, cause}."""
    transcript_bytes: int = 0
    """Bytes the agent wrote (before the cap)."""
    cost_usd: float | None = None
    """Reported cost, when known."""
    tokens: int | None = None
    """Reported tokens, when known."""
    kept: str | None = None
    """Scratch directory kept with --keep."""
    regraded_from: dict[str, Any] | None = None
    """regrade: the source run id and the source trial's outcome and reason."""

    def to_json(self) -> str:
        """The result.json text."""
        return json.dumps({"format": FORMAT, **asdict(self)}, indent=2, sort_keys=True) + "\n"

    @staticmethod
    def from_json(text: str, path: Path) -> TrialResult:
        """Parse result.json, raising UsageError naming the file when it is not a trial result."""
        data = _load_object(text, path)
        try:
            data.pop("format", None)
            data["durations"] = Durations(**data.get("durations") or {})
            for key in ("changed_files", "flags", "test_edits", "restored"):
                data[key] = tuple(data.get(key) or ())
            result = TrialResult(**data)
        except TypeError as exc:
            raise UsageError(f"{path}: not a trial result ({exc})") from None
        if result.outcome not in OUTCOMES:
            raise UsageError(f"{path}: outcome {result.outcome!r} is not one of {', '.join(OUTCOMES)}")
        if not isinstance(result.trial, int) or isinstance(result.trial, bool):
            raise UsageError(f"{path}: trial must be a number")
        return result


def _load_object(text: str, path: Path) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a JSON object")
    return data


def manifest_to_json(manifest: RunManifest) -> str:
    """The run.json text."""
    return json.dumps({"format": FORMAT, **asdict(manifest)}, indent=2, sort_keys=True) + "\n"


def read_manifest(run_dir: Path) -> RunManifest:
    """Read run.json of a run directory; UsageError when it is not a run."""
    path = run_dir / RUN_FILE
    if not path.is_file():
        raise UsageError(f"{run_dir}: not a run directory (no {RUN_FILE})")
    data = _load_object(path.read_text(encoding="utf-8"), path)
    if data.get("format") != FORMAT:
        raise UsageError(f"{path}: unsupported format {data.get('format')!r} (expected {FORMAT})")
    try:
        raw = dict(data["config"])
        raw["variants"] = tuple(Variant(**v) for v in raw["variants"])
        raw["cases"] = tuple(raw["cases"])
        config = RunConfig(**raw)
        return RunManifest(run_id=data["run_id"], created=data["created"],
                           dataset_fingerprint=data["dataset_fingerprint"], runtime=dict(data["runtime"]),
                           config=config, resumed=tuple(data.get("resumed") or ()))
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{path}: not a run manifest ({exc.__class__.__name__}: {exc})") from None


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    """Write run.json atomically."""
    atomic_write_text(run_dir / RUN_FILE, manifest_to_json(manifest))


def trial_path(run_dir: Path, variant: str, case_id: str, trial: int) -> Path:
    """The folder of one trial."""
    return run_dir / variant / case_id / str(trial)


def read_trial(run_dir: Path, variant: str, case_id: str, trial: int) -> TrialResult | None:
    """A trial's result, or None when it has not been recorded."""
    path = trial_path(run_dir, variant, case_id, trial) / RESULT_FILE
    if not path.is_file():
        return None
    result = TrialResult.from_json(path.read_text(encoding="utf-8"), path)
    if (result.variant, result.case_id, result.trial) != (variant, case_id, trial):
        raise UsageError(f"{path}: records {result.variant}/{result.case_id}/{result.trial}, not its own folder")
    return result


@dataclass(frozen=True)
class Aggregate:
    """Counts and estimators over a set of trials (one variant::case cell, or one variant over its cases)."""

    key: str
    """variant::case, or the variant name."""
    variant: str
    """The variant."""
    case_id: str | None
    """The case (None for a variant total)."""
    trials: int
    """Recorded trials."""
    passes: int
    """Trials that passed."""
    fails: int
    """Trials that failed."""
    errors: int
    """Trials that ended in error (not in the denominator)."""
    missing: int
    """Planned trials without a result yet."""
    success_rate: float | None
    """passes / (passes + fails); None without a scored trial."""
    wilson: tuple[float, float] | None
    """Wilson 95% interval of the success rate."""
    pass_at_k: dict[int, float]
    """Unbiased pass@k for k = 1 .. the smallest number of scored trials (variant: mean over its cases)."""
    pass_hat_k: dict[int, float]
    """Unbiased pass^k over the same k."""
    cases_scored: int = 0
    """Cases with at least one scored trial (1 or 0 for a cell)."""


def cell_aggregate(variant: str, case_id: str, trials: list[TrialResult], planned: int) -> Aggregate:
    """The aggregate of one variant::case cell."""
    passes = sum(1 for t in trials if t.outcome == "pass")
    fails = sum(1 for t in trials if t.outcome == "fail")
    errors = len(trials) - passes - fails
    n = passes + fails
    at_k = {k: pass_at_k(n, passes, k) for k in range(1, n + 1)}
    hat_k = {k: pass_hat_k(n, passes, k) for k in range(1, n + 1)}
    return Aggregate(f"{variant}::{case_id}", variant, case_id, len(trials), passes, fails, errors,
                     max(0, planned - len(trials)), passes / n if n else None,
                     wilson_interval(passes, n) if n else None, at_k, hat_k, 1 if n else 0)


def variant_aggregate(variant: str, cells: list[Aggregate]) -> Aggregate:
    """A variant over its cases: pooled counts and rate; pass@k and pass^k averaged over the scored cases."""
    scored = [c for c in cells if c.passes + c.fails]
    passes, fails = sum(c.passes for c in cells), sum(c.fails for c in cells)
    n = passes + fails
    k_max = min((c.passes + c.fails for c in scored), default=0)
    at_k = {k: sum(c.pass_at_k[k] for c in scored) / len(scored) for k in range(1, k_max + 1)}
    hat_k = {k: sum(c.pass_hat_k[k] for c in scored) / len(scored) for k in range(1, k_max + 1)}
    return Aggregate(variant, variant, None, sum(c.trials for c in cells), passes, fails,
                     sum(c.errors for c in cells), sum(c.missing for c in cells), passes / n if n else None,
                     wilson_interval(passes, n) if n else None, at_k, hat_k, len(scored))


@dataclass(frozen=True)
class LoadedRun:
    """A run read from disk with its aggregates recomputed."""

    directory: Path
    """The run directory."""
    manifest: RunManifest
    """run.json."""
    trials: tuple[TrialResult, ...]
    """Every recorded trial, in variant, case, trial order."""
    cells: tuple[Aggregate, ...]
    """One per variant::case, in variant then case order."""
    variants: tuple[Aggregate, ...]
    """One per variant."""

    @property
    def missing(self) -> int:
        """Planned trials not recorded."""
        return sum(v.missing for v in self.variants)


def load_run(run_dir: Path | str) -> LoadedRun:
    """Read run.json and every planned trial's result.json; aggregates are recomputed, never read."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    config = manifest.config
    trials: list[TrialResult] = []
    cells: list[Aggregate] = []
    totals: list[Aggregate] = []
    for variant in config.variants:
        variant_cells = []
        for case_id in config.cases:
            found = [r for t in range(1, config.trials + 1)
                     if (r := read_trial(run_dir, variant.name, case_id, t)) is not None]
            trials.extend(found)
            variant_cells.append(cell_aggregate(variant.name, case_id, found, config.trials))
        cells.extend(variant_cells)
        totals.append(variant_aggregate(variant.name, variant_cells))
    return LoadedRun(run_dir, manifest, tuple(trials), tuple(cells), tuple(totals))
