"""Behaviour metrics of one trial, from its record, and their spread over a cell's trials.

A metric is None when the record cannot give it (an unparsed or plain-text transcript, or a format that does not
show it): never a guess, never 0 for "unknown".
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from runner.behaviour.shell import has_assignment, is_network, is_search, is_shell_edit, segments
from runner.runs.behaviour_record import Behaviour, Metrics, ToolCall

COUNTED = ("shell_commands", "env_assignments", "chain_segments", "max_chain_segments", "network_commands",
           "web_fetches", "web_searches", "shell_edits", "tool_edits", "repeated_searches", "longest_tool_streak",
           "tool_calls", "llm_calls", "input_tokens", "output_tokens", "total_tokens")
"""The metrics every record with tool calls has, in report order."""
TIMED = ("longest_turn_seconds", "cost_usd")
"""Metrics that need the stream's timestamps or cost."""


def _search_key(call: ToolCall) -> str | None:
    if call.name == "shell" and call.command is not None:
        parts = segments(call.command)
        return " ".join(parts[0]) if len(parts) == 1 and is_search(parts[0]) else None
    if call.name == "search":
        return call.raw_name + repr(sorted(call.arguments.items()))
    return None


def _streak(timeline: Sequence[str]) -> int:
    best = run = 0
    for kind in timeline:
        run = run + 1 if kind == "tool" else 0
        best = max(best, run)
    return best


def trial_metrics(record: Behaviour) -> Metrics:
    """The metrics of one trial's record."""
    if record.status in ("unparsed", "none"):
        return Metrics(dict.fromkeys((*COUNTED, *TIMED)), {})
    commands = [segments(c.command) for c in record.tool_calls if c.name == "shell" and c.command is not None]
    searches = [key for c in record.tool_calls if (key := _search_key(c)) is not None]
    tokens = record.tokens
    values: dict[str, float | None] = {
        "shell_commands": len(commands),
        "env_assignments": sum(1 for parts in commands if any(has_assignment(p) for p in parts)),
        "chain_segments": sum(len(parts) for parts in commands),
        "max_chain_segments": max((len(parts) for parts in commands), default=0),
        "network_commands": sum(1 for parts in commands if any(is_network(p) for p in parts)),
        "web_fetches": sum(1 for c in record.tool_calls if c.name == "web_fetch"),
        "web_searches": sum(1 for c in record.tool_calls if c.name == "web_search"),
        "shell_edits": sum(1 for parts in commands if any(is_shell_edit(p) for p in parts)),
        "tool_edits": sum(1 for c in record.tool_calls if c.name == "edit"),
        "repeated_searches": len(searches) - len(set(searches)),
        "longest_tool_streak": _streak(record.timeline) if record.timeline else None,
        "tool_calls": len(record.tool_calls),
        "llm_calls": record.llm_calls,
        "input_tokens": None if tokens.input is None and tokens.cache_read is None else
        (tokens.input or 0) + (tokens.cache_read or 0) + (tokens.cache_write or 0),
        "output_tokens": tokens.output,
        "total_tokens": tokens.total,
        "longest_turn_seconds": max(record.turn_seconds) if record.turn_seconds else None,
        "cost_usd": record.cost_usd,
    }
    return Metrics(values, dict(Counter(c.raw_name for c in record.tool_calls)))


@dataclass(frozen=True)
class Spread:
    """min, median and max of one metric over the trials that have it."""

    minimum: float
    """The smallest value."""
    median: float
    """The median."""
    maximum: float
    """The largest value."""
    trials: int
    """How many trials had the metric."""


def spread(values: Sequence[float | None]) -> Spread | None:
    """The spread of the values that are known; None when none is."""
    known = [v for v in values if v is not None]
    if not known:
        return None
    return Spread(min(known), statistics.median(known), max(known), len(known))
