"""result.json: one trial's outcome and the facts behind it, in its own folder of the run directory."""

from __future__ import annotations

import json
import re
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from corpus.errors import UsageError
from runner.runs.manifest import load_object

RESULT_FORMAT = 1
"""The format number of result.json."""
RESULT_FILE = "result.json"
ARTIFACTS = ("prompt.md", "transcript.log", "candidate.patch", "grader.log", "result.json")
REFERENCE_FILE = "oracle.patch"
"""The case's reference patch as the trial folder keeps it (reports show it beside the candidate's)."""
OUTCOMES = ("pass", "fail", "error")
Outcome = Literal["pass", "fail", "error"]
WantedOutcome = Literal["passed", "failed", "skipped", "missing"]


@dataclass(frozen=True)
class Durations:
    """Seconds spent in each phase of a trial (None for a phase that did not run)."""

    setup: float | None = None
    """Workspace, interpreter and setup command (or the environment cache's lookup)."""
    agent: float | None = None
    """The agent command (or applying a patch)."""
    grader: float | None = None
    """Restoration, grader files and the grader command."""
    total: float | None = None
    """The whole trial."""


@dataclass(frozen=True)
class Excerpt:
    """Why the grader did not pass, in a few lines (``runner.grading.excerpt``), for every place a trial is
    shown."""

    text: str
    """The failing source line (`>`) and the exception's `E` lines, at most 12 lines of at most 300 characters."""
    at: str = ""
    """Where it raised, `path:line` as the report or the log gives it; "" when neither says."""
    test: str = ""
    """The failing test's id; "" when the failure is not one test's (a collection error, a crash)."""
    source: Literal["junit", "grader.log"] = "junit"
    """Where it was read: the JUnit report's failure, or the grader's output."""

    @property
    def headline(self) -> str:
        """The one line a cell or a terminal line shows: the first `E` line (`E AssertionError: assert x`), else
        the first line."""
        lines = self.text.splitlines()
        first = next((line for line in lines if line.startswith("E ")), lines[0] if lines else "")
        return re.sub(r"^E\s+", "E ", first.strip())

    def line(self) -> str:
        """`E assert -1 == 5 (test_calc.py:9)`: the headline and where."""
        return f"{self.headline} ({self.at})" if self.at else self.headline


@dataclass(frozen=True)
class WantedTest:
    """One fail-to-pass id of the case and what it came to in the JUnit report."""

    id: str
    """The id as the case names it."""
    outcome: WantedOutcome
    """What the report says of the tests it matches (failed when any failed; missing when none ran)."""


