"""The failure excerpt of each side of a compared row: what the text and JSON reports of `runner compare` quote
under a side that did not pass."""

from __future__ import annotations

from dataclasses import asdict

from runner.gate.gate import CompareReport
from runner.gate.pairing import Row, RunTrials
from runner.grading.excerpt import trial_excerpt
from runner.runs.result import Excerpt, TrialResult, trial_path


def side_trials(report: CompareReport, run: RunTrials, row: Row) -> tuple[TrialResult, ...]:
    """The run's trials of the row's case (of its variant, for a matrix)."""
    variant = run.variants[0] if report.keyed_by == "case" else row.key.split("::", 1)[0]
    return tuple(run.trials.get((variant, row.case_id), ()))


def side_excerpt(report: CompareReport, run: RunTrials, row: Row) -> Excerpt | None:
    """The excerpt of the run's first failed trial of the row that has one (else its first errored one's); None
    when no such trial quotes one, or the run's directory is unknown."""
    trials = side_trials(report, run, row)
    for outcome in ("fail", "error"):
        for trial in trials:
            if trial.outcome != outcome:
                continue
            folder = trial_path(run.directory, trial.variant, trial.case_id, trial.trial) \
                if run.directory is not None else None
            found = trial_excerpt(trial, folder) if folder is not None else trial.excerpt
            if found is not None:
                return found
    return None


def row_excerpts(report: CompareReport, row: Row) -> dict[str, dict[str, str] | None]:
    """compare's JSON `excerpts` of a row: each side's excerpt as a mapping, or None."""
    found = {"baseline": side_excerpt(report, report.baseline, row),
             "candidate": side_excerpt(report, report.candidate, row)}
    return {side: None if excerpt is None else asdict(excerpt) for side, excerpt in found.items()}
