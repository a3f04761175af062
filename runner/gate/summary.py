"""The numbers under compare's lists: mean per-case pass rates by policy, error rates, trial durations, cost and
tokens."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from runner.gate.pairing import TOKEN_BUCKETS, Row, RunTrials
from runner.runs.result import TrialResult


@dataclass(frozen=True)
class RateChange:
    """Mean per-case pass rate (trials averaged within each case) before and after, over the same cases."""

    cases: int
    """Number of cases averaged."""
    baseline: float
    """Baseline mean rate; nan without cases."""
    candidate: float
    """Candidate mean rate; nan without cases."""

    @property
    def points(self) -> float:
        """Change in percentage points; negative is a drop."""
        return (self.candidate - self.baseline) * 100.0


@dataclass(frozen=True)
class ErrorRate:
    """Errored trials over recorded trials of one compared variant in each run, over the paired rows."""

    baseline_variant: str
    """The baseline run's variant."""
    candidate_variant: str
    """The candidate run's variant it is compared with."""
    baseline_errors: int
    """Baseline trials in error."""
    baseline_trials: int
    """Baseline trials recorded."""
    candidate_errors: int
    """Candidate trials in error."""
    candidate_trials: int
    """Candidate trials recorded."""

    @property
    def label(self) -> str:
        """The variant, or ``baseline -> candidate`` when their names differ."""
        if self.baseline_variant == self.candidate_variant:
            return self.baseline_variant
        return f"{self.baseline_variant} -> {self.candidate_variant}"

    @property
    def baseline_rate(self) -> float:
        """Baseline errors / trials; nan without trials."""
        return self.baseline_errors / self.baseline_trials if self.baseline_trials else math.nan

    @property
    def candidate_rate(self) -> float:
        """Candidate errors / trials; nan without trials."""
        return self.candidate_errors / self.candidate_trials if self.candidate_trials else math.nan

    @property
    def rose(self) -> bool:
        """More errored trials than the baseline and a higher share of them (compared exactly, as fractions)."""
        return (self.candidate_errors > self.baseline_errors
                and self.candidate_errors * self.baseline_trials > self.baseline_errors * self.candidate_trials)


@dataclass(frozen=True)
class Spread:
    """Duration percentiles of one run's trials, in seconds (None when no trial recorded a duration)."""

    p50: float | None
    """Median."""
    p99: float | None
    """99th percentile (linear interpolation between order statistics)."""


@dataclass(frozen=True)
class Spend:
    """A resource (cost or tokens) over the trials that recorded it."""

    total: float
    """Sum over recording trials."""
    trials: int
    """Trials that recorded it."""

    @property
    def per_trial(self) -> float:
        """Mean per recording trial."""
        return self.total / self.trials


@dataclass(frozen=True)
class Summary:
    """The numbers under the lists. Rates exclude quarantined rows; durations and spend cover every paired row."""

    blocking: RateChange
    """Cases that can block, not quarantined."""
    advisory: RateChange
    """Advisory cases, not quarantined."""
    errors: tuple[ErrorRate, ...]
    """Error rate of each compared variant in both runs, over every paired row."""
    duration: tuple[Spread, Spread]
    """Baseline and candidate trial durations."""
    cost: tuple[Spend | None, Spend | None]
    """Baseline and candidate cost in USD, where recorded."""
    tokens: tuple[Spend | None, Spend | None]
    """Baseline and candidate tokens, where recorded."""
    token_buckets: tuple[Mapping[str, Spend | None], Mapping[str, Spend | None]] = field(
        default_factory=lambda: ({}, {}))
    """Baseline and candidate tokens by bucket (``TOKEN_BUCKETS``) from the trials' behaviour.json, where known."""

    @property
    def cost_change_pct(self) -> float | None:
        """Change of the mean cost per trial in percent; None unless both runs recorded a nonzero baseline."""
        return per_trial_change_pct(*self.cost)


def per_trial_change_pct(before: Spend | None, after: Spend | None) -> float | None:
    """Change of the mean per trial in percent; None unless both runs recorded it and the baseline's is above 0."""
    if before is None or after is None or before.per_trial <= 0.0:
        return None
    return (after.per_trial / before.per_trial - 1.0) * 100.0


def rate_change(rows: Sequence[Row]) -> RateChange:
    """Mean per-case rates of paired rows."""
    base = [r.baseline.rate for r in rows if r.baseline is not None and r.candidate is not None]
    cand = [r.candidate.rate for r in rows if r.baseline is not None and r.candidate is not None]
    if not base:
        return RateChange(0, math.nan, math.nan)
    return RateChange(len(base), math.fsum(base) / len(base), math.fsum(cand) / len(cand))


def error_rates(rows: Sequence[Row]) -> tuple[ErrorRate, ...]:
    """Errors and recorded trials of each (baseline variant, candidate variant) over the paired rows."""
    counts: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        if row.baseline is None or row.candidate is None:
            continue
        tally = counts.setdefault((row.baseline.variant, row.candidate.variant), [0, 0, 0, 0])
        tally[0] += row.baseline.errors
        tally[1] += row.baseline.trials
        tally[2] += row.candidate.errors
        tally[3] += row.candidate.trials
    return tuple(ErrorRate(base, cand, *tally) for (base, cand), tally in sorted(counts.items()))


def spread(values: Sequence[float]) -> Spread:
    """p50 and p99 of durations."""
    if not values:
        return Spread(None, None)
    ordered = sorted(float(v) for v in values)
    return Spread(percentile(ordered, 0.5), percentile(ordered, 0.99))


def percentile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values by linear interpolation between order statistics (numpy's default
    method, with its rounding: interpolated from the nearer neighbour)."""
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    a, b, t = ordered[low], ordered[high], position - low
    return b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t


def spend(values: Sequence[float | int | None]) -> Spend | None:
    """Sum and count of the recorded values; None when none was recorded."""
    recorded = [float(v) for v in values if v is not None]
    return Spend(math.fsum(recorded), len(recorded)) if recorded else None


def summarize(rows: Sequence[Row], baseline: RunTrials, candidate: RunTrials, keyed_by: str) -> Summary:
    """Pass rates by policy, and error rates, durations, cost and tokens over the keys both runs have."""
    paired_keys = {r.key for r in rows if r.paired}

    def trials_of(run: RunTrials) -> list[TrialResult]:
        return [t for (variant, case), records in run.trials.items()
                if (case if keyed_by == "case" else f"{variant}::{case}") in paired_keys for t in records]

    base, cand = trials_of(baseline), trials_of(candidate)
    return Summary(
        blocking=rate_change([r for r in rows if r.gated]),
        advisory=rate_change([r for r in rows if r.advisory]),
        errors=error_rates(rows),
        duration=(spread([t.durations.total for t in base if t.durations.total is not None]),
                  spread([t.durations.total for t in cand if t.durations.total is not None])),
        cost=(spend([t.cost_usd for t in base]), spend([t.cost_usd for t in cand])),
        tokens=(spend([t.tokens for t in base]), spend([t.tokens for t in cand])),
        token_buckets=(token_buckets(baseline, base), token_buckets(candidate, cand)),
    )


def token_buckets(run: RunTrials, trials: Sequence[TrialResult]) -> dict[str, Spend | None]:
    """Tokens of each bucket over the trials whose behaviour.json knows it."""
    records = [b for t in trials if (b := run.behaviour.get((t.variant, t.case_id, t.trial))) is not None]
    return {bucket: spend([r.tokens.get(bucket) for r in records]) for bucket in TOKEN_BUCKETS}
