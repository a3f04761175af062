"""The JUnit judge a Harbor task's test.sh runs after the grader command: prints 1 when the case passes, else 0.

Shipped as tests/judge.py beside test.sh, so it uses the standard library only (the task's image has Python, not
Hindcast). It decides as Hindcast grades an agent's patch (``runner.grading.grader``, agent mode): every
fail-to-pass test must have run and passed and no pass-to-pass test failed or gone missing; without fail-to-pass
ids at least one test ran, none failed, and the command exited 0. Whatever cannot be established (pytest exits 2-5,
a command that could not run, no readable report, a report that is a link, no test that ran) is 0.

Usage: ``python3 judge.py GRADER_JSON EXIT_CODE`` in the workspace; GRADER_JSON holds ``command``, ``junit``,
``fail_to_pass`` and ``pass_to_pass``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from xml.etree import ElementTree

PYTEST_WORD = re.compile(r"(?<![\w.-])(py\.test|pytest)(?![\w-])")
NO_RUN = (2, 3, 4, 5)
NOT_RUNNABLE = (126, 127)


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
    bare = got.split("[", 1)[0]
    return "[" not in want and (bare == want or bare.endswith("." + want))


def read_report(path: str) -> list[tuple[str, str]]:
    """(classname.name, passed | failed | skipped) of every test case; OSError or ParseError when unreadable."""
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise OSError(f"{path} is not a regular file")
    root = ElementTree.parse(path).getroot()
    tests = []
    for case in root.iter("testcase"):
        kinds = {child.tag for child in case}
        state = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
        classname, name = case.get("classname") or "", case.get("name") or ""
        tests.append((f"{classname}.{name}" if classname else name, state))
    return tests


def _ids(value: object) -> list[str]:
    return [str(i) for i in value] if isinstance(value, list) else []


def decide(grader: dict[str, object], exit_code: int, tests: list[tuple[str, str]]) -> bool:
    """True when the report's tests pass the grader's fail-to-pass and pass-to-pass ids."""
    ran = [t for t in tests if t[1] != "skipped"]
    if not ran:
        return False
    fail_to_pass = _ids(grader.get("fail_to_pass"))
    pass_to_pass = _ids(grader.get("pass_to_pass"))
    if not fail_to_pass:
        return exit_code == 0 and not any(state == "failed" for _, state in ran)
    for wanted in fail_to_pass:
        matches = [state for test_id, state in tests if matches_test_id(wanted, test_id)]
        if not matches or any(state != "passed" for state in matches):
            return False
    for kept in pass_to_pass:
        matches = [state for test_id, state in tests if matches_test_id(kept, test_id)]
        if not matches or "failed" in matches:
            return False
    return True


def judge(grader: dict[str, object], exit_code: int) -> bool:
    """The case's outcome from the finished grader command (in the workspace)."""
    command = str(grader.get("command") or "")
    if exit_code in NOT_RUNNABLE or (exit_code in NO_RUN and PYTEST_WORD.search(command)):
        return False
    try:
        tests = read_report(str(grader["junit"]))
    except (OSError, ElementTree.ParseError, KeyError):
        return False
    return decide(grader, exit_code, tests)


def main(argv: list[str]) -> int:
    """Print 1 or 0 for the grader in argv[1] that exited argv[2]."""
    try:
        with open(argv[1], encoding="utf-8") as handle:
            grader = json.load(handle)
        passed = judge(grader, int(argv[2]))
    except Exception:  # noqa: BLE001 - whatever goes wrong here is a failed case, never a pass
        passed = False
    print(1 if passed else 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
