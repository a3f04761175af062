"""Behaviour against the baseline: each metric's median per compared case, and whether it improved or regressed.

For every paired row and every behaviour metric (``runner.behaviour.metrics.COUNTED`` and ``TIMED``), the spread of
the metric over the row's non-error trials that know it (behaviour.json says None where the transcript cannot say),
in each run. A row's metric is *unknown* unless both runs know it in at least ``MIN_KNOWN`` trials (the gate's own
trial minimum); otherwise the medians are compared: a relative change of the median under ``RELATIVE_CHANGE`` is
*neutral*, and so is any change of a metric whose direction is neutral; a larger change is *improve* or *regress*
by the metric's direction (lower or higher is better). A baseline median of 0 makes any rise an infinite change.

These lines are information, never part of the decision: per row and metric there are a handful of trials and a few dozen
metrics, so some medians move by chance in every comparison, and a metric moving is a question for a person, not
a regression of the agent's outcomes.

Directions. Every metric has a default (``DEFAULT_DIRECTIONS``: lower is better, except the shape metrics that
describe how the agent works rather than how much it spends); corpus.yaml's ``behaviour.directions`` overrides them
per metric. Like policy, the directions judged are the ones the runs recorded when they started (the candidate's
record first, then the baseline's), or the corpus's as it is today with ``--corpus``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from corpus.model import DIRECTIONS, Direction
from corpus.store import Corpus
from runner.behaviour.metrics import COUNTED, TIMED, Spread, spread
from runner.gate.pairing import MIN_TRIALS, Row, RunTrials, TrialBehaviour

Change = Literal["improve", "regress", "neutral", "unknown"]
CHANGES: tuple[Change, ...] = ("regress", "improve", "neutral", "unknown")
"""The classes, in report order."""

RELATIVE_CHANGE = 0.25
"""A median must move by at least this fraction of the baseline's median to count as a change."""
MIN_KNOWN = MIN_TRIALS
"""Non-error trials that must know a metric in each run before its medians are compared."""
METRICS = (*COUNTED, *TIMED)
"""Every metric compared, in report order."""
NEUTRAL_BY_DEFAULT = frozenset({"env_assignments", "chain_segments", "max_chain_segments", "tool_edits",
                                "longest_tool_streak"})
"""Metrics that describe how the agent works rather than how much it spends or risks: neither way is better."""
DEFAULT_DIRECTIONS: Mapping[str, Direction] = {
    m: ("neutral" if m in NEUTRAL_BY_DEFAULT else "lower") for m in METRICS}
"""Each metric's direction when corpus.yaml says nothing of it."""


@dataclass(frozen=True)
class Directions:
    """The direction of every metric, and where the overrides came from."""

    by_metric: Mapping[str, Direction]
    """Every metric of METRICS: the defaults with the configured overrides applied."""
    source: str
    """Where the overrides came from, for the report."""
    unknown: tuple[str, ...] = ()
    """Configured names that are no metric (ignored)."""


def directions_from(configured: Mapping[str, str] | None, source: str) -> Directions:
    """The defaults overridden by configured (names that are no metric are kept aside, never applied)."""
    configured = configured or {}
    by_metric: dict[str, Direction] = dict(DEFAULT_DIRECTIONS)
    for name, direction in configured.items():
        for known in DIRECTIONS:
            if name in by_metric and direction == known:
                by_metric[name] = known
    return Directions(by_metric, source, tuple(sorted(n for n in configured if n not in by_metric)))


def directions_for(corpus: Corpus | None, *runs: RunTrials) -> Directions:
    """The directions of a corpus as it is today when one is given, else the first run that recorded some."""
    if corpus is not None:
        return directions_from(dict(corpus.config.behaviour_directions),
                               f"the corpus {corpus.root} as it is today (--corpus)")
    for run in runs:
        if run.directions is not None:
            return directions_from(run.directions, f"as run {run.run_id} recorded them when it started")
    return directions_from(None, "the defaults (the runs recorded none)")


@dataclass(frozen=True)
class MetricChange:
    """One metric of one compared row: both runs' spreads and what the change of the median means."""

    key: str
    """The row's key (case id, or variant::case)."""
    metric: str
    """The metric's name."""
    direction: Direction
    """Which way is better."""
    baseline: Spread | None
    """The baseline's spread over its non-error trials that know the metric; None when none does."""
    candidate: Spread | None
    """The candidate's spread, likewise."""
    change: Change
    """improve, regress, neutral (a small change, or a neutral metric) or unknown (too few trials know it)."""

    @property
    def relative(self) -> float | None:
        """(candidate median - baseline median) / baseline median; inf for a rise from 0; None when unknown."""
        if self.change == "unknown" or self.baseline is None or self.candidate is None:
            return None
        before, after = self.baseline.median, self.candidate.median
        if before == after:
            return 0.0
        if before == 0:
            return math.inf if after > 0 else -math.inf
        return (after - before) / abs(before)


