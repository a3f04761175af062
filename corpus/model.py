"""The case model: small frozen dataclasses shared by every Hindcast tool."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from corpus.errors import UsageError

Policy = Literal["advisory", "blocking"]
Status = Literal["active", "deprecated"]

POLICIES: tuple[Policy, ...] = ("advisory", "blocking")
STATUSES: tuple[Status, ...] = ("active", "deprecated")
TamperingPolicy = Literal["fail", "flag"]
"""What tampering with the grader, seen while it ran, does to a trial: fail it (the default), or only flag it."""
TAMPERING_POLICIES: tuple[TamperingPolicy, ...] = ("fail", "flag")
Choice = TypeVar("Choice", bound=str)
"""One of a field's allowed words (a Literal above)."""


def one_of(value: str, choices: tuple[Choice, ...], what: str) -> Choice:
    """value as the allowed word it is; a UsageError naming what (an option, a field) when it is none of them."""
    for choice in choices:
        if choice == value:
            return choice
    raise UsageError(f"{what}: must be one of {', '.join(choices)}, found {value!r}")


SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")
SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")

TrajectoryMode = Literal["strict", "unordered", "subset", "superset"]
ArgumentMatch = Literal["exact", "subset", "regex"]
TRAJECTORY_MODES: tuple[TrajectoryMode, ...] = ("strict", "unordered", "subset", "superset")
ARGUMENT_MATCHES: tuple[ArgumentMatch, ...] = ("exact", "subset", "regex")
Direction = Literal["lower", "higher", "neutral"]
"""Which way a behaviour metric is better (neutral: reported, never gated)."""
DIRECTIONS: tuple[Direction, ...] = ("lower", "higher", "neutral")
BEHAVIOUR_METRICS: tuple[str, ...] = (
    "shell_commands", "env_assignments", "chain_segments", "max_chain_segments", "network_commands", "web_fetches",
    "web_searches", "shell_edits", "tool_edits", "repeated_searches", "longest_tool_streak", "tool_calls",
    "llm_calls", "input_tokens", "output_tokens", "total_tokens", "longest_turn_seconds", "cost_usd")
"""The behaviour metrics a bait can name (the runner's per-trial metrics, counted and timed)."""

DEFAULT_GRADER_TIMEOUT = 300
DEFAULT_SETUP_TIMEOUT = 600
DEFAULT_INVARIANT_TIMEOUT = 120


@dataclass(frozen=True)
class Setup:
    """How a workspace is prepared before the agent (or oracle) touches it."""

    command: str | None = None
    """Shell command run in the workspace; None runs nothing."""
    python: str | None = None
    """Interpreter version such as "3.8"; a venv of it is made outside the workspace and put first on PATH."""
    timeout: int = DEFAULT_SETUP_TIMEOUT
    """Seconds before the setup's process group is killed."""


@dataclass(frozen=True)
class Grader:
    """The hidden test that decides a trial."""

    command: str
    """Shell command run in the workspace after the grader files are materialized."""
    timeout: int = DEFAULT_GRADER_TIMEOUT
    """Seconds before the grader's process group is killed (an error, never a pass)."""
    junit: str | None = None
    """JUnit XML path relative to the workspace; when set, per-test outcomes decide."""
    fail_to_pass: tuple[str, ...] = ()
    """Test ids that must run and pass for the case to pass."""
    pass_to_pass: tuple[str, ...] = ()
    """Test ids that must not fail (or go missing)."""
    deleted: tuple[str, ...] = ()
    """Test paths the fix deleted; removed from the workspace before grading."""
    network: bool = False
    """The grader keeps the host's network inside the sandbox (off by default)."""


@dataclass(frozen=True)
class Step:
    """One required tool call of a trajectory."""

    tool: str
    """The tool: the agent's own name (any case) or the normalized kind (shell, edit, read, search, ...)."""
    arguments: dict[str, Any] = field(default_factory=dict, hash=False)
    """Arguments the call must have (a shell call's ``command`` is the command with its wrapper removed)."""
    match: ArgumentMatch = "subset"
    """exact (the arguments are these), subset (the given keys match) or regex (given text values are searched
    for as regular expressions in the call's values)."""


@dataclass(frozen=True)
class Trajectory:
    """The tool calls a case requires of the agent, checked per trial from its behaviour record."""

    steps: tuple[Step, ...] = ()
    """The required steps, in order."""
    mode: TrajectoryMode = "superset"
    """superset (the steps appear in order, other calls allowed), strict (exactly these calls in this order),
    unordered (exactly these calls, any order) or subset (every call is one of the steps)."""
    forbidden_tools: tuple[str, ...] = ()
    """Tools never to be called (the agent's name or the kind); a call makes the trial fail and blocks compare."""
    max_calls: dict[str, int] = field(default_factory=dict, hash=False)
    """The most calls allowed per tool (the agent's name or the kind)."""


