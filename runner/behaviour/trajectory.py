"""A case's trajectory checked against one trial's behaviour record: pure functions, one deviation per problem.

A step, a forbidden tool or a ceiling names a tool by the agent's own name (compared without case) or by the
normalized kind (shell, edit, read, search, web_fetch, web_search, subagent, mcp, other). A shell call's
``command`` argument is the command with its ``bash -lc`` wrapper removed, whatever the agent's own argument says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from corpus.model import Step, Trajectory
from runner.runs.behaviour_record import Behaviour, ToolCall

DeviationKind = Literal["missing_step", "unexpected_call", "extra_call", "forbidden_tool", "too_many_calls",
                        "unreadable", "incomplete"]
LISTED = 50
"""Deviations kept in result.json; the rest are counted."""


@dataclass(frozen=True)
class Deviation:
    """One way a trial's tool calls differ from its case's trajectory."""

    kind: DeviationKind
    """missing_step, unexpected_call (strict: another step was due there), extra_call (a call no step allows),
    forbidden_tool, too_many_calls, unreadable (no record to check) or incomplete (the transcript was cut)."""
    message: str
    """One line for a person."""
    step: int | None = None
    """The 1-based step it concerns."""
    call: int | None = None
    """The 1-based tool call it concerns."""


@dataclass(frozen=True)
class TrajectoryCheck:
    """A trial's trajectory verdict."""

    passed: bool
    """No deviation."""
    deviations: tuple[Deviation, ...]
    """Every deviation, in the order found."""

    def to_json(self) -> dict[str, Any]:
        """result.json's ``trajectory`` field: {passed, deviations: [{kind, message, step, call}], more}."""
        shown = [{"kind": d.kind, "message": d.message, "step": d.step, "call": d.call}
                 for d in self.deviations[:LISTED]]
        return {"passed": self.passed, "deviations": shown, "more": max(0, len(self.deviations) - LISTED)}


def names_tool(name: str, call: ToolCall) -> bool:
    """Whether a tool name of a case (the agent's own name or a kind) names this call."""
    return name.lower() == call.raw_name.lower() or name == call.name


def call_arguments(call: ToolCall) -> dict[str, Any]:
    """A call's arguments as steps match them: a shell call's ``command`` is its unwrapped command."""
    if call.command is None:
        return dict(call.arguments)
    return {**call.arguments, "command": call.command}


def _value_matches(wanted: Any, got: Any, regex: bool) -> bool:
    if regex and isinstance(wanted, str):
        return isinstance(got, str) and re.search(wanted, got) is not None
    return bool(wanted == got)


def step_matches(step: Step, call: ToolCall) -> bool:
    """Whether a call is this step: the tool names it and the arguments match by the step's match mode."""
    if not names_tool(step.tool, call):
        return False
    got = call_arguments(call)
    if step.match == "exact":
        return got == step.arguments
    missing = object()
    return all(_value_matches(v, got.get(k, missing), step.match == "regex") for k, v in step.arguments.items())


def describe(call: ToolCall) -> str:
    """``Bash(grep -n add calc.py)``: a call in a few words."""
    detail = call.command if call.command is not None else ", ".join(f"{k}={v!r}" for k, v in
                                                                      sorted(call.arguments.items()))
    detail = detail if len(detail) <= 60 else detail[:57] + "..."
    return f"{call.raw_name}({detail})"


def _step_name(steps: Sequence[Step], index: int) -> str:
    step = steps[index]
    shown = ", ".join(f"{k}={v!r}" for k, v in sorted(step.arguments.items()))
    return f"step {index + 1} ({step.tool}{f' {step.match} {shown}' if shown else ''})"


def _superset(steps: Sequence[Step], calls: Sequence[ToolCall]) -> list[Deviation]:
    position = 0
    for index, step in enumerate(steps):
        found = next((i for i in range(position, len(calls)) if step_matches(step, calls[i])), None)
        if found is None:
            after = f" after call {position}" if position else ""
            return [Deviation("missing_step", f"{_step_name(steps, i)} was never made{after}", i + 1)
                    for i in range(index, len(steps))]
        position = found + 1
    return []


