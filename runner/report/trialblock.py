"""`runner report RUN --trial VARIANT/CASE/N`: one trial's block and its JSON entry."""

from __future__ import annotations

from typing import Any

from runner.report.failure import excerpt_block, trial_failure, trial_files
from runner.report.report import trial_score
from runner.report.scorecards import find_trial
from runner.runs.load import LoadedRun


def trial_report(run: LoadedRun, spec: str) -> list[str]:
    """The block of the trial VARIANT/CASE/N (``runner report RUN --trial``): its scorecard's block, the failure
    excerpt, the JUnit report's per-test lists and the trial's files; UsageError naming --trial when the run has
    no such trial."""
    result = find_trial(run.trials, spec)
    failure, score = trial_failure(run.directory, result), trial_score(run, result)
    after_lanes = 1 + bool(score.plan) + len(score.lanes)
    return [*score.block[:after_lanes], *excerpt_block(failure.excerpt),
            *(f"[tests] {line}" for line in failure.tests), *score.block[after_lanes:],
            *(f"[file] {name}: {path}" for name, path in trial_files(run.directory, result))]


def trial_json(run: LoadedRun, spec: str) -> dict[str, Any]:
    """The trial VARIANT/CASE/N as its entry of the document's "scorecards" (also without a scorecard)."""
    result = find_trial(run.trials, spec)
    return {"variant": result.variant, "case_id": result.case_id, "trial": result.trial, "outcome": result.outcome,
            "reason": result.reason, **trial_score(run, result).json(), "scorecard": result.scorecard,
            **trial_failure(run.directory, result).json(),
            "files": {name: str(path) for name, path in trial_files(run.directory, result)}}
