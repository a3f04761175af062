from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from corpus import Case, CaseFiles, Grader
from runner.envs.environment import base_environment
from runner.grading.failclosed import FixConfig
from runner.grading.frompatch import GradingSetup, grade_patch
from runner.grading.grader import GradeResult, first_error_line, matches_test_id, pytest_no_run
from runner.sandbox.confine import Confinement
from runner.workspace.workspace import create_workspace
from tests.runner.verify.builders import CALC_MUL, TESTS_MUL, build
from tests.runner.verify.builders import PYTEST as VPYTEST
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


def grade_both(case: Case, files: CaseFiles, ws: Path, tmp_path: Path, patch: bytes) -> tuple[GradeResult, ...]:
    """The patch graded in verify mode and in agent mode, each on its own copy of the workspace."""
    results = []
    for candidate in (False, True):
        copy = tmp_path / f"copy-{candidate}"
        shutil.copytree(ws, copy, symlinks=True)
        setup = GradingSetup(case, files, FixConfig(()), frozenset())
        results.append(grade_patch(setup, copy, patch, base_environment(), Confinement(), tmp_path,
                                   tmp_path / f"grader-{candidate}.log", candidate=candidate).result)
    return tuple(results)


EMPTY_JUNIT = '<?xml version="1.0"?><testsuites><testsuite name="s" tests="0"></testsuite></testsuites>'


@pytest.mark.parametrize(("command", "extra", "reason"), [
    (f"{VPYTEST} tests/test_calc.py", {"tests/conftest.py": "import not_a_module_xyz\n"},
     "no test ran (pytest exit 4: usage error): ImportError while loading conftest '/"),
    (f"{VPYTEST} tests/test_calc.py -k no_such_test", {},
     "no test ran (pytest exit 5: no tests collected)"),
    ("exit 1", {}, f"no test ran: grader exited 1 and wrote no readable JUnit report {JUNIT}"),
    (f"mkdir -p .hindcast && echo '{EMPTY_JUNIT}' > {JUNIT}", {}, "no test ran (grader exited 0)"),
    ((f"{sys.executable} -c \"raise type('Failed', (Exception,), {{}})('[pytest] section in setup.cfg is no longer "
     f"supported')\""), {}, (f"no test ran: grader exited 1 and wrote no readable JUnit report {JUNIT}: Failed: "
                            f"[pytest] section in setup.cfg is no longer supported")),
], ids=["conftest-import-error", "no-tests-collected", "no-junit", "junit-without-tests", "uncaught-exception"])
def test_a_grader_that_ran_no_test_is_an_error_for_verify_and_a_fail_for_an_agent(
        tmp_path: Path, command: str, extra: dict[str, str], reason: str) -> None:
    corpus, case = build(tmp_path, command=command, extra=extra)
    stored = corpus.load(case.id, "candidates")
    ws = create_workspace(corpus.repo_path(), case.base_commit, tmp_path / "ws")
    verify_mode, agent_mode = grade_both(stored.case, stored.files, ws, tmp_path, stored.files.oracle_patch)
    assert verify_mode.outcome == "error" and verify_mode.reason.startswith(reason), verify_mode.reason
    assert agent_mode.outcome == "fail" and agent_mode.reason == f"{verify_mode.reason}, with the candidate's code"
    if extra:
        assert verify_mode.reason.endswith("ModuleNotFoundError: No module named 'not_a_module_xyz'")
    if command == "exit 1":
        assert verify_mode.reason == reason  # nothing on the log to name


def test_a_base_that_cannot_collect_the_new_tests_fails_an_agent(tmp_path: Path) -> None:
    corpus, case = build(tmp_path, source=CALC_MUL, tests=TESTS_MUL, command=f"{VPYTEST} tests/test_calc.py")
    stored = corpus.load(case.id, "candidates")
    ws = create_workspace(corpus.repo_path(), case.base_commit, tmp_path / "ws")
    verify_mode, agent_mode = grade_both(stored.case, stored.files, ws, tmp_path, b"")
    assert verify_mode.outcome == "error" and verify_mode.exit_code == 2
    assert "cannot import name 'mul'" in verify_mode.reason
    assert [(t.test_id, t.outcome) for t in verify_mode.tests] == [("tests.test_calc", "failed")]
    assert agent_mode.outcome == "fail"


def test_first_error_line_names_the_error_and_its_exception() -> None:
    output = ("ImportError while loading conftest '/w/tests/conftest.py'.\ntests/conftest.py:1: in <module>\n"
              "    import foo\nE   ModuleNotFoundError: No module named 'foo'\n")
    assert first_error_line(output) == ("ImportError while loading conftest '/w/tests/conftest.py': "
                                        "ModuleNotFoundError: No module named 'foo'")
    assert first_error_line("==== 1 passed ====\n") == ""
    crashed = ("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n    fail()\n"
               "builtins.Failed: [pytest] section in setup.cfg files is no longer supported\n")
    assert first_error_line(crashed) == "builtins.Failed: [pytest] section in setup.cfg files is no longer supported"
    assert first_error_line("Traceback (most recent call last):\n  File \"x.py\", line 1\n") == ""
    source_lines = ("Traceback (most recent call last):\n  File \"pluggy/__init__.py\", line 16, in <module>\n"
                    "    from .manager import PluginManager, PluginValidationError\n"
                    "ModuleNotFoundError: No module named 'importlib_metadata'\n")
    assert first_error_line(source_lines) == "ModuleNotFoundError: No module named 'importlib_metadata'"
    collection = ("==== ERRORS ====\n____________ ERROR collecting tests/test_calc.py ____________\n"
                  "tests/test_calc.py:1: in <module>\n    from calc import mul\n"
                  "E   ImportError: cannot import name 'mul' from 'calc'\n")
    assert first_error_line(collection) == ("ERROR collecting tests/test_calc.py: "
                                            "ImportError: cannot import name 'mul' from 'calc'")
    assert pytest_no_run("make test", 4, output) is None  # exit codes mean pytest's only for pytest


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
    ("tests/test_v.py::test_u[http://[::1]:80]", "tests.test_v.test_u[http://[::1]:80]", True),
    ("tests/test_v.py::test_u[a/b.py::c]", "tests.test_v.test_u[a/b.py::d]", False),
    ("tests/test_a.py::TestK::()::test_x[1]", "tests.test_a.TestK.test_x[1]", True),  # pytest before 4
])
def test_test_id_matching(wanted: str, reported: str, expected: bool) -> None:
    assert matches_test_id(wanted, reported) is expected

