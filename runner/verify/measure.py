"""What verify measures: the grader's test files run whole at base and with the oracle, read test by test.

fail_to_pass are the tests that fail (or error) at base and pass with the oracle, pass_to_pass the tests that pass
on both sides; each fail-to-pass test's base failure is classified (`assertion`, `missing`, `other`), and a case
whose base fails only the `missing` way is a `feature`: its prompt must name the new interface.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from corpus.model import Case, Grader
from corpus.testfiles import matcher_for_tests
from runner.grading.grader import TestOutcome, matches_test_id, normalize_test_id

FailureKind = Literal["assertion", "missing", "other"]

SHELL_WORDS = frozenset({"&&", "||", ";", "|", "&", "(", ")", ">", ">>", "<", "2>", "2>&1"})
MISSING = (
    re.compile(r"^(ImportError|ModuleNotFoundError)\b"),
    re.compile(r"\bcannot import name\b"),
    re.compile(r"^AttributeError\b.*\bhas no attribute\b"),
    re.compile(r"^NameError\b.*\bis not defined\b"),
    re.compile(r"^TypeError\b.*(unexpected keyword argument|positional argument|required (keyword-only |positional )?"
               r"argument|takes (no|\d+) (keyword )?arguments?|takes from \d+ to \d+)"),
)
"""Exception lines saying the code under test lacks a name or a signature the test uses."""
ASSERTION = re.compile(r"^(assert\b|AssertionError\b)")


@dataclass(frozen=True)
class Measured:
    """The tests as measured on both sides, and the grader that requires them."""

    fail_to_pass: tuple[str, ...]
    """Tests that failed or errored at base in every repeat and passed with the oracle in every repeat."""
    pass_to_pass: tuple[str, ...]
    """Tests that passed on both sides in every repeat."""
    failures: dict[str, FailureKind] = field(default_factory=dict)
    """How each fail-to-pass test fails at base."""
    flaky: tuple[str, ...] = ()
    """Tests whose outcome on one side differed across repeats (left out of both lists: unstable)."""
    command: str = ""
    """The command that ran the grader's test files whole (the measured grader's command)."""
    skipped: tuple[str, ...] = ()
    """The fix's tests (those the grader named; every test when it named none) skipped in every run of both
    sides: measured on neither."""
    skip_reason: str = ""
    """The first of those skips' reason."""

    @property
    def feature(self) -> bool:
        """True when the base fails only because it lacks the names or signatures the tests use."""
        return bool(self.fail_to_pass) and all(kind == "missing" for kind in self.failures.values())

    @property
    def mixed(self) -> bool:
        """True when some fail-to-pass tests fail at base for lack of an interface and others do not."""
        kinds = set(self.failures.values())
        return "missing" in kinds and len(kinds) > 1

    def grader(self, grader: Grader) -> Grader:
        """grader with the measured command and lists."""
        return replace(grader, command=self.command, fail_to_pass=self.fail_to_pass, pass_to_pass=self.pass_to_pass)


def measuring_command(grader: Grader) -> str:
    """The grader command running its test files whole: a single pytest command's node ids (`path.py::test`)
    become their files; any other command runs as it is."""
    command = grader.command
    if grader.junit is None or "::" not in command or "pytest" not in command:
        return command
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if any(word in SHELL_WORDS for word in words):
        return command
    out: list[str] = []
    for word in words:
        path, sep, _ = word.partition("::")
        target = path if sep and path.endswith(".py") else word
        if target not in out:
            out.append(target)
    return shlex.join(out)


def measuring_case(case: Case) -> Case:
    """The case with its grader running the test files whole and requiring no particular test."""
    grader = replace(case.grader, command=measuring_command(case.grader), fail_to_pass=(), pass_to_pass=())
    return replace(case, grader=grader)


def failure_kind(message: str, raised_in: str = "", grader_paths: Sequence[str] = ()) -> FailureKind:
    """How a test failed, from its JUnit failure message and exception line, and the file of the frame that
    raised: a missing name or signature is the test's own call failing (raised in a test file, or at
    collection); the same error raised inside the code under test is a bug there, not a missing interface."""
    parts = [part.strip() for part in message.split(" | ") if part.strip()]
    if any(pattern.search(part) for part in parts for pattern in MISSING):
        return "missing" if not raised_in or _is_test_path(raised_in, grader_paths) else "other"
    if any(ASSERTION.search(part) for part in parts):
        return "assertion"
    return "other"


def _is_test_path(path: str, grader_paths: Sequence[str]) -> bool:
    """Whether a traceback's file is one of the tests' (a grader file, or a test file by the built-in rules);
    absolute paths are the workspace's when they end in a grader file."""
    path = path.removeprefix("./")
    if path in grader_paths or any(path.endswith("/" + g) for g in grader_paths):
        return True
    return not path.startswith("/") and matcher_for_tests(())(path)


def collection_failures(tests: Sequence[TestOutcome]) -> list[TestOutcome]:
    """The JUnit entries pytest writes for a module it could not collect (no class, the module as the name)."""
    return [t for t in tests if t.outcome == "failed" and t.message.startswith("collection failure")]