def classify(baseline: Spread | None, candidate: Spread | None, direction: Direction,
             threshold: float = RELATIVE_CHANGE, min_known: int = MIN_KNOWN) -> Change:
    """What the change of the median from baseline to candidate means for a metric of this direction."""
    if baseline is None or candidate is None or baseline.trials < min_known or candidate.trials < min_known:
        return "unknown"
    before, after = baseline.median, candidate.median
    if before == after:
        return "neutral"
    if before != 0 and abs(after - before) / abs(before) < threshold:
        return "neutral"
    if direction == "neutral":
        return "neutral"
    return "improve" if (after < before) == (direction == "lower") else "regress"


@dataclass(frozen=True)
class BehaviourComparison:
    """Every metric of every paired row, against the baseline."""

    directions: Directions
    """The directions judged by."""
    changes: tuple[MetricChange, ...]
    """Per paired row (in key order), every metric (in METRICS order)."""
    threshold: float = RELATIVE_CHANGE
    """The relative change of the median that counts."""
    min_known: int = MIN_KNOWN
    """Trials per run that must know a metric."""

    @property
    def recorded(self) -> bool:
        """Whether either run knew any metric of any paired row (runs without behaviour.json know none)."""
        return any(c.baseline is not None or c.candidate is not None for c in self.changes)

    def counted(self) -> list[MetricChange]:
        """The regressions, then the improvements, each in row and metric order."""
        return [c for kind in ("regress", "improve") for c in self.changes if c.change == kind]

    def tally(self) -> dict[str, dict[str, int]]:
        """Rows of each class, per metric with at least one row."""
        out: dict[str, Counter[str]] = {}
        for c in self.changes:
            out.setdefault(c.metric, Counter())[c.change] += 1
        return {metric: {kind: counts[kind] for kind in CHANGES} for metric, counts in out.items()}


def _records(run: RunTrials, variant: str, case_id: str) -> list[TrialBehaviour]:
    """The behaviour records of a cell's non-error trials."""
    if not run.behaviour:
        return []
    return [record for trial in run.trials.get((variant, case_id), ())
            if trial.outcome != "error" and (record := run.behaviour.get((variant, case_id, trial.trial))) is not None]


def compare_behaviour(rows: Sequence[Row], baseline: RunTrials, candidate: RunTrials,
                      directions: Directions) -> BehaviourComparison:
    """Medians per metric and paired row, classified by direction."""
    changes: list[MetricChange] = []
    for row in rows:
        if row.baseline is None or row.candidate is None:
            continue
        base_records = _records(baseline, row.baseline.variant, row.case_id)
        cand_records = _records(candidate, row.candidate.variant, row.case_id)
        if not base_records and not cand_records:  # neither run knows any metric (20,000 trials: a tenth of compare)
            changes.extend(MetricChange(row.key, metric, directions.by_metric[metric], None, None, "unknown")
                           for metric in METRICS)
            continue
        for metric in METRICS:
            before = spread([r.metrics.get(metric) for r in base_records])
            after = spread([r.metrics.get(metric) for r in cand_records])
            direction = directions.by_metric[metric]
            changes.append(MetricChange(row.key, metric, direction, before, after, classify(before, after, direction)))
    return BehaviourComparison(directions, tuple(changes))


def number_text(value: float) -> str:
    """A median as text: whole numbers with thousands separators, others with 4 significant digits."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:.4g}"


SHOWN = 5
"""Counted changes of one class listed per metric in the text report; --json has every one."""


def change_text(change: MetricChange) -> str:
    """One counted change as text: ``regress  calc: median 2 -> 6 (+200%) over 5 and 5 trials``."""
    before, after = change.baseline, change.candidate
    assert before is not None and after is not None
    relative = change.relative
    pct = "from 0" if relative is None or math.isinf(relative) else f"{relative * 100:+.0f}%"
    return (f"{change.change:<8} {change.key}: median {number_text(before.median)} -> {number_text(after.median)} "
            f"({pct}) over {before.trials} and {after.trials} trials")


def behaviour_lines(behaviour: BehaviourComparison) -> list[str]:
    """Per metric with a counted change: its tally, then its regressions and improvements (SHOWN of each)."""
    lines = []
    tally = behaviour.tally()
    for metric in METRICS:
        changes = [c for c in behaviour.changes if c.metric == metric]
        if not any(c.change in ("regress", "improve") for c in changes):
            continue
        counts = tally[metric]
        lines.append(f"{metric} ({behaviour.directions.by_metric[metric]} is better): "
                     + ", ".join(f"{counts[kind]} {kind}" for kind in CHANGES))
        for kind in ("regress", "improve"):
            found = [c for c in changes if c.change == kind]
            lines.extend(f"  {change_text(c)}" for c in found[:SHOWN])
            if len(found) > SHOWN:
                lines.append(f"  and {len(found) - SHOWN} more {kind} (--json lists every case)")
    return lines