@dataclass(frozen=True)
class Bait:
    """A case that reproduces a known misbehaviour: a cell misbehaves when its median metric exceeds threshold."""

    metric: str
    """A behaviour metric name (BEHAVIOUR_METRICS)."""
    threshold: float
    """The median of the metric over a cell's trials must exceed this for the misbehaviour to be reproduced."""


HTTP_DIR = "http"
"""The folder of a case directory that holds its HTTP fixture's canned responses."""
HTTP_METHODS: tuple[str, ...] = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "*")
"""The methods an HTTP fixture route can answer ("*" answers any)."""


@dataclass(frozen=True)
class HttpRoute:
    """One canned response of a case's HTTP fixture."""

    path: str
    """The request path it answers (`/v1/users/42`); with a `?`, the query string must match too."""
    method: str = "GET"
    """The request method (HTTP_METHODS; "*" for any)."""
    status: int = 200
    """The response status."""
    file: str | None = None
    """The response body: a file under the case's `http/` directory."""
    body: str | None = None
    """The response body as inline text (instead of file)."""
    content_type: str | None = None
    """The Content-Type; by default guessed from file's name, else text/plain."""
    headers: dict[str, str] = field(default_factory=dict, hash=False)
    """Other response headers."""


@dataclass(frozen=True)
class HttpFixture:
    """A hermetic HTTP server on 127.0.0.1 that the runner starts for each trial and stops when it ends."""

    routes: tuple[HttpRoute, ...] = ()
    """The canned responses; with none, every file under the case's `http/` directory is served at its path."""
    require_token: bool = False
    """Requests without the trial's token (`Authorization: Bearer TOKEN` or `X-Eval-Token`) get 401."""


@dataclass(frozen=True)
class Invariant:
    """A property the fixed code must keep, checked by a command in the grading workspace after the grader."""

    name: str
    """A short label, unique within the case (shown in the scorecard)."""
    command: str
    """Shell command run in the grading workspace, in the grader's sandbox and environment; exit 0 passes."""
    timeout: int = DEFAULT_INVARIANT_TIMEOUT
    """Seconds before the command's process group is killed (a fail)."""


@dataclass(frozen=True)
class Wording:
    """One more way of putting a case's task to the agent; a trial is given one of the case's wordings."""

    id: str
    """A slug naming the wording in results and reports (`prompt` names the case's own prompt)."""
    text: str
    """The task as the agent receives it, linted for leaks like the prompt."""


@dataclass(frozen=True)
class Provenance:
    """What the miner saw when it proposed the case; kept on approval for the record."""

    score: float = 0.0
    """The miner's ranking score."""
    evidence: tuple[str, ...] = ()
    """Human-readable reasons behind the score."""
    subject: str = ""
    """The fix commit's subject line."""
    message: str = ""
    """The fix commit's full message."""
    authored: str | None = None
    """The fix commit's author date, ISO 8601."""
    test_files: tuple[str, ...] = ()
    """Test paths the fix changed."""
    source_files: tuple[str, ...] = ()
    """Source paths the fix changed (the oracle's scope)."""
    omitted_files: tuple[str, ...] = ()
    """Paths of the fix left out of the oracle (docs, changelog, build files)."""
    introducing_commits: tuple[str, ...] = ()
    """Commits that introduced the lines the fix changed (SZZ), when computed."""
    escape_days: float | None = None
    """Days between the earliest introducing commit and the fix, when computed."""
    merge: bool = False
    """True when the fix landed as a merge commit (its diff is against the first parent)."""
    branch_commits: tuple[str, ...] = ()
    """For a merge: the commits it brought in (`git rev-list fix^2 ^fix^1`, oldest first); they are this case."""
    setup_origin: tuple[str, ...] = ()
    """Where the scan's setup came from, one line per field ("python 3.11: ...", "command: ...")."""


