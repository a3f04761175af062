"""The one aggregate of trials: one variant::case cell, or one variant over its cases (report, compare, flakes)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from runner.runs.result import TrialResult
from runner.runs.stats import case_passed, pass_at_k, pass_hat_k, wilson_interval


@dataclass(frozen=True)
class Aggregate:
    """Counts and estimators over a set of trials (one variant::case cell, or one variant over its cases)."""

    key: str
    """variant::case, or the variant name."""
    variant: str
    """The variant."""
    case_id: str | None
    """The case (None for a variant total)."""
    trials: int
    """Recorded trials."""
    passes: int
    """Trials that passed."""
    fails: int
    """Trials that failed."""
    errors: int
    """Trials that ended in error (not in the denominator)."""
    missing: int
    """Planned trials without a result yet."""
    success_rate: float | None
    """passes / (passes + fails); None without a scored trial."""
    wilson: tuple[float, float] | None
    """Wilson 95% interval of the success rate."""
    pass_at_k: dict[int, float]
    """Unbiased pass@k for k = 1 .. the smallest number of scored trials (variant: mean over its cases)."""
    pass_hat_k: dict[int, float]
    """Unbiased pass^k over the same k."""
    cases_scored: int = 0
    """Cases with at least one scored trial (1 or 0 for a cell)."""
    reason: str = ""
    """A cell's most common reason among failed (else errored) trials; empty when every trial passed."""

    @property
    def scored(self) -> int:
        """Trials with an outcome (passes + fails), the denominator of the rate."""
        return self.passes + self.fails

    @property
    def rate(self) -> float:
        """success_rate for arithmetic: nan without a scored trial."""
        return self.passes / self.scored if self.scored else math.nan

    @property
    def passed(self) -> bool:
        """The case's binary outcome: every scored trial passed (``case_passed`` rule "all")."""
        return self.scored > 0 and case_passed(self.passes, self.scored, "all")

    @property
    def every_trial_passed(self) -> bool:
        """Every trial passed, errors included: what the critical-case rule asks of the baseline."""
        return self.passes > 0 and self.fails == 0 and self.errors == 0

    def describe(self) -> str:
        """``pass (5/5)`` or ``fail (2/5 passed, 1 error)``."""
        errors = f", {self.errors} error{'s' if self.errors != 1 else ''}" if self.errors else ""
        if self.passed:
            return f"pass ({self.passes}/{self.scored}{errors})"
        return f"fail ({self.passes}/{self.scored} passed{errors})"


def cell_aggregate(variant: str, case_id: str, trials: Sequence[TrialResult], planned: int | None = None) -> Aggregate:
    """The aggregate of one variant::case cell; planned trials default to the recorded ones (none missing)."""
    outcomes = [t.outcome for t in trials]  # counted by list, not Counter: a compare builds 16,000 cells
    passes, fails, errors = outcomes.count("pass"), outcomes.count("fail"), outcomes.count("error")
    n = passes + fails
    at_items, hat_items, wilson = _estimators(n, passes)
    failing = [t.reason for t in trials if t.outcome == "fail" and t.reason] or [
        t.reason for t in trials if t.outcome == "error" and t.reason
    ]
    reason = max(failing, key=failing.count) if failing else ""  # the most common; of a tie, the first
    missing = 0 if planned is None else max(0, planned - len(trials))
    return Aggregate(f"{variant}::{case_id}", variant, case_id, len(trials), passes, fails, errors, missing,
                     passes / n if n else None, wilson, dict(at_items), dict(hat_items), 1 if n else 0, reason)


@lru_cache(maxsize=1024)
def _estimators(n: int, passes: int) -> tuple[tuple[tuple[int, float], ...], tuple[tuple[int, float], ...],
                                              tuple[float, float] | None]:
    """pass@k and pass^k for every k, and the Wilson interval, of n scored trials with passes: the same few
    pairs recur over a run's thousands of cells, so each is computed once (bench/report_benchmark.py)."""
    return (tuple((k, pass_at_k(n, passes, k)) for k in range(1, n + 1)),
            tuple((k, pass_hat_k(n, passes, k)) for k in range(1, n + 1)),
            wilson_interval(passes, n) if n else None)


def variant_aggregate(variant: str, cells: list[Aggregate]) -> Aggregate:
    """A variant over its cases: pooled counts and rate; pass@k and pass^k averaged over the scored cases."""
    scored = [c for c in cells if c.passes + c.fails]
    passes, fails = sum(c.passes for c in cells), sum(c.fails for c in cells)
    n = passes + fails
    k_max = min((c.passes + c.fails for c in scored), default=0)
    at_k = {k: sum(c.pass_at_k[k] for c in scored) / len(scored) for k in range(1, k_max + 1)}
    hat_k = {k: sum(c.pass_hat_k[k] for c in scored) / len(scored) for k in range(1, k_max + 1)}
    return Aggregate(variant, variant, None, sum(c.trials for c in cells), passes, fails,
                     sum(c.errors for c in cells), sum(c.missing for c in cells), passes / n if n else None,
                     wilson_interval(passes, n) if n else None, at_k, hat_k, len(scored))
