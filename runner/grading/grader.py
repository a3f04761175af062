"""Materialize the hidden grader into a workspace and decide pass, fail or error, failing closed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from junitparser import Error, Failure, JUnitXml, Skipped, TestSuite

from corpus.model import Case, CaseFiles, Grader
from runner.process import ProcessResult
from runner.runs.result import Outcome
from runner.workspace.inside import read_inside, remove_inside, write_inside

NOT_RUNNABLE = (126, 127)


@dataclass(frozen=True)
class TestOutcome:
    """One test case read from the JUnit report."""

    test_id: str
    """classname.name as the report gives it."""
    outcome: Literal["passed", "failed", "skipped"]
    """What happened to it."""


@dataclass(frozen=True)
class GradeResult:
    """The grader's verdict with the facts behind it."""

    outcome: Outcome
    """pass, fail or error (could not be established)."""
    reason: str
    """One line saying why."""
    exit_code: int | None
    """The grader command's exit code (None on timeout or start failure)."""
    duration: float
    """Seconds the grader ran."""
    output_tail: str
    """The end of the grader's output."""
    timed_out: bool = False
    """True when the grader was killed at its timeout."""
    tests: tuple[TestOutcome, ...] = ()
    """Per-test outcomes when a JUnit report was read."""


def materialize_grader(case: Case, files: CaseFiles, workspace: Path) -> None:
    """Write every grader file over whatever is there and remove the test paths the fix deleted."""
    for repo_path, content in files.grader_files:
        write_inside(workspace, repo_path, content)
    for repo_path in case.grader.deleted:
        remove_inside(workspace, repo_path)
    if case.grader.junit:
        remove_inside(workspace, case.grader.junit)


def judge(grader: Grader, ran: ProcessResult, workspace: Path) -> GradeResult:
    """Turn a finished grader process (and its JUnit report, if configured) into an outcome."""

    def result(outcome: Outcome, reason: str, tests: tuple[TestOutcome, ...] = ()) -> GradeResult:
        return GradeResult(outcome, reason, ran.exit_code, ran.duration, ran.tail, ran.timed_out, tests)

    if ran.start_error:
        return result("error", f"grader could not start: {ran.start_error}")
    if ran.timed_out:
        return result("error", f"grader timed out after {grader.timeout}s")
    if ran.exit_code in NOT_RUNNABLE:
        return result("error", f"grader command not runnable (exit {ran.exit_code})")
    if grader.junit is None:
        if ran.exit_code == 0:
            return result("pass", "grader exited 0")
        return result("fail", f"grader exited {ran.exit_code}")
    try:
        tests = read_junit(read_inside(workspace, grader.junit), grader.junit)
    except Exception as exc:  # noqa: BLE001 - the report is the candidate's code's output: anything unreadable
        if ran.exit_code != 0:
            return result("fail", f"grader exited {ran.exit_code} and wrote no readable JUnit report")
        return result("error", f"grader exited 0 but its JUnit report {grader.junit} is unreadable: {exc}")
    return result(*_judge_tests(grader, ran.exit_code, tests), tests)


def read_junit(report: bytes | None, name: str) -> tuple[TestOutcome, ...]:
    """Every test case in a JUnit XML report (junit or testsuites root); report is None when no regular file
    was there (read without following links)."""
    if report is None:
        raise FileNotFoundError(f"{name} not found")
    xml = JUnitXml.fromstring(report)
    suites = [xml] if isinstance(xml, TestSuite) else list(xml)
    outcomes = []
    for suite in suites:
        for test in suite:
            results = list(test.result)
            if any(isinstance(r, (Failure, Error)) for r in results):
                state: Literal["passed", "failed", "skipped"] = "failed"
            elif any(isinstance(r, Skipped) for r in results):
                state = "skipped"
            else:
                state = "passed"
            name = f"{test.classname}.{test.name}" if test.classname else str(test.name)
            outcomes.append(TestOutcome(name, state))
    return tuple(outcomes)


def _judge_tests(grader: Grader, exit_code: int | None, tests: tuple[TestOutcome, ...]) -> tuple[Outcome, str]:
    ran = [t for t in tests if t.outcome != "skipped"]
    if not ran:
        return "fail", "no tests ran"
    if not grader.fail_to_pass:
        failed = [t.test_id for t in ran if t.outcome == "failed"]
        if failed:
            return "fail", f"{len(failed)} test(s) failed: {', '.join(failed[:3])}"
        if exit_code != 0:
            return "fail", f"grader exited {exit_code}"
        return "pass", f"{len(ran)} test(s) passed"
    for wanted in grader.fail_to_pass:
        matches = [t for t in tests if matches_test_id(wanted, t.test_id)]
        if not matches:
            return "fail", f"fail-to-pass test did not run: {wanted}"
        if any(t.outcome != "passed" for t in matches):
            return "fail", f"fail-to-pass test did not pass: {wanted}"
    for kept in grader.pass_to_pass:
        matches = [t for t in tests if matches_test_id(kept, t.test_id)]
        if not matches or any(t.outcome == "failed" for t in matches):
            return "fail", f"pass-to-pass test failed or missing: {kept}"
    return "pass", f"all {len(grader.fail_to_pass)} fail-to-pass test(s) passed"


def normalize_test_id(test_id: str) -> str:
    """pytest node ids and JUnit classname.name to one dotted form: tests/test_a.py::T::t -> tests.test_a.T.t."""
    path, sep, rest = test_id.partition("::")
    if sep:
        path = re.sub(r"\.py$", "", path).replace("/", ".").replace("\\", ".")
        return ".".join([path, *rest.split("::")])
    return test_id


def matches_test_id(wanted: str, reported: str) -> bool:
    """A wanted id matches a reported one exactly, or as its trailing dotted part, parameters included."""
    want, got = normalize_test_id(wanted), normalize_test_id(reported)
    if want == got or got.endswith("." + want):
        return True
    # A bare parametrized id (test_x) covers every parametrization (test_x[1], test_x[2]).
    bare = got.split("[", 1)[0]
    return "[" not in want and (bare == want or bare.endswith("." + want))
