"""The agent command of a trial: its placeholders, its environment without the hidden paths, and how its end is read."""

from __future__ import annotations

import os
import re
import shlex

from runner.grading.grader import NOT_RUNNABLE
from runner.process import ProcessResult

PLACEHOLDERS = ("workspace", "prompt_file", "case_id", "trial")
MARKER_VAR = "HINDCAST_TRIAL_MARK"


def render_command(template: str, values: dict[str, str]) -> str:
    """Replace {workspace}, {prompt_file}, {case_id} and {trial} by shell-quoted values; other braces stay."""
    out = template
    for name in PLACEHOLDERS:
        out = out.replace("{" + name + "}", shlex.quote(values[name]))
    return out


def mentions(value: str, path: str) -> bool:
    """True when value contains path as a whole path (or a prefix of a deeper one), not as part of a longer name."""
    return bool(path) and re.search(re.escape(path) + r"(?![^/\s:;,'\"=])", value) is not None


def agent_environment(env: dict[str, str], hidden: tuple[str, ...], marker: str) -> dict[str, str]:
    """The trial environment with no mention of a hidden path, plus the trial's marker.

    In a list of paths (PATH and the like) only the entries that mention one are removed; any other variable
    that mentions one is dropped.
    """
    clean = {}
    for key, value in env.items():
        if not any(mentions(value, h) for h in hidden):
            clean[key] = value
            continue
        entries = value.split(os.pathsep)
        kept = [e for e in entries if not any(mentions(e, h) for h in hidden)]
        if len(entries) > 1 and kept:
            clean[key] = os.pathsep.join(kept)
    name, _, value = marker.partition("=")
    return {**clean, name: value}


def agent_error(ran: ProcessResult) -> str | None:
    """The error reason for an agent that could not start or exited non-zero; None otherwise."""
    last = (ran.tail.strip().splitlines() or [""])[-1][:200]
    detail = f": {last}" if last else ""
    if ran.start_error:
        return f"agent command could not start: {ran.start_error}"
    if ran.timed_out:
        return None
    if ran.exit_code in NOT_RUNNABLE:
        return f"agent command could not start (exit {ran.exit_code}){detail}"
    if ran.exit_code != 0:
        return f"agent exited {ran.exit_code}{detail}"
    return None
