"""Verify's measurements do not mislead: a fix's tests that skip everywhere are an ERROR (never "baseline passes"),
a base failure that does not repeat never becomes an expectation, and a missing interface is told from a bug by
the frame that raised."""

from __future__ import annotations

from pathlib import Path

from corpus.verdicts import candidate_verdict
from runner.settings import Settings
from runner.verify.measure import failure_kind
from runner.verify.verify import VerifyOptions, verify
from tests.runner.verify.builders import CALC_FIXED, PYTEST, TESTS_V1, build

UNSANDBOXED = Settings(sandbox="none")


def test_the_fix_s_tests_skipped_on_both_sides_are_an_error_with_the_skip_reason(tmp_path: Path) -> None:
    tests = TESTS_V1 + ("\n\nimport pytest\n\n\n@pytest.mark.skip(reason=\"needs the translation catalogues\")\n"
                        "def test_add():\n    assert add(2, 3) == 5\n")
    corpus, case = build(tmp_path, tests=tests)
    [verdict] = verify(corpus, VerifyOptions(kind="candidates", all_cases=True, settings=UNSANDBOXED)).verdicts
    assert verdict.verdict == "ERROR"
    assert verdict.reason == ("the fix's tests skipped on both sides (1): tests/test_calc.py::test_add: "
                              "needs the translation catalogues")
    assert verdict.measured is not None and verdict.measured.skipped == ("tests/test_calc.py::test_add",)
    record = candidate_verdict(corpus.root / "candidates" / case.id)
    assert record is not None and record.verdict == "ERROR" and record.skipped == ("tests/test_calc.py::test_add",)


def test_a_base_failure_that_does_not_repeat_is_unstable_and_never_expected(tmp_path: Path) -> None:
    counter = tmp_path / "base-runs"
    timing = (f"\n\nimport pathlib\n\n\ndef test_fast_enough():\n    runs = pathlib.Path({str(counter)!r})\n"
              "    seen = int(runs.read_text()) if runs.exists() else 0\n    runs.write_text(str(seen + 1))\n"
              "    assert seen != 0, 'took 1.3 ms, more than 1.1 ms'\n")
    tests = TESTS_V1 + "\n\ndef test_add():\n    assert add(2, 3) == 5\n" + timing
    corpus, case = build(tmp_path, tests=tests, command=f"{PYTEST} tests/test_calc.py",
                         fail_to_pass=("tests/test_calc.py::test_add", "tests/test_calc.py::test_fast_enough"))
    # One job: the first base run is the first to reach the timing test, the only one it fails.
    [verdict] = verify(corpus, VerifyOptions(kind="candidates", all_cases=True, settings=UNSANDBOXED)).verdicts
    assert verdict.verdict == "VALID", verdict.reason
    assert [a.side for a in verdict.attempts].count("baseline") == 2
    assert verdict.measured is not None
    assert verdict.measured.fail_to_pass == ("tests/test_calc.py::test_add",)
    assert verdict.measured.flaky == ("tests/test_calc.py::test_fast_enough",)
    stored = corpus.load(case.id, "candidates")
    assert "tests/test_calc.py::test_fast_enough" not in (*stored.case.grader.fail_to_pass,
                                                          *stored.case.grader.pass_to_pass)
    record = candidate_verdict(corpus.root / "candidates" / case.id)
    assert record is not None and record.unstable == ("tests/test_calc.py::test_fast_enough",)


WRAPPED_BUGGY = ("def _wrap(f):\n    def inner(*a, **k):\n        return f(*a, strict=True, **k)\n    return inner\n\n\n"
                 "@_wrap\ndef add(a, b):\n    return a + b\n")
WRAPPED_FIXED = ("def _wrap(f):\n    def inner(*a, **k):\n        return f(*a, **k)\n    return inner\n\n\n"
                 "@_wrap\ndef add(a, b):\n    return a + b\n")


def test_a_type_error_raised_inside_the_code_under_test_is_a_bug_not_a_missing_interface(tmp_path: Path) -> None:
    corpus, _ = build(tmp_path, source=WRAPPED_FIXED, base_source=WRAPPED_BUGGY)
    [verdict] = verify(corpus, VerifyOptions(kind="candidates", all_cases=True, settings=UNSANDBOXED)).verdicts
    assert (verdict.verdict, verdict.feature, verdict.mixed) == ("VALID", False, False), verdict.reason
    assert verdict.measured is not None and set(verdict.measured.failures.values()) == {"other"}


def test_some_tests_on_a_new_keyword_and_some_on_the_bug_are_mixed(tmp_path: Path) -> None:
    source = CALC_FIXED.replace("def add(a, b):", "def add(a, b, *, twice=False):").replace(
        "return a + b", "return (a + b) * (2 if twice else 1)")
    tests = TESTS_V1 + ("\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_twice():\n"
                        "    assert add(2, 3, twice=True) == 10\n")
    corpus, _ = build(tmp_path, source=source, tests=tests, command=f"{PYTEST} tests/test_calc.py",
                      fail_to_pass=("tests/test_calc.py::test_add", "tests/test_calc.py::test_twice"))
    [verdict] = verify(corpus, VerifyOptions(kind="candidates", all_cases=True, settings=UNSANDBOXED)).verdicts
    assert (verdict.verdict, verdict.feature, verdict.mixed) == ("VALID", False, True), verdict.reason
    assert verdict.reason.startswith("mixed: some tests fail at base for lack of the names or signatures")
    assert verdict.measured is not None and verdict.measured.failures == {
        "tests/test_calc.py::test_add": "assertion", "tests/test_calc.py::test_twice": "missing"}


def test_the_raising_frame_decides_the_kind() -> None:
    message = "TypeError: add() got an unexpected keyword argument 'strict'"
    assert failure_kind(message, "tests/test_calc.py", ["tests/test_calc.py"]) == "missing"
    assert failure_kind(message, "/workspace/tests/test_calc.py", ["tests/test_calc.py"]) == "missing"
    assert failure_kind(message, "calc.py", ["tests/test_calc.py"]) == "other"
    assert failure_kind("AttributeError: 'NoneType' object has no attribute 'total'", "shop/cart.py") == "other"
    assert failure_kind(message) == "missing"  # no frame named (a collection error): the message decides
