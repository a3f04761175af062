"""behaviour.json, a trial's behaviour record and metrics on disk: the record (one normalized shape whatever the
agent's transcript format), written beside result.json, whose ``behaviour`` field carries its sha256, so run.json's
digest of result.json vouches for it too."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from corpus.fsutil import atomic_write_bytes
from runner.runs.result import TrialResult

BEHAVIOUR_FILE = "behaviour.json"
FORMAT = 1
"""The format number of behaviour.json."""

Status = Literal["parsed", "partial", "unparsed", "none"]
CostSource = Literal["agent", "price_table", "none"]
ToolKind = Literal["shell", "edit", "read", "search", "web_fetch", "web_search", "subagent", "mcp", "other"]
CallStatus = Literal["ok", "error", "interrupted", "unknown"]


@dataclass(frozen=True)
class Tokens:
    """Tokens in disjoint buckets (None: the transcript does not say)."""

    input: int | None = None
    """Prompt tokens neither read from nor written to a cache."""
    cache_read: int | None = None
    """Prompt tokens read from a cache."""
    cache_write: int | None = None
    """Prompt tokens written to a cache."""
    output: int | None = None
    """Generated tokens, reasoning included."""
    reasoning: int | None = None
    """The reasoning part of output (informational: already in output)."""

    @property
    def total(self) -> int | None:
        """input + cache_read + cache_write + output, counting an unknown bucket as 0; None when all are unknown."""
        parts = (self.input, self.cache_read, self.cache_write, self.output)
        return None if all(p is None for p in parts) else sum(p or 0 for p in parts)


@dataclass(frozen=True)
class ToolCall:
    """One tool call, in the order the agent made it."""

    name: ToolKind
    """What kind of call it is, the same word for every agent."""
    raw_name: str
    """The agent's own name for the tool (Bash, command_execution, run_shell_command, ...)."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """Its arguments as the transcript gives them."""
    command: str | None = None
    """The shell command, a wrapper like ``bash -lc '...'`` removed; None for a call that is not a shell command."""
    exit_code: int | None = None
    """The command's exit code when the transcript gives it."""
    status: CallStatus = "unknown"
    """ok, error, interrupted (started, never finished) or unknown."""


@dataclass(frozen=True)
class Behaviour:
    """What the transcript says the agent did."""

    format: str
    """The transcript format read (codex, claude, gemini, gemini-json, opencode, generic, mini-swe-agent,
    swe-agent, atif) or none."""
    status: Status
    """parsed; partial (the stream ended before its last event, or had lines that are not JSON); unparsed (the
    transcript could not be read as its format: every metric that needs it is None); none (plain text)."""
    reason: str = ""
    """Why the record is partial or unparsed."""
    session_id: str | None = None
    """The agent's session or thread id."""
    llm_calls: int | None = None
    """Model calls, counted from the stream where it shows them."""
    agent_turns: int | None = None
    """The agent's own turn count as it reports it (not comparable across agents)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """Every tool call in order."""
    tokens: Tokens = field(default_factory=Tokens)
    """Tokens in disjoint buckets."""
    cost_usd: float | None = None
    """Cost in US dollars."""
    cost_source: CostSource = "none"
    """agent (reported by the agent), price_table (computed from the user's prices) or none."""
    final_message: str | None = None
    """The agent's last message."""
    timeline: tuple[Literal["text", "tool"], ...] = ()
    """The order of the agent's text messages and tool calls, for streaks of tool calls without text."""
    turn_seconds: tuple[float, ...] = ()
    """Wall time of each model call or turn, when the stream has timestamps."""
    skipped_lines: int = 0
    """Lines that were not JSON (a cut-off last line included)."""
    model: str | None = None
    """The model the transcript names (as the agent spells it), for pricing; None when it names none."""
    unreached: str | None = None
    """The agent's own error or retry event saying it could not reach its model, when its stream shows no model
    call answered (``runner.behaviour.trial.unreached_error``); None otherwise."""


def unparsed(format: str, reason: str) -> Behaviour:
    """A record for a transcript that could not be read: every metric that needs it is None."""
    return Behaviour(format, "unparsed", reason)


@dataclass(frozen=True)
class Metrics:
    """One trial's behaviour metrics."""

    values: dict[str, float | None]
    """Every metric of COUNTED and TIMED by name; None where the record cannot say."""
    calls_by_tool: dict[str, int]
    """Tool calls by the agent's own tool name."""


def behaviour_document(record: Behaviour, metrics: Metrics) -> dict[str, Any]:
    """behaviour.json as data: the record, and the metrics computed from it."""
    return {"format": FORMAT, "record": asdict(record), "metrics": metrics.values,
            "calls_by_tool": metrics.calls_by_tool}


def write_behaviour(folder: Path, result: TrialResult, record: Behaviour, metrics: Metrics) -> TrialResult:
    """Write behaviour.json and return the result with its digest and with the cost and tokens the record gives
    (unless the result already has them)."""
    data = (json.dumps(behaviour_document(record, metrics), indent=2, sort_keys=True) + "\n").encode("utf-8")
    atomic_write_bytes(folder / BEHAVIOUR_FILE, data)
    return replace(result, behaviour={"format": record.format, "status": record.status,
                                      "sha256": hashlib.sha256(data).hexdigest()},
                   cost_usd=result.cost_usd if result.cost_usd is not None else record.cost_usd,
                   tokens=result.tokens if result.tokens is not None else record.tokens.total)


def behaviour_problem(folder: Path, result: TrialResult) -> str | None:
    """Why a trial's behaviour.json cannot be trusted (missing, or not the file its result.json recorded)."""
    if not result.behaviour:
        return None
    path = folder / BEHAVIOUR_FILE
    try:
        data = path.read_bytes()
    except OSError:
        return f"{path}: recorded in result.json but missing"
    if hashlib.sha256(data).hexdigest() != result.behaviour.get("sha256"):
        return f"{path}: does not match the digest its result.json recorded"
    return None


def read_behaviour(folder: Path | str) -> dict[str, Any] | None:
    """A trial's behaviour.json as data; None when the trial has none."""
    try:
        with open(os.path.join(folder, BEHAVIOUR_FILE), "rb") as handle:
            data = json.loads(handle.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
