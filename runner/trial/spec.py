"""What a trial is: which trial, how its candidate is produced, and what every trial of a run shares."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from corpus import StoredCase
from corpus.model import TamperingPolicy
from runner.behaviour.prices import PriceTable
from runner.runs.result import TrialResult

DEFAULT_TRANSCRIPT_LIMIT = 10 * 1024 * 1024


@dataclass(frozen=True)
class SavedAttempt:
    """regrade: a trial of an earlier run whose candidate patch is graded again."""

    run_id: str
    """The source run."""
    directory: Path
    """The source trial folder."""
    result: TrialResult
    """The source trial's result."""


@dataclass(frozen=True)
class TrialSpec:
    """Which trial to run and how its candidate is produced."""

    stored: StoredCase
    """The case with its hidden files."""
    variant: str
    """Variant name (its folder)."""
    trial: int
    """1-based trial number."""
    mode: str
    """agent, baseline, oracle or regrade."""
    command: str | None = None
    """agent: the command template."""
    saved: SavedAttempt | None = None
    """regrade: the trial whose patch is applied."""
    transcript_format: str = "auto"
    """How the transcript is read into behaviour.json."""
    trajectory_file: str | None = None
    """A file the agent leaves in its workspace, copied as trajectory.json and read instead of the transcript."""
    hosts: tuple[str, ...] = ()
    """The model provider's hosts the agent may reach with --agent-network model (its preset's)."""
    preset: str | None = None
    """The preset the command is: its HOME files are written, its trajectory and session files kept."""
    model: str | None = None
    """The preset's model, None for the CLI's default."""
    wording: str | None = None
    """The id of the case's wording the agent is given (drawn from the run's seed); None: the case's prompt."""


@dataclass(frozen=True)
class TrialContext:
    """Run-wide values every trial shares, plain enough to travel to a Ray worker; where a trial runs (the
    repository, the sandbox, the environment cache, cancellation) is its node's."""

    agent_timeout: float
    """Seconds before the agent's process group is killed."""
    hidden: tuple[str, ...]
    """Paths no variable of the agent's environment may contain (corpus, source repository, results)."""
    test_globs: tuple[str, ...] = ()
    """The corpus's test-file globs (built-in rules when empty)."""
    tampering: TamperingPolicy = "fail"
    """corpus.yaml's `grader_tampering`: what tampering with the grader seen while it ran does to a trial."""
    keep: bool = False
    """Keep the scratch directory (workspace included) after the trial."""
    transcript_limit: int = DEFAULT_TRANSCRIPT_LIMIT
    """Bytes of agent output kept in transcript.log."""
    prices: PriceTable | None = None
    """The user's price table, for agents that report tokens but no cost (--prices)."""
