"""The grading phase of a trial: its candidate graded fail-closed on the fresh workspace, and what grading
established recorded (restorations, the seal, the grader's outcome, the scorecard) into the trial's outcome."""

from __future__ import annotations

import time

from runner.fixture.server import in_phase
from runner.grading.assets import CaseAssets
from runner.grading.excerpt import explained
from runner.grading.failclosed import RestoreAction
from runner.grading.frompatch import GradingSetup, grade_patch
from runner.grading.grader import GradeResult
from runner.grading.invariants import outcome_with_invariants
from runner.runs.result import Outcome
from runner.scorecard.card import score_trial
from runner.trial.state import TrialState
from runner.workspace.prepare import Prepared


def grade(trial: TrialState, assets: CaseAssets, prepared: Prepared, patch: bytes,
          changed: list[str] | None) -> tuple[Outcome, str]:
    """Grade patch in prepared's workspace (changed: the paths it touches, None when not yet known); the trial's
    outcome and its reason."""
    spec, ctx, node = trial.spec, trial.ctx, trial.node
    clock = time.monotonic()
    try:
        setup = GradingSetup(trial.case, spec.stored.files, assets.fix_config, assets.base_config,
                             ctx.test_globs, ctx.tampering)
        env, loopback = in_phase(trial.fixture, prepared.env, "grader")
        graded = grade_patch(setup, prepared.workspace, patch, env, node.confinement, trial.scratch,
                             trial.staging / "grader.log", env_binds=prepared.env_binds(),
                             candidate=spec.mode in ("agent", "regrade"),
                             what="oracle patch" if spec.mode == "oracle" else "candidate patch",
                             touched=changed, loopback=loopback, invariants=True)
    finally:
        trial.durations["grader"] = round(time.monotonic() - clock, 3)
    trial.check()
    if changed is None:
        trial.record_changes(list(graded.touched))
    _record_restoration(trial, graded.restored)
    trial.flags.extend(flag for flag in graded.flags if flag not in trial.flags)
    if graded.seal is not None and (graded.seal.events or graded.static or graded.seal.disagreement):
        trial.facts["seal"] = {**graded.seal.to_dict(),
                               "static": [{"path": h.path, "flag": h.flag, "reason": h.reason}
                                          for h in graded.static]}
    result = graded.result
    trial.facts.update(grader_outcome=result.outcome, grader_reason=result.reason,
                       grader_exit_code=result.exit_code, **explained(trial.case.grader, result,
                                                                       trial.staging / "grader.log"))
    trial.facts["scorecard"] = score_trial(trial.case, spec.stored.files, patch, assets.pristine, graded,
                                           ctx.test_globs)
    return _decide(trial, outcome_with_invariants(trial.case, result, graded.invariants))


def _record_restoration(trial: TrialState, restored: tuple[RestoreAction, ...]) -> None:
    trial.facts["restored"] = tuple({"path": a.path, "action": a.action, "cause": a.cause, "kind": a.kind}
                                    for a in restored)
    for kind, cause, flag in (("config", "edited", "edited_test_config"), ("config", "added", "added_test_config"),
                              ("shadow", "added", "shadowing_module"), ("metadata", None, "package_metadata")):
        if any(a.kind == kind and (cause is None or a.cause == cause) for a in restored):
            trial.flags.append(flag)


def _decide(trial: TrialState, graded: GradeResult) -> tuple[Outcome, str]:
    if trial.facts.get("agent_timed_out"):
        return "fail", (f"agent timed out after {trial.ctx.agent_timeout:g}s "
                        f"(partial work graded: {graded.outcome}: {graded.reason})")
    return graded.outcome, graded.reason
