"""The failure excerpt and the per-test account, read from what real pytest sessions write: the JUnit report's
failure text and the grader's output, bounded, and read back for results written before results kept them."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import Grader
from runner.grading import grader as graderlib
from runner.grading.excerpt import (
    LIST_LIMIT,
    graded_excerpt,
    grader_tests,
    junit_excerpt,
    log_excerpt,
    read_log,
    trial_excerpt,
)
from runner.grading.grader import EXCERPT_LINES, LINE_CHARS, read_junit
from runner.runs.result import Excerpt, GraderTests, TrialResult, WantedTest

CALC = "def add(a, b):\n    return a - b\n\n\ndef split(s):\n    return ('', '')\n\n\ndef boom():\n    raise ValueError('bad value')\n"
TESTS = ("from calc import add, split, boom\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n\n\n"
         "def test_add():\n    assert add(2, 3) == 5\n\n\ndef test_split():\n    assert split('a') is None\n\n\n"
         "def test_boom():\n    boom()\n")
ADD = [">       assert add(2, 3) == 5", "E       assert -1 == 5", "E        +  where -1 = add(2, 3)"]
SPLIT = [">       assert split('a') is None", "E       AssertionError: assert ('', '') is None",
         "E        +  where ('', '') = split('a')"]


def pytest_session(folder: Path, files: dict[str, str]) -> tuple[tuple[graderlib.TestOutcome, ...], str]:
    """Run pytest on files in folder: the JUnit report's tests and the output."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=junit.xml"],
                         cwd=folder, capture_output=True, text=True, check=False)
    report = folder / "junit.xml"
    tests = read_junit(report.read_bytes(), "junit.xml") if report.exists() else ()
    return tests, ran.stdout


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple[graderlib.TestOutcome, ...], str]:
    return pytest_session(tmp_path_factory.mktemp("calc"), {"calc.py": CALC, "test_calc.py": TESTS})


def grader(*fail_to_pass: str, pass_to_pass: tuple[str, ...] = ()) -> Grader:
    return Grader(command="python -m pytest", junit="junit.xml", fail_to_pass=fail_to_pass, pass_to_pass=pass_to_pass)


def test_the_first_failure_of_a_grader_without_ids_is_its_assertion_and_line(session: tuple) -> None:
    tests, _ = session
    found = junit_excerpt(grader(), tests)
    assert found == Excerpt("\n".join(ADD), "test_calc.py:9", "test_calc.test_add", "junit")
    assert found.line() == "E assert -1 == 5 (test_calc.py:9)"


def test_the_fail_to_pass_test_the_verdict_names_is_quoted_not_the_first_failure(session: tuple) -> None:
    tests, _ = session
    found = junit_excerpt(grader("test_calc.py::test_split"), tests)
    assert found == Excerpt("\n".join(SPLIT), "test_calc.py:13", "test_calc.test_split", "junit")
    assert found.headline == "E AssertionError: assert ('', '') is None"
    # a passing fail-to-pass test, then a failing pass-to-pass one: the pass-to-pass failure is the reason
    found = junit_excerpt(grader("test_calc.py::test_zero", pass_to_pass=("test_calc.py::test_boom",)), tests)
    assert found is not None and found.test == "test_calc.test_boom"


def test_an_exception_in_the_code_under_test_is_quoted_where_it_was_raised(session: tuple) -> None:
    tests, _ = session
    found = junit_excerpt(grader("test_boom"), tests)
    assert found == Excerpt(">       raise ValueError('bad value')\nE       ValueError: bad value", "calc.py:10",
                            "test_calc.test_boom", "junit")


def test_the_grader_s_output_gives_the_same_excerpt_without_a_report(session: tuple) -> None:
    _, output = session
    assert log_excerpt(output) == Excerpt("\n".join(ADD), "test_calc.py:9", "test_add", "grader.log")
    assert log_excerpt(output, "test_calc.py::test_split") == Excerpt("\n".join(SPLIT), "test_calc.py:13",
                                                                      "test_split", "grader.log")


def test_a_collection_error_and_other_graders_output(tmp_path: Path) -> None:
    _, output = pytest_session(tmp_path, {"calc.py": CALC, "test_imp.py": "from calc import gone\n\n\n"
                                                                          "def test_x():\n    assert gone()\n"})
    found = log_excerpt(output, "test_imp.py::test_x")
    assert found is not None and found.at == "test_imp.py:1" and found.test == ""
    assert found.text.startswith("E   ImportError: cannot import name 'gone' from 'calc'")
    # a grader that is not pytest: its first line naming an error; nothing at all: no excerpt
    assert log_excerpt("go test ./...\n--- FAIL: TestAdd (0.00s)\npanic: runtime error: index out of range\n") == \
        Excerpt("--- FAIL: TestAdd (0.00s)\npanic: runtime error: index out of range", "", "", "grader.log")
    assert log_excerpt("all good\n") is None


