"""A case's invariants: commands run in the grading workspace after the grader, in its sandbox and environment,
each passing or failing with its output kept; and how a failed one bears on the trial's outcome."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from corpus.model import Case, Invariant
from runner.grading.grader import GradeResult
from runner.process import run_command
from runner.sandbox.bwrap import SandboxSpec

INVARIANTS_LOG = "invariants.log"
"""The trial file that holds every invariant's output, one section each."""
INVARIANT_LOG_LIMIT = 1024 * 1024
"""Bytes of one invariant's output kept in invariants.log."""
OUTPUT_TAIL = 2000
"""Characters of an invariant's output kept in result.json."""

Status = Literal["pass", "fail", "error"]


@dataclass(frozen=True)
class InvariantResult:
    """How one invariant ended."""

    name: str
    """The invariant's name."""
    command: str
    """The command that ran."""
    status: Status
    """pass (exit 0), fail (another exit, killed at its timeout), or error (it could not be started)."""
    exit_code: int | None
    """The command's exit code (None: not started, or killed at the timeout)."""
    timed_out: bool
    """True when the timeout killed it."""
    duration: float
    """Seconds it ran."""
    output: str
    """The end of its output (the whole, capped, is in invariants.log)."""


def run_invariants(invariants: Sequence[Invariant], workspace: Path, env: Mapping[str, str],
                   sandbox: SandboxSpec | None, log_path: Path, scratch: Path) -> tuple[InvariantResult, ...]:
    """Run each invariant in order in workspace; their outputs go to log_path, one section each (each command
    writes to a file in the scratch directory first)."""
    results = []
    scratch = scratch / "invariant-output.log"
    with open(log_path, "w", encoding="utf-8") as log:
        for invariant in invariants:
            ran = run_command(invariant.command, workspace, dict(env), invariant.timeout, scratch, sandbox=sandbox,
                              max_output_bytes=INVARIANT_LOG_LIMIT)
            if ran.start_error:
                status: Status = "error"
            else:
                status = "pass" if ran.exit_code == 0 and not ran.timed_out else "fail"
            output = scratch.read_text(encoding="utf-8", errors="replace") if scratch.exists() else ""
            ending = ("timed out" if ran.timed_out else f"could not start: {ran.start_error}" if ran.start_error
                      else f"exit {ran.exit_code}")
            log.write(f"== invariant {invariant.name}: {status} ({ending}) ==\n$ {invariant.command}\n{output}")
            if output and not output.endswith("\n"):
                log.write("\n")
            results.append(InvariantResult(invariant.name, invariant.command, status, ran.exit_code, ran.timed_out,
                                           round(ran.duration, 3), output[-OUTPUT_TAIL:]))
    scratch.unlink(missing_ok=True)
    return tuple(results)


def outcome_with_invariants(case: Case, graded: GradeResult, results: Sequence[InvariantResult]) -> GradeResult:
    """The trial's outcome once the invariants ran: the grader's, except that a case with blocking invariants fails
    a pass whose invariant failed (an error when one could not be started). A failed invariant never turns a
    fail into a pass."""
    if case.invariant_policy != "blocking" or graded.outcome != "pass":
        return graded
    failed = [r for r in results if r.status == "fail"]
    if failed:
        names = ", ".join(r.name for r in failed)
        return replace(graded, outcome="fail",
                       reason=f"invariant {names} failed (the grader passed: {graded.reason})")
    broken = [r for r in results if r.status == "error"]
    if broken:
        return replace(graded, outcome="error", reason=f"invariant {broken[0].name} could not be run")
    if len(results) < len(case.invariants):
        return replace(graded, outcome="error", reason="the case's invariants did not run")
    return graded