def missing_collection(tests: Sequence[TestOutcome], grader_paths: Sequence[str]) -> bool:
    """True when every collection error is in one of the grader's own test files and says a name is missing:
    a base that lacks what the new tests import, a real base failure (pytest exit 2)."""
    failures = collection_failures(tests)
    modules = {_module(path) for path in grader_paths if path.endswith(".py")}
    return bool(failures) and all(
        failure_kind(t.message) == "missing" and any(_same_module(t.test_id, m) for m in modules) for t in failures)


def measure(base: Sequence[Sequence[TestOutcome]], oracle: Sequence[Sequence[TestOutcome]], command: str,
            grader_paths: Sequence[str], named: Sequence[str] = ()) -> Measured:
    """fail_to_pass and pass_to_pass from every repeat's reports of each side (node ids where the grader files
    name the module, else the report's dotted ids), and the tests of named (the fix's; every test when empty)
    that skipped everywhere."""
    oracle_states = _states(oracle)
    base_states = _states(base)
    uncollected = [t for run in base for t in collection_failures(run)]
    f2p: dict[str, FailureKind] = {}
    p2p: list[str] = []
    flaky: list[str] = []
    for test_id, states in oracle_states.items():
        if len(states) > 1:
            flaky.append(test_id)
            continue
        if states != {"passed"} or len(_runs(oracle, test_id)) != len(oracle):
            continue
        at_base = base_states.get(test_id)
        if at_base is None:
            lost = [t for t in uncollected if _in_module(test_id, t.test_id)]
            if lost and len(lost) == len(base):
                f2p[test_id] = failure_kind(lost[0].message, lost[0].raised_in, grader_paths)
            continue
        if len(at_base) > 1 or len(_runs(base, test_id)) != len(base):
            flaky.append(test_id)
        elif at_base == {"failed"}:
            failed = [t for run in base for t in run if t.test_id == test_id]
            kinds = {failure_kind(t.message, t.raised_in, grader_paths) for t in failed}
            f2p[test_id] = kinds.pop() if len(kinds) == 1 else "other"
        elif at_base == {"passed"}:
            p2p.append(test_id)
    skips = _skipped_everywhere([*base, *oracle], named)
    paths = [*grader_paths, *_command_paths(command)]  # a helper's users are named by the command only
    ids = {test_id: node_id(test_id, paths) for test_id in [*f2p, *p2p, *flaky, *skips]}
    return Measured(tuple(sorted(ids[t] for t in f2p)), tuple(sorted(ids[t] for t in p2p)),
                    {ids[t]: kind for t, kind in sorted(f2p.items())}, tuple(sorted(ids[t] for t in flaky)), command,
                    tuple(sorted(ids[t] for t in skips)), next(iter(skips.values()), ""))


def _command_paths(command: str) -> list[str]:
    """The Python files a command names (its words ending in .py, before any ::)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    return [path for word in words if (path := word.partition("::")[0]).endswith(".py")]


def _skipped_everywhere(runs: Sequence[Sequence[TestOutcome]], named: Sequence[str]) -> dict[str, str]:
    """The tests (of named, when given) that every run reported skipped, with their first skip reason."""
    skipped: dict[str, str] = {}
    ran: set[str] = set()
    for run in runs:
        for test in run:
            if test.outcome == "skipped":
                skipped.setdefault(test.test_id, test.message)
            else:
                ran.add(test.test_id)
    everywhere = {t: reason for t, reason in skipped.items() if t not in ran
                  and all(any(x.test_id == t for x in run) for run in runs)}
    if named:
        everywhere = {t: reason for t, reason in everywhere.items() if any(matches_test_id(n, t) for n in named)}
    return everywhere


def node_id(reported: str, grader_paths: Sequence[str]) -> str:
    """A JUnit id (`tests.test_a.TestK.test_x`) as a pytest node id (`tests/test_a.py::TestK::test_x`) when one
    of the grader files is its module and the grader's matcher maps the node id back to it; else as reported."""
    for path in sorted(grader_paths, key=len, reverse=True):
        if not path.endswith(".py"):
            continue
        module = _module(path)
        if reported.startswith(module + "."):
            rest = reported[len(module) + 1:]
            head, bracket, params = rest.partition("[")
            candidate = "::".join([path, *head.split(".")]) + bracket + params
            if normalize_test_id(candidate) == reported and matches_test_id(candidate, reported):
                return candidate
    return reported


def _states(runs: Sequence[Sequence[TestOutcome]]) -> dict[str, set[str]]:
    states: dict[str, set[str]] = {}
    for run in runs:
        for test in run:
            if test.outcome != "skipped" and not test.message.startswith("collection failure"):
                states.setdefault(test.test_id, set()).add(test.outcome)
    return states


def _runs(runs: Sequence[Sequence[TestOutcome]], test_id: str) -> list[int]:
    return [i for i, run in enumerate(runs) if any(t.test_id == test_id for t in run)]


def _module(path: str) -> str:
    return normalize_test_id(f"{path}::x").rsplit(".", 1)[0]


def _same_module(reported_module: str, module: str) -> bool:
    """pytest names an uncollected module by its dotted path from its rootdir: the file's path, or its tail."""
    return reported_module == module or module.endswith("." + reported_module)


def _in_module(test_id: str, reported_module: str) -> bool:
    return test_id.startswith(reported_module + ".")
