from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from corpus import Case, CaseFiles, Grader
from runner.envs.environment import base_environment
from runner.grading.failclosed import FixConfig
from runner.grading.frompatch import GradingSetup, grade_patch
from runner.grading.grader import GradeResult, matches_test_id
from runner.sandbox.confine import Confinement
from runner.workspace.workspace import create_workspace
from tests.testing.casefactory import PYTEST, TEST_V2, build_corpus

JUNIT = ".hindcast/junit.xml"


def setup_ws(tmp_path: Path, **changes: object) -> tuple[Case, CaseFiles, Path]:
    corpus, repo, _ = build_corpus(tmp_path, **changes)
    stored = corpus.load("calc-add")
    ws = create_workspace(repo.path, stored.case.base_commit, tmp_path / "ws")
    return stored.case, stored.files, ws


def run(case: Case, files: CaseFiles, ws: Path, tmp_path: Path, patch: bytes = b"") -> GradeResult:
    """Grade patch on the workspace (the base, unless a patch was graded there before), the way verify grades a
    side."""
    setup = GradingSetup(case, files, FixConfig(()), frozenset())
    return grade_patch(setup, ws, patch, base_environment(), Confinement(), tmp_path, tmp_path / "grader.log",
                       candidate=False).result


def test_baseline_fails_and_oracle_passes(tmp_path: Path) -> None:
    case, files, ws = setup_ws(tmp_path)
    result = run(case, files, ws, tmp_path)
    assert result.outcome == "fail" and result.exit_code == 1
    assert (ws / "test_calc.py").read_text() == TEST_V2  # grader materialized over the base version
    assert "1 failed" in result.output_tail
    assert run(case, files, ws, tmp_path, files.oracle_patch).outcome == "pass"


def test_printing_passed_with_nonzero_exit_is_a_fail(tmp_path: Path) -> None:
    case, files, ws = setup_ws(tmp_path, grader=Grader(command="echo '5 passed in 0.01s'; exit 3"))
    result = run(case, files, ws, tmp_path)
    assert (result.outcome, result.exit_code) == ("fail", 3)


def test_timeout_kills_the_whole_group_and_is_an_error(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild-alive"
    command = f"(sleep 3; touch {marker}) & sleep 30"
    case, files, ws = setup_ws(tmp_path, grader=Grader(command=command, timeout=1))
    started = time.monotonic()
    result = run(case, files, ws, tmp_path)
    assert result.outcome == "error" and result.timed_out and "timed out after 1s" in result.reason
    assert time.monotonic() - started < 10
    time.sleep(3.5)
    assert not marker.exists(), "a grandchild survived the timeout"


def test_command_not_found_is_an_error(tmp_path: Path) -> None:
    case, files, ws = setup_ws(tmp_path, grader=Grader(command="no-such-grader-command"))
    assert run(case, files, ws, tmp_path).outcome == "error"


def test_deleted_test_paths_are_removed(tmp_path: Path) -> None:
    case, files, ws = setup_ws(tmp_path, grader=Grader(command="test ! -e README.md", deleted=("README.md",)))
    assert run(case, files, ws, tmp_path).outcome == "pass"


def junit_case(tmp_path: Path, **grader: object) -> tuple[Case, CaseFiles, Path]:
    command = f"{PYTEST} --junitxml={JUNIT} test_calc.py"
    return setup_ws(tmp_path, grader=Grader(command=command, junit=JUNIT, **grader))  # type: ignore[arg-type]


def test_junit_fail_to_pass(tmp_path: Path) -> None:
    case, files, ws = junit_case(tmp_path, fail_to_pass=("test_calc.py::test_add",),
                                 pass_to_pass=("test_calc.py::test_zero",))
    baseline = run(case, files, ws, tmp_path)
    assert baseline.outcome == "fail" and "did not pass: test_calc.py::test_add" in baseline.reason
    assert {t.test_id: t.outcome for t in baseline.tests} == {"test_calc.test_add": "failed",
                                                               "test_calc.test_zero": "passed"}
    assert run(case, files, ws, tmp_path, files.oracle_patch).outcome == "pass"


def test_junit_fail_to_pass_that_never_ran_fails(tmp_path: Path) -> None:
    case, files, ws = junit_case(tmp_path, fail_to_pass=("test_calc.py::test_missing",))
    result = run(case, files, ws, tmp_path, files.oracle_patch)
    assert result.outcome == "fail" and "did not run" in result.reason


def test_junit_listing_no_tests_is_a_fail(tmp_path: Path) -> None:
    empty = '<?xml version="1.0"?><testsuites><testsuite name="s" tests="0"></testsuite></testsuites>'
    command = f"mkdir -p .hindcast && echo '{empty}' > {JUNIT}"
    case, files, ws = setup_ws(tmp_path, grader=Grader(command=command, junit=JUNIT))
    result = run(case, files, ws, tmp_path)
    assert (result.outcome, result.reason) == ("fail", "no tests ran")


def test_planted_junit_report_is_removed_before_grading(tmp_path: Path) -> None:
    case, files, ws = setup_ws(tmp_path, grader=Grader(command="true", junit=JUNIT))
    (ws / ".hindcast").mkdir()
    (ws / JUNIT).write_text('<testsuite name="s"><testcase classname="x" name="y"/></testsuite>')
    result = run(case, files, ws, tmp_path)
    assert result.outcome == "error" and "unreadable" in result.reason


def test_missing_junit_with_failing_command_is_fail(tmp_path: Path) -> None:
    case, files, ws = setup_ws(tmp_path, grader=Grader(command="exit 1", junit=JUNIT))
    assert run(case, files, ws, tmp_path).outcome == "fail"


def test_output_goes_to_log_and_tail(tmp_path: Path) -> None:
    case, files, ws = setup_ws(tmp_path, grader=Grader(command=f"{sys.executable} -c \"print('x' * 100000)\""))
    result = run(case, files, ws, tmp_path)
    assert result.outcome == "pass" and len(result.output_tail) <= 8192
    assert os.path.getsize(tmp_path / "grader.log") == 100001


@pytest.mark.parametrize(("wanted", "reported", "expected"), [
    ("tests/test_a.py::test_x", "tests.test_a.test_x", True),
    ("tests/test_a.py::TestK::test_x", "tests.test_a.TestK.test_x", True),
    ("tests/test_a.py::test_x", "tests.test_a.test_x[1-2]", True),
    ("tests/test_a.py::test_x[1]", "tests.test_a.test_x[2]", False),
    ("tests/test_a.py::test_x", "tests.test_a.test_xy", False),
    ("TestFoo", "pkg.TestFoo", True),
])
def test_test_id_matching(wanted: str, reported: str, expected: bool) -> None:
    assert matches_test_id(wanted, reported) is expected

