"""Grading from the patch alone: the candidate patch on a fresh workspace, the restoration, the grader sandboxed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from corpus.errors import WorkspaceError
from corpus.gitutil import run_git
from corpus.model import Case, CaseFiles
from corpus.testfiles import matcher_for_tests
from runner.grading.failclosed import (
    FixConfig,
    RestoreAction,
    is_test_config,
    needs_before,
    restore_for_grading,
)
from runner.grading.grader import GradeResult, judge, materialize_grader
from runner.grading.invariants import INVARIANTS_LOG, InvariantResult, run_invariants
from runner.process import run_command
from runner.sandbox.bwrap import Bind
from runner.sandbox.confine import Confinement, phase_sandbox
from runner.sandbox.loopback import Loopback
from runner.workspace.inside import read_inside

IMPORTABLE_PROBE = """\
import sys
sys.path = [p for p in sys.path if p not in ('', '.')]
found = []
for name in sys.argv[1:]:
    if name in sys.builtin_module_names or name in getattr(sys, 'stdlib_module_names', ()):
        found.append(name)
        continue
    try:
        import importlib.util
        spec = importlib.util.find_spec(name)
    except ImportError:
        import imp
        try:
            spec = imp.find_module(name)
        except ImportError:
            spec = None
    except Exception:
        spec = None
    if spec is not None:
        found.append(name)
