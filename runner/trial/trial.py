"""One trial as a job: a fresh workspace, its candidate (per mode), fail-closed grading, the evidence in one folder
that the executor publishes."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from corpus import case_fingerprint
from corpus.errors import HindcastError
from corpus.fsutil import writing
from runner.behaviour.trial import record_behaviour
from runner.executors.jobs import Node, harness_error
from runner.fixture.server import HTTP_LOG, http_fixture
from runner.grading.assets import CaseAssets
from runner.runs.result import RESULT_FILE, Durations, Outcome, TrialResult
from runner.trial.attempt import attempt
from runner.trial.given import given_patch
from runner.trial.grade import grade
from runner.trial.spec import TrialContext, TrialSpec
from runner.trial.state import GRADING_DIR, Cancelled, Oversized, TrialState, Unrecordable
from runner.workspace.prepare import prepare, unfilled
from runner.workspace.workspace import copy_workspace


@dataclass(frozen=True)
class TrialJob:
    """One trial as a job for an executor: run on a node (this machine or a Ray worker) into a folder, which the
    executor publishes as the trial's folder in the run directory."""

    spec: TrialSpec
    """Which trial and how its candidate is produced."""
    ctx: TrialContext
    """What every trial of the run shares."""
    target: Path
    """The trial's folder in the run directory."""

    @property
    def name(self) -> str:
        """`variant::case #trial`."""
        return f"{self.spec.variant}::{self.spec.stored.case.id} #{self.spec.trial}"

    @property
    def what(self) -> str:
        """A trial."""
        return "trial"

    @property
    def commits(self) -> tuple[str, str]:
        """The case's base and fix commits."""
        return self.spec.stored.case.base_commit, self.spec.stored.case.fix_commit

    def run(self, node: Node, out: Path) -> TrialResult | None:
        """Run the trial on node, its evidence and result.json written into out; None when the run was cancelled
        meanwhile."""
        spec, ctx, target = self.spec, self.ctx, self.target
        scratch = Path(tempfile.mkdtemp(prefix=f"hindcast-{spec.stored.case.id}-", dir=node.scratch))
        try:
            with writing(target):  # a full disk: the run stops with one error naming the trial's folder
                trial = _Trial(spec, ctx, node, out, scratch)
            result = trial.run(node.assets.get(spec.stored))
            if node.cancel.is_set():
                raise Cancelled
            with writing(target):
                result = record_behaviour(out, result, spec.transcript_format, spec.stored.case, ctx.prices,
                                          spec.model)
                (out / RESULT_FILE).write_text(result.to_json(), encoding="utf-8")
            return result
        except Cancelled:
            return None
        finally:
            if not ctx.keep:
                node.discard(scratch)

    def failed(self, reason: str, seconds: float, out: Path) -> TrialResult:
        """A trial that could not be run (its worker lost too often, the harness broken there): an error."""
        spec, case = self.spec, self.spec.stored.case
        result = TrialResult(case_id=case.id, variant=spec.variant, trial=spec.trial, outcome="error",
                             reason=reason, started=datetime.now(UTC).isoformat(timespec="seconds"),
                             case_fingerprint=case_fingerprint(case, spec.stored.files),
                             durations=Durations(total=round(seconds, 3)), mode=spec.mode, wording=spec.wording)
        (out / "transcript.log").write_text(f"[hindcast: {reason}]\n")
        (out / RESULT_FILE).write_text(result.to_json(), encoding="utf-8")
        return result


def seed_grading(assets: CaseAssets, scratch: Path) -> Future[Path]:
    """Without a setup command the grading workspace is a copy of the pristine checkout: made from the trial's
    start, beside the agent's own copy, the agent and the recording, out of the agent's sight (a thread of its own,
    gone with the trial: no idle thread outlives a run in the process)."""
    background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hindcast-grading-workspace")
    seeded = background.submit(copy_workspace, assets.pristine, scratch / GRADING_DIR)
    background.shutdown(wait=False)
    return seeded


class _Trial(TrialState):
    """The steps of one trial in their order: setup, the candidate (the agent's phase or a given patch), grading."""

    def run(self, assets: CaseAssets | HindcastError) -> TrialResult:
        started = datetime.now(UTC).isoformat(timespec="seconds")
        clock = time.monotonic()
        try:
            with self._http_fixture():
                outcome, reason = self._steps(assets)
        except HindcastError as exc:
            outcome, reason = "error", exc.message
        except OSError as exc:
            harness_error(exc, self.staging)
            outcome, reason = "error", f"harness: {exc.strerror or exc}"
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - one trial's harness failure must not end the run
            outcome, reason = "error", harness_error(exc, self.staging)
        self.durations["total"] = round(time.monotonic() - clock, 3)
        return TrialResult(
            case_id=self.case.id, variant=self.spec.variant, trial=self.spec.trial, outcome=outcome,
            reason=reason, case_fingerprint=case_fingerprint(self.case, self.spec.stored.files), started=started,
            durations=Durations(**self.durations), mode=self.spec.mode, flags=tuple(self.flags),
            kept=str(self.scratch) if self.ctx.keep else None, wording=self.spec.wording, **self.facts)

    @contextmanager
    def _http_fixture(self) -> Iterator[None]:
        """The case's HTTP fixture for the whole trial; its requests are recorded in http.json at the end."""
        with http_fixture(self.case, self.spec.stored.files, self.staging / HTTP_LOG) as self.fixture:
            yield

    def _steps(self, assets: CaseAssets | HindcastError) -> tuple[Outcome, str]:
        self.write_prompt()
        if isinstance(assets, HindcastError):
            raise assets
        seeded = (seed_grading(assets, self.scratch) if self.spec.mode == "agent" and not self.case.setup.command
                  else None)
        try:
            return self._graded_steps(assets, seeded)
        finally:
            if seeded is not None:  # never a copy still writing into a scratch directory being removed
                wait([seeded])

    def _graded_steps(self, assets: CaseAssets, seeded: Future[Path] | None) -> tuple[Outcome, str]:
        spec, node = self.spec, self.node
        clock = time.monotonic()
        # Nothing to set up: the agent's workspace is copied while its sandbox starts (attempt), not before.
        bare = unfilled(self.case, self.scratch) if seeded is not None else None
        try:
            prepared = bare or prepare(self.case, node.repo, self.scratch, pristine=assets.pristine,
                                       confinement=node.confinement, env_cache=node.env_cache, cancel=node.cancel)
        finally:
            self.durations["setup"] = round(time.monotonic() - clock, 3)
        self.facts["env_cache"] = prepared.env_cache
        self.facts["resolution"] = prepared.resolution or None
        self.check()
        clock = time.monotonic()
        changed: list[str] | None = None
        try:
            if spec.mode == "agent":
                patch, changed, failure = attempt(self, prepared, assets, seeded, fill=bare is not None)
            else:
                patch, failure = given_patch(self)
        except Unrecordable as exc:
            (self.staging / "grader.log").write_text(f"[hindcast: not graded: {exc}]\n")
            return "fail", f"the workspace the agent left cannot be recorded as a patch: {exc}"
        except Oversized as exc:
            (self.staging / "grader.log").write_text(f"[hindcast: not graded: {exc}]\n")
            self.flags.append("over_limit")
            return "fail", str(exc)
        finally:
            self.durations["agent"] = round(time.monotonic() - clock, 3)
        if failure:
            (self.staging / "grader.log").write_text(f"[hindcast: not graded: {failure}]\n")
            return "error", failure
        self.check()
        return grade(self, assets, prepared, patch, changed)