def test_an_excerpt_is_bounded(tmp_path: Path) -> None:
    flood = "def test_flood():\n    raise AssertionError('\\n'.join(['x' * 5000] * 100))\n"
    tests, output = pytest_session(tmp_path, {"test_flood.py": flood})
    for found in (junit_excerpt(grader(), tests), log_excerpt(output)):
        assert found is not None
        lines = found.text.splitlines()
        assert len(lines) == EXCERPT_LINES and all(len(line) <= LINE_CHARS for line in lines)
        assert lines[1].startswith("E       AssertionError: xxx")


def test_a_pass_with_unrelated_failures_lists_each_kind(session: tuple) -> None:
    tests, _ = session
    account = grader_tests(grader("test_calc.py::test_zero", "test_calc.py::test_gone",
                                  pass_to_pass=("test_calc.py::test_add",)), tests)
    assert account == GraderTests(1, 3, 0, (WantedTest("test_calc.py::test_zero", "passed"),
                                            WantedTest("test_calc.py::test_gone", "missing")),
                                  ("test_calc.py::test_add",), 0, ("test_calc.test_split", "test_calc.test_boom"), 0)
    assert grader_tests(grader(), ()) is None
    many = tuple(graderlib.TestOutcome(f"t.test_{n}", "failed") for n in range(LIST_LIMIT + 7))
    listed = grader_tests(grader(), many)
    assert listed is not None and len(listed.other_failed) == LIST_LIMIT and listed.other_failed_more == 7


def test_a_passing_grader_s_tests_are_not_quoted(tmp_path: Path, session: tuple) -> None:
    tests, output = session
    log = tmp_path / "grader.log"
    log.write_text(output)
    # every test the verdict names passed (a fail by the seal or an invariant): nothing to quote
    assert graded_excerpt(grader("test_calc.py::test_zero"), tests, log) is None
    # the fail-to-pass test did not run: the grader's output says why
    found = graded_excerpt(grader("test_calc.py::test_gone"), tests, log)
    assert found is not None and found.source == "grader.log"


def test_a_long_log_is_read_at_both_ends(tmp_path: Path) -> None:
    log = tmp_path / "grader.log"
    log.write_text("noise\n" * 200_000 + "=== FAILURES ===\n___ test_x ___\n>   assert f()\nE   assert False\n\n"
                   "t.py:3: AssertionError\n=== 1 failed ===\n")
    assert log_excerpt(read_log(log)) == Excerpt(">   assert f()\nE   assert False", "t.py:3", "test_x", "grader.log")
    assert read_log(tmp_path / "absent.log") == ""


def test_a_result_written_before_excerpts_gets_one_from_its_grader_log(tmp_path: Path, session: tuple) -> None:
    _, output = session
    (tmp_path / "grader.log").write_text(output)
    old = TrialResult(case_id="calc", variant="v", trial=1, outcome="fail", reason="grader exited 1",
                      case_fingerprint="c" * 64, started="2024-06-01T00:00:00+00:00", grader_outcome="fail")
    assert trial_excerpt(old, tmp_path) == Excerpt("\n".join(ADD), "test_calc.py:9", "test_add", "grader.log")
    kept = Excerpt("E   kept", "a.py:1", "t", "junit")
    assert trial_excerpt(replace(old, excerpt=kept), tmp_path) == kept
    for unquoted in (replace(old, outcome="pass", grader_outcome="pass"), replace(old, grader_outcome=None),
                     replace(old, grader_tests=GraderTests(passed=1))):
        assert trial_excerpt(unquoted, tmp_path) is None


def test_another_tool_s_junit_failure_is_its_message_and_line() -> None:
    report = (b'<testsuite name="go"><testcase classname="calc" name="TestAdd"><failure message="expected 5, got -1">'
              b"calc_test.go:12: expected 5, got -1</failure></testcase>"
              b'<testcase classname="calc" name="TestZero"/></testsuite>')
    tests = read_junit(report, "junit.xml")
    assert junit_excerpt(grader(), tests) == Excerpt("expected 5, got -1", "calc_test.go:12", "calc.TestAdd", "junit")