print(' '.join(found))
"""


GRADER_LOG_LIMIT = 10 * 1024 * 1024
"""Bytes of grader output kept in grader.log (the candidate's code decides how much it prints)."""


class CandidateError(WorkspaceError):
    """The candidate patch cannot be put on a clean checkout of the base."""


@dataclass(frozen=True)
class GradingSetup:
    """What grading one case needs besides the patch, the same for every trial of the case."""

    case: Case
    """The case."""
    files: CaseFiles
    """Its hidden files (grader files)."""
    fix_config: FixConfig
    """Test configuration files at the fix commit."""
    base_config: frozenset[str]
    """Test configuration paths of the base tree."""
    test_globs: tuple[str, ...] = ()
    """The corpus's test-file globs (built-in rules when empty)."""


@dataclass(frozen=True)
class Graded:
    """The grader's outcome on a patch and what was put back first."""

    result: GradeResult
    """pass, fail or error, with the grader's facts."""
    restored: tuple[RestoreAction, ...]
    """Paths set back before grading."""
    touched: tuple[str, ...] = ()
    """Every path the patch touches."""
    test_aware: tuple[str, ...] = ()
    """A candidate's source files whose added lines name the test framework (`test_aware_paths`)."""
    invariants: tuple[InvariantResult, ...] = ()
    """The case's invariants, run after the grader (none unless grade_patch was asked to run them)."""


TEST_AWARE = re.compile(rb"\b(pytest|_pytest|PYTEST_\w*|unittest|conftest|sys\.modules|JEST_WORKER_ID|VITEST\w*)\b")
"""Words a source line says when it looks at the test framework rather than doing its job."""


def test_aware_paths(patch: bytes, is_test: Callable[[str], bool]) -> list[str]:
    """Files outside the tests whose added lines name the test framework (`"pytest" in sys.modules`, a plugin
    registered from the code under test): a real source edit that may hold only while the tests run."""
    found, path = [], None
    for line in patch.splitlines():
        if line.startswith(b"diff --git "):
            path = None
        elif line.startswith(b"+++ "):
            name = line[4:].decode("utf-8", "surrogateescape")
            path = name[2:] if name.startswith("b/") else None
            if path is not None and (is_test(path) or is_test_config(path)):
                path = None
        elif path is not None and line.startswith(b"+") and TEST_AWARE.search(line):
            found.append(path)
            path = None
    return found


def patch_paths(workspace: Path, patch: bytes, what: str = "candidate patch") -> list[str]:
    """Every path a binary git patch touches (without applying it); CandidateError when git cannot read it."""
    if not patch.strip():
        return []
    proc = run_git(["apply", "--numstat", "-z", "-"], workspace, input=patch, check=False)
    if proc.returncode != 0:
        raise CandidateError(f"{what} is not a readable patch: {_first_line(proc.stderr)}")
    paths = []
    for record in proc.stdout.split(b"\0"):
        fields = record.split(b"\t", 2)
        if len(fields) == 3 and fields[2]:
            paths.append(fields[2].decode("utf-8", "surrogateescape"))
    return paths


def grade_patch(setup: GradingSetup, workspace: Path, patch: bytes, env: Mapping[str, str], conf: Confinement,
                scratch: Path, log_path: Path, *, env_binds: tuple[Bind, ...] = (),
                candidate: bool = True, what: str = "candidate patch",
                touched: Sequence[str] | None = None, loopback: Loopback | None = None,
                invariants: bool = False) -> Graded:
    """Apply patch to the fresh workspace, restore, write the grader files, run the grader and judge it.

    candidate: the patch is an agent's (agent and regrade modes). A patch that does not apply, and a grader
    that times out, is not runnable or leaves no readable report, are then the candidate's doing: a fail.
    what names the patch in reasons (the oracle patch, a saved patch); touched, the patch's paths when the caller
    has them already (a snapshot's diff); loopback, the case's HTTP fixture's port inside the sandbox. Errors stay
    for what the harness could not do (start the grader, set up the sandbox).
    invariants: run the case's invariants after the grader, in its sandbox and environment (output in
    invariants.log beside log_path).
    """
    case = setup.case
    is_test = matcher_for_tests(setup.test_globs)
    if touched is None:
        try:
            touched = patch_paths(workspace, patch, what)
        except CandidateError as exc:
            return _unapplied(exc, candidate)
    root_before = frozenset(os.listdir(workspace))
    saved = {p: read_inside(workspace, p) for p in touched if needs_before(p, is_test)}
    if patch.strip():
        proc = run_git(["apply", "--binary", "--whitespace=nowarn", "-"], workspace, input=patch, check=False)
        if proc.returncode != 0:
            return _unapplied(CandidateError(f"{what} does not apply to the base: "
                                             f"{_first_line(proc.stderr)}"), candidate, touched)
    grader_paths = [p for p, _ in setup.files.grader_files] + list(case.grader.deleted)
    restored = restore_for_grading(workspace, touched, saved.get, setup.fix_config, setup.base_config,
                                   grader_paths, setup.test_globs, root_before,
                                   lambda names: importable(names, env))
    materialize_grader(case, setup.files, workspace)
    sandbox = phase_sandbox(conf, "grader", scratch, workspace=workspace, env=env, extra=env_binds,
                            loopback=loopback, grader_network=case.grader.network)
    ran = run_command(case.grader.command, workspace, dict(env), case.grader.timeout, log_path, sandbox=sandbox,
                      max_output_bytes=GRADER_LOG_LIMIT)
    result = judge(case.grader, ran, workspace, log_head(log_path))
    if candidate and result.outcome == "error" and not ran.start_error:
        result = replace(result, outcome="fail", reason=f"{result.reason}, with the candidate's code")
    aware = tuple(test_aware_paths(patch, is_test)) if candidate else ()
    checks = run_invariants(case.invariants, workspace, env, sandbox, log_path.with_name(INVARIANTS_LOG),
                            scratch) if invariants and case.invariants and not ran.start_error else ()
    return Graded(result, restored, tuple(touched), aware, checks)


def log_head(log_path: Path, limit: int = 64 * 1024) -> str | None:
    """The start of a grader log, where pytest prints its first error (None when there is no log)."""
    try:
        with open(log_path, "rb") as log:
            return log.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def _unapplied(exc: CandidateError, candidate: bool, touched: Sequence[str] = ()) -> Graded:
    result = GradeResult("fail" if candidate else "error", exc.message, None, 0.0, "")
    return Graded(result, (), tuple(touched))


def importable(names: list[str], env: Mapping[str, str]) -> set[str]:
    """Which top-level module names the environment's Python finds without the workspace (none without one)."""
    python = shutil.which("python3", path=env.get("PATH")) or shutil.which("python", path=env.get("PATH"))
    if python is None or not names:
        return set()
    try:
        proc = subprocess.run([python, "-E", "-s", "-c", IMPORTABLE_PROBE, *names], capture_output=True,
                              env=dict(env), cwd="/", timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return set(proc.stdout.decode("utf-8", "replace").split()) & set(names)


def _first_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else "git apply failed"
