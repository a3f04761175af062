"""Validate a case's behaviour fields (max_turns, bait, trajectory) with errors naming the file, field and line."""

from __future__ import annotations

import re
from typing import Any

from corpus.errors import CorpusError
from corpus.model import ARGUMENT_MATCHES, BEHAVIOUR_METRICS, TRAJECTORY_MODES, Bait, Step, Trajectory
from corpus.reader import Reader
from corpus.yamlio import line_of


def parse_max_turns(r: Reader) -> int | None:
    """max_turns: a whole number of at least 1, or absent."""
    return r.integer("max_turns", default=0) or None


def parse_bait(r: Reader) -> Bait | None:
    """bait: {metric, threshold}, the metric one of the behaviour metrics."""
    child = r.child("bait")
    if child is None:
        return None
    metric = child.text("metric", required=True)
    if metric not in BEHAVIOUR_METRICS:
        raise child.fail("metric", f"must be a behaviour metric ({', '.join(BEHAVIOUR_METRICS)}), found {metric!r}")
    threshold = child.number("threshold", default=None)
    if threshold is None:
        raise CorpusError(child.path, "missing required field", field=child.prefix + "threshold",
                          line=line_of(child.data))
    child.finish()
    return Bait(metric, threshold)


def parse_trajectory(r: Reader) -> Trajectory | None:
    """trajectory: {steps, mode, forbidden_tools, max_calls}."""
    child = r.child("trajectory")
    if child is None:
        return None
    mode = child.choice("mode", TRAJECTORY_MODES, default="superset")
    steps = _steps(child)
    forbidden = child.strings("forbidden_tools")
    for index, name in enumerate(forbidden):
        if not name.strip():
            raise child.fail_item("forbidden_tools", index, "must not be empty")
    ceilings = child.child("max_calls")
    max_calls: dict[str, int] = {}
    if ceilings is not None:
        for key in list(ceilings.data):
            max_calls[str(key)] = ceilings.integer(str(key), default=0, minimum=0)
    child.finish()
    if not steps and not forbidden and not max_calls:
        raise r.fail("trajectory", "needs steps, forbidden_tools or max_calls")
    return Trajectory(steps, mode, forbidden, max_calls)


def _steps(r: Reader) -> tuple[Step, ...]:
    items = r.data.get("steps")
    r.seen.add("steps")
    if items is None:
        return ()
    if not isinstance(items, list):
        raise r.fail("steps", "expected a list of steps ({tool, arguments, match})")
    out = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise r.fail_item("steps", index, "expected a step: a mapping with tool, arguments and match")
        step = Reader(r.path, item, f"{r.prefix}steps[{index}].")
        tool = step.text("tool", required=True).strip()
        match = step.choice("match", ARGUMENT_MATCHES, default="subset")
        arguments = step.data.get("arguments")
        step.seen.add("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise step.fail("arguments", "expected a mapping of argument names to values")
        arguments = {str(k): _plain(v) for k, v in arguments.items()}
        if match == "regex":
            for key, value in arguments.items():
                if isinstance(value, str):
                    try:
                        re.compile(value)
                    except re.error as exc:
                        raise step.fail("arguments", f"{key}: not a regular expression ({exc})") from None
        step.finish()
        out.append(Step(tool, arguments, match))
    return tuple(out)


def _plain(value: Any) -> Any:
    """A YAML node as plain Python data (mappings, lists and scalars)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