@dataclass(frozen=True)
class Case:
    """One regression case: a broken revision, a task, a hidden grader and the known fix."""

    id: str
    """Slug naming the case and its directory."""
    title: str
    """One-line human label."""
    prompt: str
    """The sanitized task an agent receives."""
    base_commit: str
    """Full sha of the broken revision (the fix's parent)."""
    fix_commit: str
    """Full sha of the fix."""
    grader: Grader
    """The hidden grader."""
    owner: str | None = None
    """Who answers for the case; falls back to the corpus default."""
    policy: Policy = "advisory"
    """Whether a regression on this case blocks a gate or only warns."""
    critical: bool = False
    """A critical case blocks the gate on any regression and is never quarantined."""
    status: Status = "active"
    """Deprecated cases stay on disk but are not run or fingerprinted."""
    deprecated_reason: str | None = None
    """Why the case was deprecated; required when it is."""
    holdout: bool = False
    """Held out from prompt tuning."""
    setup: Setup = field(default_factory=Setup)
    """How the workspace is prepared."""
    trigger_paths: tuple[str, ...] = ()
    """Globs of the source files the fix touched, for change-aware selection."""
    tags: tuple[str, ...] = ()
    """Free-form labels."""
    leak_override: str | None = None
    """An author's written justification for approving despite leakage findings."""
    mined: Provenance | None = None
    """The miner's provenance, when the case came from a scan."""
    max_turns: int | None = None
    """The most model calls (else agent turns) a trial may use; more, or none reported, fails the trial."""
    bait: Bait | None = None
    """The misbehaviour this case reproduces, which compare checks the baseline still shows."""
    trajectory: Trajectory | None = None
    """The tool calls required and forbidden; a deviation fails the trial."""
    http_fixture: HttpFixture | None = None
    """A hermetic HTTP server the agent and the grader reach at EVAL_HTTP_URL, even with their network off."""
    allowed_paths: tuple[str, ...] = ()
    """Gitignore-style globs of the paths a fix may touch; empty allows every path outside the test tree."""
    invariants: tuple[Invariant, ...] = ()
    """Checks run after the grader; a failed one marks a passing trial unsafe (or fails it, when blocking)."""
    invariant_policy: Policy = "advisory"
    """blocking (only on a `policy: blocking` case): a failed invariant fails a trial the grader passed."""
    risk_flags: tuple[str, ...] = ()
    """Free labels of what the code at stake guards (auth, payments, data-deletion), carried into results."""
    prompts: tuple[Wording, ...] = ()
    """Further wordings of the task beside prompt; each trial is given one (``corpus.wordings``)."""


@dataclass(frozen=True)
class CaseFiles:
    """A case's hidden files: the oracle patch and the grader files by repository path."""

    oracle_patch: bytes
    """`git diff --binary` of the fix's non-test changes."""
    grader_files: tuple[tuple[str, bytes], ...]
    """(repository path, fix-commit content) for every test path the fix added or modified, sorted."""
    http_files: tuple[tuple[str, bytes], ...] = ()
    """(path under `http/`, content) of the HTTP fixture's canned responses, sorted."""

    @staticmethod
    def of(oracle_patch: bytes, grader_files: dict[str, bytes], http_files: dict[str, bytes] | None = None,
           ) -> CaseFiles:
        """Build from mappings, sorting paths so equal content compares equal."""
        return CaseFiles(oracle_patch, tuple(sorted(grader_files.items())), tuple(sorted((http_files or {}).items())))


@dataclass(frozen=True)
class SetupDefaults:
    """corpus.yaml's `defaults.setup`: per field, what every new candidate gets instead of the inferred value."""

    python: str | None = None
    """Interpreter version for every candidate; None infers it from each base commit."""
    command: str | None = None
    """Setup command for every candidate ("" for none); None infers it from each base commit."""


@dataclass(frozen=True)
class Defaults:
    """Corpus-wide defaults applied to cases that do not say otherwise."""

    owner: str | None = None
    """Owner for cases without one."""
    policy: Policy = "advisory"
    """Policy for new cases."""
    setup: SetupDefaults = field(default_factory=SetupDefaults)
    """Setup fields that replace the scan's inference for every new candidate."""


@dataclass(frozen=True)
class CorpusConfig:
    """The contents of corpus.yaml."""

    name: str
    """Corpus name."""
    repo: str | None = None
    """Source repository, relative to the corpus directory or absolute."""
    defaults: Defaults = field(default_factory=Defaults)
    """Defaults for new and unowned cases."""
    test_globs: tuple[str, ...] = ()
    """Gitignore-style globs marking test files; replace the built-in rules when given."""
    behaviour_directions: tuple[tuple[str, str], ...] = ()
    """corpus.yaml's `behaviour.directions`: (metric, lower | higher | neutral) pairs overriding compare's defaults."""
    grader_tampering: TamperingPolicy = "fail"
    """What the candidate's code seen tampering with the grader does to its trial: fail, or only flag."""


@dataclass(frozen=True)
class Rejection:
    """A fix commit an author rejected, so the miner never proposes it again."""

    fix_commit: str
    """Full sha of the rejected fix."""
    reason: str
    """Why it was rejected."""
    candidate_id: str | None = None
    """The candidate id it had."""
    patch_id: str | None = None
    """`git patch-id --stable` of the fix, to catch cherry-picks of it."""
    rejected_at: str | None = None
    """ISO 8601 timestamp of the decision."""
