"""Materialize the hidden grader into a workspace and decide pass, fail or error, failing closed."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from junitparser import Error, Failure, JUnitXml, Skipped, TestSuite

from corpus.model import Case, CaseFiles, Grader
from runner.process import ProcessResult
from runner.runs.result import Outcome
from runner.workspace.inside import read_inside, remove_inside, write_inside

NOT_RUNNABLE = (126, 127)
EXCERPT_LINES = 12
"""Lines an excerpt of a failure keeps (the failing source line and the exception's `E` lines)."""
LINE_CHARS = 300
"""Characters an excerpt keeps of one line."""
LOCATION = re.compile(r"^(\S[^:\s]*):(\d+):(?: |$)")
"""pytest's frame line: `tests/test_x.py:42: AssertionError`, `calc.py:6: in boom`."""


@dataclass(frozen=True)
class TestOutcome:
    """One test case read from the JUnit report."""

    test_id: str
    """classname.name as the report gives it."""
    outcome: Literal["passed", "failed", "skipped"]
    """What happened to it."""
    message: str = ""
    """For a failed test, its failure's message and the exception line of its report (`E   ImportError: ...`);
    for a skipped one, the skip's reason."""
    raised_in: str = ""
    """For a failed test, the file of the frame that raised (the last `path:line: Error` line of its traceback),
    as the report gives it; "" when the report names none."""
    excerpt: str = ""
    """For a failed test, its failure text's failing source line and exception lines (`traceback_excerpt`)."""
    at: str = ""
    """For a failed test, `path:line` of the frame that raised, as its failure text gives it."""


@dataclass(frozen=True)
class GradeResult:
    """The grader's outcome with the facts behind it."""

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


def judge(grader: Grader, ran: ProcessResult, workspace: Path, output: str | None = None) -> GradeResult:
    """Turn a finished grader process (and its JUnit report, if configured) into an outcome.

    A grader that ran no test is an error: pytest's exits 2-5 (collection errors, interrupted, internal or usage
    error, no tests collected), a JUnit report that lists none, or no readable report where one was expected.
    output is the start of the grader's output (the tail is used without it), for the first error line.
    """

    def result(outcome: Outcome, reason: str, tests: tuple[TestOutcome, ...] = ()) -> GradeResult:
        return GradeResult(outcome, reason, ran.exit_code, ran.duration, ran.tail, ran.timed_out, tests)

    if ran.start_error:
        return result("error", f"grader could not start: {ran.start_error}")
    if ran.timed_out:
        return result("error", f"grader timed out after {grader.timeout}s")
    if ran.exit_code in NOT_RUNNABLE:
        return result("error", f"grader command not runnable (exit {ran.exit_code})")
    text = ran.tail if output is None else output
    no_run = pytest_no_run(grader.command, ran.exit_code, text)
    if grader.junit is None:
        if no_run:
            return result("error", no_run)
        if ran.exit_code == 0:
            return result("pass", "grader exited 0")
        return result("fail", f"grader exited {ran.exit_code}")
    try:
        tests = read_junit(read_inside(workspace, grader.junit), grader.junit)
    except Exception as exc:  # noqa: BLE001 - the report is the candidate's code's output: anything unreadable
        if no_run:
            return result("error", no_run)
        if ran.exit_code != 0:
            return result("error", _with_first_error(f"no test ran: grader exited {ran.exit_code} and wrote no "
                                                     f"readable JUnit report {grader.junit}", text, ran.tail))
        return result("error", f"grader exited 0 but its JUnit report {grader.junit} is unreadable: {exc}")
    if no_run:
        return result("error", no_run, tests)
    if not any(t.outcome != "skipped" for t in tests):
        return result("error", _with_first_error(f"no test ran (grader exited {ran.exit_code})", text), tests)
    return result(*judge_tests(grader, ran.exit_code, tests), tests)


PYTEST_WORD = re.compile(r"(?<![\w.-])(py\.test|pytest)(?![\w-])")
PYTEST_NO_RUN = {2: "collection errors or interrupted", 3: "internal error", 4: "usage error",
                 5: "no tests collected"}
"""pytest's exit codes for a session that ran no test (or stopped before its end)."""
EXCEPTION_LINE = re.compile(r"[A-Za-z_][\w.]*(Error|Exception|Exit)\b")
RAISED_AT = re.compile(r"^(\S[^:]*):\d+: [A-Za-z_][\w.]*$")
"""pytest's last traceback line: the raising frame's file, its line and the exception's name."""
ERROR_LINE = re.compile(r"\b(\w*Error|ERROR|INTERNALERROR|Exception)\b")


def pytest_no_run(command: str, exit_code: int | None, output: str) -> str | None:
    """For a pytest grader that exited 2-5 (it ran no test, or stopped before the end), the reason to say so."""
    if exit_code not in PYTEST_NO_RUN or not PYTEST_WORD.search(command):
        return None
    return _with_first_error(f"no test ran (pytest exit {exit_code}: {PYTEST_NO_RUN[exit_code]})", output)


def first_error_line(output: str) -> str:
    """The first line of output that names an error, with the exception line (`E   ...`) after it when there is one:
    `ImportError while loading conftest '/w/conftest.py': ModuleNotFoundError: No module named 'foo'`."""
    raised = raised_line(output)  # a Python traceback's own last line names its error, whatever the lines above say
    if raised:
        return raised[:300]
    lines = [line.rstrip() for line in output.splitlines()]
    head_at = next((i for i, line in enumerate(lines) if ERROR_LINE.search(line) and not set(line) <= set("=_- ")
                    and not line.startswith("E   ")), None)
    detail_at = next((i for i, line in enumerate(lines) if line.startswith("E   ")
                      and (head_at is None or i > head_at)), None)
    head = lines[head_at].strip(" =_-") if head_at is not None else ""  # pytest's `___ ERROR collecting x ___`
    detail = lines[detail_at][4:].strip() if detail_at is not None else ""
    if head and detail and detail not in head:
        head = f"{head.rstrip('.')}: {detail}"
    return (head or detail)[:300]


EXCEPTION_END = re.compile(r"^[A-Za-z_][\w.]*(: .*)?$")
"""A traceback's last line: the exception's (dotted) name, then its message."""


def raised_line(output: str) -> str:
    """The exception line of the last Python traceback in output (`builtins.Failed: [pytest] section in setup.cfg
    files is no longer supported, ...`), whatever the exception is called; empty without one."""
    lines = output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last):")]
    if not starts:
        return ""
    line = next((line for line in lines[starts[-1] + 1:] if line and not line[0].isspace()), "")
    return line.strip() if EXCEPTION_END.match(line) else ""


