"""One verify attempt as a job: a fresh workspace, setup, and one side's patch graded exactly as a trial grades a
patch, its logs in one folder that the executor publishes under verify's scratch root."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from corpus import StoredCase
from corpus.errors import HindcastError
from runner.executors.jobs import Node, harness_error
from runner.fixture.server import HTTP_LOG, http_fixture, in_phase
from runner.grading.frompatch import GradingSetup, grade_patch
from runner.grading.grader import TestOutcome
from runner.verify.keep import stage_logs
from runner.verify.measure import measuring_case
from runner.workspace.prepare import prepare

Side = Literal["baseline", "oracle"]
SIDES: tuple[Side, ...] = ("baseline", "oracle")


@dataclass(frozen=True)
class Attempt:
    """One baseline or oracle grading of a case."""

    side: Side
    """baseline (base + grader) or oracle (base + oracle patch + grader)."""
    repeat: int
    """1-based repeat number."""
    outcome: str
    """pass, fail or error (judged by the grader the verdict is about)."""
    reason: str
    """Why."""
    duration: float
    """Seconds for the whole attempt: workspace, setup and grading."""
    setup_duration: float = 0.0
    """Seconds of it spent preparing the workspace (interpreter environment and setup command)."""
    exit_code: int | None = None
    """The grader's exit code, when it ran."""
    logs: str | None = None
    """Where its setup log, grader log and JUnit report (and with --keep its workspace) were kept."""
    tests: tuple[TestOutcome, ...] = field(default=(), repr=False)
    """Per-test outcomes of its JUnit report."""
    env_cache: str = "off"
    """Whether its environment came from the cache: hit, miss (built now) or off."""
    invariants: tuple[tuple[str, str, int | None], ...] = ()
    """The oracle side: each of the case's invariants run after the grader, as (name, pass/fail/error, exit)."""
    resolution: str = ""
    """Its setup's resolution origin line (`runner.envs.resolution`): as of the fix's date or today's, and why."""


@dataclass(frozen=True, eq=False)
class AttemptJob:
    """One attempt as a job for an executor; its value is the Attempt (its logs where the executor published
    them: the caller says), its folder the attempt's logs."""

    stored: StoredCase
    """The case (or candidate) with its hidden files."""
    side: Side
    """Which patch is graded: none (baseline) or the oracle's."""
    repeat: int
    """1-based repeat number."""
    test_globs: tuple[str, ...]
    """The corpus's test-file globs."""
    keep: bool
    """Keep the attempt's workspace among its logs (--keep)."""
    target: Path
    """Where its logs are published (verify's scratch root, logs/<id>/<side>-<repeat>)."""

    @property
    def name(self) -> str:
        """`verify ID SIDE #REPEAT`."""
        return f"verify {self.stored.case.id} {self.side} #{self.repeat}"

    @property
    def what(self) -> str:
        """An attempt."""
        return "attempt"

    @property
    def commits(self) -> tuple[str, str]:
        """The case's base and fix commits."""
        return self.stored.case.base_commit, self.stored.case.fix_commit

    def run(self, node: Node, out: Path) -> Attempt | None:
        """One fresh workspace, setup, and the side's patch graded exactly as a trial grades a patch (sandboxed,
        restored, grader files written), by the grader running its test files whole; harness failures become an
        error attempt. Its logs are written into out for `conclude` to keep or drop; None when verify was
        interrupted meanwhile (nothing is published)."""
        stored, side = self.stored, self.side
        started = time.monotonic()
        scratch = Path(tempfile.mkdtemp(prefix=f"{stored.case.id}-", dir=node.scratch))
        case = measuring_case(stored.case)
        setup_duration, exit_code, env_state, resolution = 0.0, None, "off", ""
        tests: tuple[TestOutcome, ...] = ()
        invariants: tuple[tuple[str, str, int | None], ...] = ()
        try:
            node.step(self.name, "environment")
            assets = node.assets.get(stored)
            if isinstance(assets, HindcastError):
                raise assets
            setup_started = time.monotonic()
            try:
                prepared = prepare(stored.case, node.repo, scratch, pristine=assets.pristine,
                                   confinement=node.confinement, env_cache=node.env_cache, cancel=node.cancel,
                                   step=lambda step: node.step(self.name, step))
                env_state, resolution = prepared.env_cache, prepared.resolution
            finally:
                setup_duration = time.monotonic() - setup_started
            setup = GradingSetup(case, stored.files, assets.fix_config, assets.base_config, self.test_globs)
            patch = stored.files.oracle_patch if side == "oracle" else b""
            node.step(self.name, side)
            with http_fixture(stored.case, stored.files, scratch / HTTP_LOG) as fixture:
                env, loopback = in_phase(fixture, prepared.env, "grader")
                graded = grade_patch(setup, prepared.workspace, patch, env, node.confinement, scratch,
                                     scratch / "grader.log", env_binds=prepared.env_binds(), candidate=False,
                                     what=f"{side} patch", loopback=loopback, invariants=side == "oracle")
            invariants = tuple((i.name, i.status, i.exit_code) for i in graded.invariants)
            result = graded.result
            outcome, reason, exit_code, tests = result.outcome, result.reason, result.exit_code, result.tests
        except HindcastError as exc:
            outcome, reason = "error", exc.message
        except OSError as exc:
            harness_error(exc, out)
            outcome, reason = "error", f"harness: {exc.strerror or exc}"
        except Exception as exc:  # noqa: BLE001 - one attempt's harness failure is its case's error, not verify's end
            outcome, reason = "error", harness_error(exc, out)
        try:
            if node.cancel.is_set():  # interrupted: its processes were killed, what it measured means nothing
                return None
            stage_logs(scratch, out, case.grader.junit, self.keep)
        finally:
            node.discard(scratch)
        return Attempt(side, self.repeat, outcome, reason, time.monotonic() - started, setup_duration, exit_code,
                       None, tests, env_state, invariants, resolution)

    def failed(self, reason: str, seconds: float, out: Path) -> Attempt:
        """An attempt that could not be run (its worker lost too often, the harness broken there): an error."""
        return Attempt(self.side, self.repeat, "error", reason, seconds)