@dataclass(frozen=True)
class GraderTests:
    """The JUnit report's account of a graded patch (``runner.grading.excerpt.grader_tests``)."""

    passed: int = 0
    """Tests the report lists as passed."""
    failed: int = 0
    """Tests that failed or errored."""
    skipped: int = 0
    """Tests skipped."""
    fail_to_pass: tuple[WantedTest, ...] = ()
    """Each fail-to-pass id of the case with its outcome."""
    pass_to_pass_failed: tuple[str, ...] = ()
    """The pass-to-pass ids that failed or went missing (the first 50)."""
    pass_to_pass_failed_more: int = 0
    """How many more there were."""
    other_failed: tuple[str, ...] = ()
    """Failed tests in neither list (the first 50): the verdict does not count them, the case does not expect
    them to pass (they fail at base too); why a passing grader can exit non-zero."""
    other_failed_more: int = 0
    """How many more there were."""

    @staticmethod
    def from_json(data: dict[str, Any]) -> GraderTests:
        """The record as result.json holds it (TypeError on a field it does not know)."""
        wanted = tuple(WantedTest(**w) for w in data.get("fail_to_pass") or ())
        lists = {key: tuple(data.get(key) or ()) for key in ("pass_to_pass_failed", "other_failed")}
        return GraderTests(**{**data, "fail_to_pass": wanted, **lists})


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
    """edited_tests, edited_test_config, added_test_config, shadowing_module, package_metadata, ignored_files,
    transcript_truncated, over_limit, test_aware_source, dynamic_source, grader_tampering, grader_disagreement,
    unsealed, dynamic_code, frame_access, always_equal, native_code,
    upstream_lookup."""
    test_edits: tuple[str, ...] = ()
    """Changed paths that are grader or test files."""
    restored: tuple[dict[str, str], ...] = ()
    """Paths put back in the grading workspace before the grader ran: {path, action, cause, kind}."""
    ignored_files: tuple[str, ...] = ()
    """New files the ignore rules kept out of the candidate patch (never graded); a directory as `dir/`."""
    removed_files: tuple[str, ...] = ()
    """What the agent left that no patch can carry, removed before the snapshot: nested repositories' git data,
    fifos, sockets, devices."""
    upstream_lookups: tuple[str, ...] = ()
    """`host:port` of every code host (git forge, package index) the agent tried to reach and was denied
    (network.json); flagged upstream_lookup."""
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
    behaviour: dict[str, Any] | None = None
    """behaviour.json's format, status and sha256 (``runner.runs.behaviour_record``); None when no agent ran, or in a
    result written before trials recorded behaviour."""
    trajectory: dict[str, Any] | None = None
    """The case's trajectory check (``runner.behaviour.trajectory``): {passed, deviations, more}; None when the
    case has no trajectory or no agent ran."""
    env_cache: str | None = None
    """hit, miss or off: whether the environment and workspace overlay came from the environment cache (None:
    the trial ended before its workspace was prepared, or a result written before the cache existed)."""
    resolution: str | None = None
    """The resolution origin line of its setup: as of the fix's date or today's, and why
    (``runner.envs.resolution``); None when setup installs nothing with uv, or in a result written before."""
    seal: dict[str, Any] | None = None
    """What the sealed grader saw of the candidate's code (``runner.grading.seal.SealReport.to_dict``) and the
    static scan's hints: {sealed, disagreement, events, static}; None when there was nothing to say."""
    wording: str | None = None
    """The id of the case's wording the agent was given (``corpus.wordings``; a regrade keeps its source's); None
    for a case with one wording, a trial that ran no agent, or a result written before cases had wordings."""
    scorecard: dict[str, Any] | None = None
    """The patch scorecard (``runner.scorecard.card.Scorecard.to_dict``); None when the grader did not run, or in
    a result written before trials were scored."""
    excerpt: Excerpt | None = None
    """Why the grader did not pass, in a few lines; None when it passed, did not run, or its output quotes
    nothing, or in a result written before results kept one (readers then take it from grader.log)."""
    grader_tests: GraderTests | None = None
    """The JUnit report's account: counts, each fail-to-pass id's outcome, the pass-to-pass ids that failed, the
    other failed tests; None without a report (or in a result written before results kept one)."""

    def to_json(self) -> str:
        """The result.json text."""
        return json.dumps({"format": RESULT_FORMAT, **asdict(self)}, indent=2, sort_keys=True) + "\n"

    @staticmethod
    def from_json(text: str, path: Path | str) -> TrialResult:
        """Parse result.json, raising UsageError naming the file when it is not a trial result."""
        data = load_object(text, path)
        try:
            data.pop("format", None)
            data["durations"] = Durations(**data.get("durations") or {})
            for key in _TUPLE_FIELDS:
                value = data.get(key)
                data[key] = tuple(value) if value else ()
            if data.get("excerpt") is not None:
                data["excerpt"] = Excerpt(**data["excerpt"])
            if data.get("grader_tests") is not None:
                data["grader_tests"] = GraderTests.from_json(data["grader_tests"])
        except TypeError as exc:
            raise UsageError(f"{path}: not a trial result ({exc})") from None
        result = _trial_result(data, path)
        if result.outcome not in OUTCOMES:
            raise UsageError(f"{path}: outcome {result.outcome!r} is not one of {', '.join(OUTCOMES)}")
        if not isinstance(result.trial, int) or isinstance(result.trial, bool):
            raise UsageError(f"{path}: trial must be a number")
        return result


_TUPLE_FIELDS = ("changed_files", "flags", "test_edits", "restored", "ignored_files", "removed_files",
                 "upstream_lookups")
_FIELDS = frozenset(f.name for f in fields(TrialResult))
_REQUIRED = tuple(f.name for f in fields(TrialResult) if f.default is MISSING and f.default_factory is MISSING)
_DEFAULTS = {f.name: f.default_factory() if callable(f.default_factory) else f.default
             for f in fields(TrialResult) if f.name not in _REQUIRED}  # every default is immutable: shared safely


def _trial_result(data: dict[str, Any], path: Path | str) -> TrialResult:
    """``TrialResult(**data)`` with the same checks, built without the frozen dataclass's ``__init__``: it sets
    its 37 fields one ``object.__setattr__`` at a time, a third of reading a result, and a compare reads 40,000."""
    unknown = data.keys() - _FIELDS
    if unknown:
        raise UsageError(f"{path}: not a trial result (no field {min(unknown)!r})")
    if len(data) != len(_FIELDS):
        missing = [name for name in _REQUIRED if name not in data]
        if missing:
            raise UsageError(f"{path}: not a trial result (no {', '.join(missing)})")
        data = {**_DEFAULTS, **data}
    result = object.__new__(TrialResult)
    result.__dict__.update(data)
    return result


def trial_path(run_dir: Path, variant: str, case_id: str, trial: int) -> Path:
    """The folder of one trial."""
    return run_dir.joinpath(variant, case_id, str(trial))  # one join, not three: a report makes thousands


def parse_trial(data: bytes, path: Path | str, variant: str, case_id: str, trial: int) -> TrialResult:
    """The result.json bytes of one trial folder, checked to name that folder; UsageError naming the file."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    result = TrialResult.from_json(text, path)
    if (result.variant, result.case_id, result.trial) != (variant, case_id, trial):
        raise UsageError(f"{path}: records {result.variant}/{result.case_id}/{result.trial}, not its own folder")
    return result