def _with_first_error(reason: str, output: str, tail: str = "") -> str:
    first = first_error_line(output) or raised_line(tail)
    return f"{reason}: {first[:300]}" if first else reason


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
            message, raised_in, excerpt, at = "", "", "", ""
            if any(isinstance(r, (Failure, Error)) for r in results):
                state: Literal["passed", "failed", "skipped"] = "failed"
                failure = next(r for r in results if isinstance(r, (Failure, Error)))
                message, raised_in = _failure_message(failure), _raised_in(failure.text or "")
                excerpt, at = traceback_excerpt(failure.text or "")
            elif any(isinstance(r, Skipped) for r in results):
                state = "skipped"
                skip = next(r for r in results if isinstance(r, Skipped))
                message = (skip.message or "").strip()[:500]
            else:
                state = "passed"
            name = f"{test.classname}.{test.name}" if test.classname else str(test.name)
            outcomes.append(TestOutcome(name, state, message, raised_in, excerpt, at))
    return tuple(outcomes)


def clip(lines: Sequence[str]) -> str:
    """The non-blank lines, at most EXCERPT_LINES of them, each cut at LINE_CHARS."""
    kept = [line.rstrip()[:LINE_CHARS] for line in lines if line.strip()][:EXCERPT_LINES]
    return "\n".join(kept)


def traceback_excerpt(text: str) -> tuple[str, str]:
    """A pytest traceback's failing source line and last block of `E` lines, and the raising frame's
    `path:line` (the last frame line); the first lines when it has no `E` line."""
    lines = text.splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith("E ")]
    frames = [m for line in lines if (m := LOCATION.match(line))]
    at = f"{frames[-1].group(1)}:{frames[-1].group(2)}" if frames else ""
    if not ends:
        return clip([line for line in lines if not LOCATION.match(line)][:3]), at
    end = ends[-1]
    start = end
    while start > 0 and lines[start - 1].startswith("E "):
        start -= 1
    if start > 0 and lines[start - 1].lstrip().startswith(">"):
        start -= 1
    after = [m for line in lines[end:] if (m := LOCATION.match(line))]
    if after:
        at = f"{after[0].group(1)}:{after[0].group(2)}"
    return clip(lines[start:end + 1]), at


def _raised_in(text: str) -> str:
    """The file of the raising frame: pytest ends a traceback with `path:line: ExceptionName`."""
    for line in reversed(text.splitlines()):
        if line.strip():
            match = RAISED_AT.match(line.strip())
            return match.group(1) if match else ""
    return ""


def _failure_message(failure: Failure | Error) -> str:
    """The failure's message and, when its report has one, the last exception line (`E   TypeError: ...`)."""
    message = (failure.message or "").strip().splitlines()
    exception = [line[4:].strip() for line in (failure.text or "").splitlines()
                 if line.startswith("E   ") and EXCEPTION_LINE.match(line[4:].strip())]
    parts = [message[0] if message else "", exception[-1] if exception else ""]
    return " | ".join(p for p in dict.fromkeys(parts) if p)[:500]


def judge_tests(grader: Grader, exit_code: int | None, tests: tuple[TestOutcome, ...]) -> tuple[Outcome, str]:
    """The outcome of a JUnit report's tests under grader's fail-to-pass and pass-to-pass ids."""
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
    """pytest node ids and JUnit classname.name to one dotted form: tests/test_a.py::T::t -> tests.test_a.T.t.
    A parameter id (`[...]`) is kept as written: it may hold `::` or `/` itself (a URL, a path). The `()` of a
    class's instance in the node ids of pytest before 4 is left out, as JUnit leaves it out."""
    name, bracket, params = test_id.partition("[")
    path, sep, rest = name.partition("::")
    if sep:
        path = re.sub(r"\.py$", "", path).replace("/", ".").replace("\\", ".")
        return ".".join([path, *(part for part in rest.split("::") if part != "()")]) + bracket + params
    return test_id


def matches_test_id(wanted: str, reported: str) -> bool:
    """A wanted id matches a reported one exactly, or as its trailing dotted part, parameters included."""
    want, got = normalize_test_id(wanted), normalize_test_id(reported)
    if want == got or got.endswith("." + want):
        return True
    # A bare parametrized id (test_x) covers every parametrization (test_x[1], test_x[2]).
    bare = got.split("[", 1)[0]
    return "[" not in want and (bare == want or bare.endswith("." + want))
