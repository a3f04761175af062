"""Grading from the patch alone: the candidate patch on a fresh workspace, the restoration, the grader sandboxed."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from corpus.errors import WorkspaceError
from corpus.gitutil import run_git
from corpus.model import Case, CaseFiles, TamperingPolicy
from corpus.testfiles import matcher_for_tests
from runner.grading.failclosed import (
    FixConfig,
    RestoreAction,
    is_test_config,
    needs_before,
    restore_for_grading,
)
from runner.grading.grader import PYTEST_WORD, GradeResult, judge, materialize_grader
from runner.grading.invariants import INVARIANTS_LOG, InvariantResult, run_invariants
from runner.grading.scan import StaticHint, static_hints
from runner.grading.seal import Seal, SealReport
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
    tampering: TamperingPolicy = "fail"
    """What observed tampering with the grader does to a candidate: fail the trial, or only flag it (corpus.yaml's
    `grader_tampering`)."""


@dataclass(frozen=True)
class Graded:
    """The grader's outcome on a patch and what was put back first."""

    result: GradeResult
    """pass, fail or error, with the grader's facts."""
    restored: tuple[RestoreAction, ...]
    """Paths set back before grading."""
    touched: tuple[str, ...] = ()
    """Every path the patch touches."""
    static: tuple[StaticHint, ...] = ()
    """What the candidate's added source lines say (`runner.grading.scan`): a hint, never the verdict."""
    invariants: tuple[InvariantResult, ...] = ()
    """The case's invariants, run after the grader (none unless grade_patch was asked to run them)."""
    seal: SealReport | None = None
    """What the seal saw while the grader ran (`runner.grading.seal`)."""

    @property
    def flags(self) -> tuple[str, ...]:
        """The result flags of the static scan and the seal."""
        flags = sorted({hint.flag for hint in self.static if hint.flag != "binary_file"})
        return (*flags, *(self.seal.flags if self.seal else ()))


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
    reset = {a.path for a in restored}
    protected = {*grader_paths, *setup.base_config, *(p for p, _ in setup.fix_config.files)}
    sources = [p for p in touched if p not in reset and p not in protected] if candidate else []
    seal = Seal(scratch, workspace, sandboxed=conf.sandboxed, candidate=sources,
                hidden=[p for p, _ in setup.files.grader_files], protected=protected, junit=case.grader.junit)
    try:
        sealed_env = seal.env(env)
        sandbox = phase_sandbox(conf, "grader", scratch, workspace=workspace, env=sealed_env,
                                extra=(*env_binds, *seal.binds()), loopback=loopback,
                                grader_network=case.grader.network)
        ran = run_command(case.grader.command, workspace, sealed_env, case.grader.timeout, log_path,
                          sandbox=sandbox, max_output_bytes=GRADER_LOG_LIMIT, inherit_fds=(seal.write_fd,))
    finally:
        seal.close()
    result = judge(case.grader, ran, workspace, log_head(log_path))
    if candidate and result.outcome == "error" and not ran.start_error:
        result = replace(result, outcome="fail", reason=f"{result.reason}, with the candidate's code")
    report = seal.report(ran, result.tests, result.outcome == "pass",
                         expected=candidate and bool(PYTEST_WORD.search(case.grader.command)))
    result = sealed_outcome(result, report, candidate, setup.tampering)
    hints = tuple(static_hints(workspace, sources, lambda p: not is_test(p) and not is_test_config(p)))
    checks: tuple[InvariantResult, ...] = ()
    if invariants and case.invariants and not ran.start_error:
        plain = phase_sandbox(conf, "grader", scratch, workspace=workspace, env=env, extra=env_binds,
                              loopback=loopback, grader_network=case.grader.network)
        checks = run_invariants(case.invariants, workspace, env, plain, log_path.with_name(INVARIANTS_LOG), scratch)
    return Graded(result, restored, tuple(touched), hints, checks, report)


def sealed_outcome(result: GradeResult, report: SealReport, candidate: bool,
                   policy: TamperingPolicy) -> GradeResult:
    """The grader's outcome after what the seal saw: a candidate's tampering with the grader is a fail (unless
    the corpus only flags it); a pass whose report, pytest's account and exit status disagree is a fail for a
    candidate and an error otherwise (the case's grader cannot be trusted)."""
    tampering = report.tampering
    if candidate and tampering and policy == "fail" and result.outcome != "error":
        first = tampering[0]
        where = f" at {first.where}" if first.where else ""
        return replace(result, outcome="fail", reason=f"grader tampering: {first.kind}: {first.detail}{where}")
    if report.disagreement and result.outcome == "pass":
        return replace(result, outcome="fail" if candidate else "error",
                       reason=f"the grader's accounts disagree: {report.disagreement}")
    return result


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
