"""Why a trial failed, in a few lines: the failing assertion and its file:line, taken from the JUnit report's
failure text or the grader's log, and the per-test account of a JUnit report (which fail-to-pass tests passed,
which other tests failed). Computed once when a trial is graded and kept in result.json; results written before
get the excerpt from their grader.log when read.

Everything here is the candidate's code's output and untrusted: it is bounded, and only ever shown as text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from corpus.model import Grader
from runner.grading.grader import (
    EXCERPT_LINES,
    GradeResult,
    TestOutcome,
    clip,
    first_error_line,
    matches_test_id,
    traceback_excerpt,
)
from runner.runs.result import Excerpt, GraderTests, TrialResult, WantedOutcome, WantedTest

LIST_LIMIT = 50
"""Test ids listed per kind in result.json's grader_tests (the rest counted)."""
LOG_WINDOW = 256 * 1024
"""Bytes read from each end of a grader.log for an excerpt (pytest prints its failures near the end)."""

SECTION = re.compile(r"^_{3,} (.+?) _{3,}$")
"""pytest's header of one test's failure: `____ test_add ____`, `____ ERROR collecting test_x.py ____`."""
SECTION_END = re.compile(r"^(={3,}|-{3,} .* -{3,}$|-{3,} generated )")
FAILURE_WORD = re.compile(r"\b(FAIL|FAILED|panic|failed|error)\b")
"""A line of another test tool's output that says a test failed: `--- FAIL: TestAdd`, `panic: ...`."""
SUMMARY = re.compile(r"^(FAILED|ERROR) (\S+)(?: - (.*))?$")
"""pytest's short test summary line: `FAILED tests/test_x.py::test_y - AssertionError: ...`."""


def failing_test(grader: Grader, tests: Sequence[TestOutcome]) -> TestOutcome | None:
    """The failed test the grader's verdict names: the first fail-to-pass test that failed, else the first
    pass-to-pass test that failed, else (a grader without ids) the first failed test."""
    failed = [t for t in tests if t.outcome == "failed"]
    for wanted in (*grader.fail_to_pass, *grader.pass_to_pass):
        hit = next((t for t in failed if matches_test_id(wanted, t.test_id)), None)
        if hit is not None:
            return hit
    return None if grader.fail_to_pass else next(iter(failed), None)


def junit_excerpt(grader: Grader, tests: Sequence[TestOutcome]) -> Excerpt | None:
    """The excerpt of the failed test the verdict names, from its JUnit failure; None when no test failed."""
    test = failing_test(grader, tests)
    if test is None:
        return None
    text = test.excerpt or clip([test.message])
    return Excerpt(text or "failed (the report gives no message)", test.at, test.test_id, "junit")


def _sections(lines: Sequence[str]) -> list[tuple[str, list[str]]]:
    sections: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    for line in lines:
        header = SECTION.match(line)
        if header and not set(header.group(1)) <= set("_ "):
            sections.append((header.group(1), current := []))
        elif current is not None and SECTION_END.match(line):
            current = None
        elif current is not None:
            current.append(line)
    return sections


def log_excerpt(text: str, test: str = "") -> Excerpt | None:
    """The excerpt a grader's output gives: the pytest failure section of test (its last name part matched;
    else the first section), else the first FAILED or ERROR summary line, else the first line naming an error
    (with the lines after it up to a blank one, when it is another tool's `FAIL` or `panic`)."""
    lines = text.splitlines()
    sections = _sections(lines)
    if sections:
        name = re.split(r"[.:]", test)[-1] if test else ""
        title, body = next(((t, b) for t, b in sections if name and t.split(".")[-1] == name), sections[0])
        found, at = traceback_excerpt("\n".join(body))
        if found:
            return Excerpt(found, at, "" if title.startswith("ERROR ") else title, "grader.log")
    for line in lines:
        summary = SUMMARY.match(line.strip())
        if summary:
            return Excerpt(clip([summary.group(3) or summary.group(0)]), "", summary.group(2), "grader.log")
    first = first_error_line(text)
    if first:
        return Excerpt(first, "", "", "grader.log")
    start = next((i for i, line in enumerate(lines) if FAILURE_WORD.search(line)), None)
    if start is None:
        return None
    block = list(itertools.takewhile(str.strip, lines[start:start + EXCERPT_LINES]))
    return Excerpt(clip(block), "", "", "grader.log")