def _strict(steps: Sequence[Step], calls: Sequence[ToolCall]) -> list[Deviation]:
    out = []
    for index in range(max(len(steps), len(calls))):
        if index >= len(calls):
            out.append(Deviation("missing_step", f"{_step_name(steps, index)} was never made", index + 1))
        elif index >= len(steps):
            out.append(Deviation("extra_call", f"call {index + 1} {describe(calls[index])} comes after the last "
                                               f"step", None, index + 1))
        elif not step_matches(steps[index], calls[index]):
            out.append(Deviation("unexpected_call", f"call {index + 1} {describe(calls[index])} is not "
                                                    f"{_step_name(steps, index)}", index + 1, index + 1))
    return out


def _pairing(steps: Sequence[Step], calls: Sequence[ToolCall]) -> dict[int, int]:
    """A largest matching of calls to steps (call index by step index), by augmenting paths."""
    options = [[c for c, call in enumerate(calls) if step_matches(step, call)] for step in steps]
    owner: dict[int, int] = {}

    def place(step: int, seen: set[int]) -> bool:
        for call in options[step]:
            if call in seen:
                continue
            seen.add(call)
            if call not in owner or place(owner[call], seen):
                owner[call] = step
                return True
        return False

    for step in range(len(steps)):
        place(step, set())
    return {step: call for call, step in owner.items()}


def _unordered(steps: Sequence[Step], calls: Sequence[ToolCall]) -> list[Deviation]:
    paired = _pairing(steps, calls)
    used = set(paired.values())
    out = [Deviation("missing_step", f"{_step_name(steps, s)} was never made", s + 1)
           for s in range(len(steps)) if s not in paired]
    out += [Deviation("extra_call", f"call {c + 1} {describe(call)} is none of the steps", None, c + 1)
            for c, call in enumerate(calls) if c not in used]
    return out


def _subset(steps: Sequence[Step], calls: Sequence[ToolCall]) -> list[Deviation]:
    return [Deviation("extra_call", f"call {c + 1} {describe(call)} is none of the steps", None, c + 1)
            for c, call in enumerate(calls) if not any(step_matches(step, call) for step in steps)]


MODES = {"superset": _superset, "strict": _strict, "unordered": _unordered, "subset": _subset}


def check_trajectory(trajectory: Trajectory, record: Behaviour, *, complete: bool = True) -> TrajectoryCheck:
    """Check a record against a trajectory. An unparsed or plain-text record fails closed (``unreadable``); so
    does an incomplete one (``complete`` False: the transcript was cut at its size limit) that would pass."""
    if record.status in ("unparsed", "none"):
        why = record.reason or "no machine-readable transcript"
        return TrajectoryCheck(False, (Deviation("unreadable", f"the transcript could not be read: {why}"),))
    calls = record.tool_calls
    found: list[Deviation] = []
    for c, call in enumerate(calls):
        hit = next((name for name in trajectory.forbidden_tools if names_tool(name, call)), None)
        if hit is not None:
            found.append(Deviation("forbidden_tool", f"call {c + 1} {describe(call)} uses forbidden tool {hit}",
                                   None, c + 1))
    for name, ceiling in trajectory.max_calls.items():
        made = sum(1 for call in calls if names_tool(name, call))
        if made > ceiling:
            found.append(Deviation("too_many_calls", f"{made} calls of {name}, at most {ceiling}"))
    if trajectory.steps:  # without steps only the forbidden tools and the ceilings are checked
        found += MODES[trajectory.mode](trajectory.steps, calls)
    if not found and not complete:
        found.append(Deviation("incomplete", "the transcript was cut at its size limit: later calls are unknown"))
    return TrajectoryCheck(not found, tuple(found))


def turns_used(record: Behaviour) -> tuple[int | None, str]:
    """The turns a budget counts and what they are: model calls when the record counts them, else the agent's
    own turn count; (None, ...) when the transcript reports neither."""
    if record.llm_calls is not None:
        return record.llm_calls, "model calls"
    if record.agent_turns is not None:
        return record.agent_turns, "agent turns"
    return None, "turns"


def budget_problem(max_turns: int, record: Behaviour, *, complete: bool = True) -> str | None:
    """``over_budget: ...`` or ``turns_unreported: ...`` for a trial of a case with max_turns; None within it."""
    used, what = turns_used(record)
    if used is None:
        why = record.reason or f"a {record.format} transcript does not count turns"
        return f"turns_unreported: the transcript reports no turn count ({why}); max_turns {max_turns}"
    if used > max_turns:
        return f"over_budget: {used} {what}, max_turns {max_turns}"
    if not complete:
        return (f"turns_unreported: the transcript was cut at its size limit, so {used} {what} is only a lower "
                f"bound; max_turns {max_turns}")
    return None
