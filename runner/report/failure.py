"""Why a trial came to its outcome, as every report shows it: the failure excerpt (result.json's, or for older
results read from grader.log), the JUnit report's per-test lists in words (what explains a `pass (exit 1)`), and
the trial's files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from runner.grading.excerpt import trial_excerpt
from runner.runs.result import Excerpt, GraderTests, TrialResult, trial_path

FILES = ("prompt.md", "transcript.log", "agent.stderr.log", "candidate.patch", "oracle.patch", "grader.log",
         "invariants.log", "behaviour.json", "trajectory.json", "session.jsonl", "network.json", "http.json",
         "output", "result.json")
"""A trial folder's files in the order `--trial` lists them (those the folder has)."""
FAILURES_SHOWN = 20
"""Failed trials the terminal report lists with their excerpt (every error is listed)."""


def _listed(ids: Sequence[str], more: int) -> str:
    return ", ".join(ids) + (f" (and {more} more)" if more else "")


def test_lines(tests: GraderTests | None, exit_code: int | None = None) -> list[str]:
    """The JUnit report's account in words: the counts, each fail-to-pass test and what it came to, the
    pass-to-pass tests that failed, and the failed tests the verdict does not count (the case does not expect
    them to pass: they fail at base too), which is why a passing grader can exit non-zero."""
    if tests is None:
        return []
    lines = [f"JUnit report: {tests.passed} passed, {tests.failed} failed, {tests.skipped} skipped"
             + (f"; the grader exited {exit_code}" if exit_code else "")]
    if tests.fail_to_pass:
        passed = sum(1 for w in tests.fail_to_pass if w.outcome == "passed")
        lines.append(f"fail-to-pass: {passed} of {len(tests.fail_to_pass)} passed: "
                     + ", ".join(f"{w.id} {w.outcome}" for w in tests.fail_to_pass))
    if tests.pass_to_pass_failed:
        lines.append("pass-to-pass failed or missing: "
                     + _listed(tests.pass_to_pass_failed, tests.pass_to_pass_failed_more))
    if tests.other_failed:
        lines.append("failing, not counted (in neither fail_to_pass nor pass_to_pass: they fail at base too): "
                     + _listed(tests.other_failed, tests.other_failed_more))
    return lines


@dataclass(frozen=True)
class TrialFailure:
    """What a report shows of why one trial came to its outcome."""

    excerpt: Excerpt | None
    """The failure excerpt; None for a pass, a trial not graded, or a grader whose output quotes nothing."""
    tests: tuple[str, ...]
    """test_lines of its JUnit report (empty without one)."""

    def json(self) -> dict[str, Any]:
        """The JSON documents' entry."""
        return {"excerpt": None if self.excerpt is None else asdict(self.excerpt), "tests": list(self.tests)}


def trial_failure(run_dir: Path, result: TrialResult) -> TrialFailure:
    """A trial's excerpt (read from its grader.log in run_dir when its result.json predates excerpts) and test
    lines."""
    folder = trial_path(run_dir, result.variant, result.case_id, result.trial)
    return TrialFailure(trial_excerpt(result, folder), tuple(test_lines(result.grader_tests, result.grader_exit_code)))


def excerpt_block(excerpt: Excerpt | None, indent: str = "  ") -> list[str]:
    """The excerpt's lines for a terminal: the test and where, then its lines indented."""
    if excerpt is None:
        return []
    head = " ".join(part for part in (excerpt.test, f"at {excerpt.at}" if excerpt.at else "") if part)
    return [f"[failure] {head or excerpt.source}", *(indent + line for line in excerpt.text.splitlines())]


def trial_files(run_dir: Path, result: TrialResult) -> list[tuple[str, Path]]:
    """The trial folder's files that exist, by name, as paths under run_dir."""
    folder = trial_path(run_dir, result.variant, result.case_id, result.trial)
    return [(name, folder / name) for name in FILES if (folder / name).exists()]


def failure_lines(run_dir: Path, trials: Sequence[TrialResult]) -> list[str]:
    """The terminal report's list: every error and the first FAILURES_SHOWN fails, each with its excerpt's line."""
    lines: list[str] = []
    failed = [t for t in trials if t.outcome == "fail"]
    for trial in [t for t in trials if t.outcome == "error"] + failed[:FAILURES_SHOWN]:
        lines.append(f"{trial.outcome} {trial.variant}::{trial.case_id} #{trial.trial}: {trial.reason}")
        excerpt = trial_failure(run_dir, trial).excerpt
        if excerpt is not None:
            lines.append(f"  {excerpt.line()}")
    if len(failed) > FAILURES_SHOWN:
        lines.append(f"... and {len(failed) - FAILURES_SHOWN} more failed trials (`--trial VARIANT/CASE/N` shows "
                     f"one, --json and --html every one)")
    return lines