def read_log(path: Path) -> str:
    """The start and the end of a grader log (LOG_WINDOW bytes each), as text; "" when there is none."""
    try:
        with open(path, "rb") as log:
            head = log.read(LOG_WINDOW)
            log.seek(0, 2)
            size = log.tell()
            if size <= 2 * LOG_WINDOW:
                log.seek(len(head))
                return (head + log.read()).decode("utf-8", "replace")
            log.seek(size - LOG_WINDOW)
            return head.decode("utf-8", "replace") + "\n" + log.read().decode("utf-8", "replace")
    except OSError:
        return ""


def graded_excerpt(grader: Grader, tests: Sequence[TestOutcome], log_path: Path) -> Excerpt | None:
    """A graded patch's excerpt: from the JUnit report when a test failed there, else from the grader's log."""
    found = junit_excerpt(grader, tests)
    if found is not None:
        return found
    wanted = next((w for w in grader.fail_to_pass if not any(matches_test_id(w, t.test_id) and t.outcome == "passed"
                                                             for t in tests)), "")
    if tests and grader.fail_to_pass and not wanted:
        return None  # every test the verdict names passed: the reason (the seal's, an invariant's) says why
    return log_excerpt(read_log(log_path), wanted)


def explained(grader: Grader, result: GradeResult, log_path: Path) -> dict[str, Any]:
    """result.json's `excerpt` (when the grader did not pass) and `grader_tests` (with a JUnit report) of a graded
    patch whose output is in log_path."""
    found = None if result.outcome == "pass" else graded_excerpt(grader, result.tests, log_path)
    return {"excerpt": found, "grader_tests": grader_tests(grader, result.tests)}


def grader_tests(grader: Grader, tests: Sequence[TestOutcome]) -> GraderTests | None:
    """The JUnit report's account: counts per outcome, each fail-to-pass id with what it came to, the
    pass-to-pass ids that failed or went missing, and the failed tests in neither list (which the verdict does not
    count: the case does not expect them to pass, as they fail at base too); None without a JUnit report."""
    if not tests:
        return None
    wanted = []
    for test_id in grader.fail_to_pass:
        seen = {t.outcome for t in tests if matches_test_id(test_id, t.test_id)}
        state: WantedOutcome = ("failed" if "failed" in seen else "passed" if "passed" in seen
                                else "skipped" if seen else "missing")
        wanted.append(WantedTest(test_id, state))
    broken = []
    for kept in grader.pass_to_pass:
        matches = [t for t in tests if matches_test_id(kept, t.test_id)]
        if not matches or any(t.outcome == "failed" for t in matches):
            broken.append(kept)
    listed = (*grader.fail_to_pass, *grader.pass_to_pass)
    others = [t.test_id for t in tests if t.outcome == "failed"
              and not any(matches_test_id(w, t.test_id) for w in listed)]
    passed, failed, skipped = (sum(1 for t in tests if t.outcome == state) for state in ("passed", "failed", "skipped"))
    return GraderTests(passed, failed, skipped, tuple(wanted), tuple(broken[:LIST_LIMIT]),
                       max(0, len(broken) - LIST_LIMIT), tuple(others[:LIST_LIMIT]), max(0, len(others) - LIST_LIMIT))


def trial_excerpt(result: TrialResult, folder: Path) -> Excerpt | None:
    """A trial's excerpt: the one its result.json keeps; for a result written before results kept one, read from
    its grader.log (in folder) when the grader ran and the trial did not pass."""
    found = result.excerpt
    if found is not None or result.grader_tests is not None or result.outcome == "pass" \
            or result.grader_outcome in (None, "pass"):
        return found
    return log_excerpt(read_log(folder / "grader.log"))
