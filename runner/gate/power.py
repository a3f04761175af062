"""Power of the gate's paired t component, and the spread of per-case differences it depends on.

Power (``paired_t_power``, ``min_detectable_drop``, ``cases_needed``)
    These describe the t component of the gate exactly as it is applied: a one-sided paired t test at level
    ``alpha / 2`` (the two-sided ``1 - alpha`` interval's upper bound below 0), with ``alpha`` the gate's
    whole false-block budget. Power comes from the noncentral t distribution: with T = -mean / se the
    negated t statistic, ``T ~ nct(n - 1, drop * sqrt(n) / sd)`` and power is ``P(T > t_{1 - alpha/2, n-1})``.
    The McNemar component only adds blocks, so the combined rule blocks at least as often as the t
    component: the power note is a lower bound for the gate.
    The model is a shift: every case's difference has mean ``-drop`` and standard deviation ``sd``.

Standard deviation of per-case differences (``estimate_sd_of_differences``)
    A case whose true per-trial pass probability p did not change has a rate difference with variance
    ``2 p (1 - p) / k`` over k trials per run; the largest value is at p = 1/2. With nothing observed the
    estimate is that worst case, ``sqrt(1 / (2k))``. With at least two observed differences it is their
    sample standard deviation, floored at the noise of one coin-flip case among the n observed,
    ``sqrt(1 / (2kn))``: a corpus of n cases that showed no noise at all is more likely a small sample than
    a deterministic agent, and a zero estimate would claim that any drop is detectable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from runner.gate.stats import _finite_floats, component_level
from runner.gate.tdist import nct_sf, noncentrality_for_sf, t_isf
from runner.runs.stats import as_int, check_probability


def _check_sd(sd: float, name: str) -> float:
    sd = float(sd)
    if not (math.isfinite(sd) and sd >= 0.0):
        raise ValueError(f"{name} must be a finite number >= 0, got {sd!r}")
    return sd


def _t_critical(n: int, alpha: float) -> float:
    return t_isf(component_level(alpha), n - 1)


def paired_t_power(n: int, drop: float, sd: float, alpha: float = 0.05) -> float:
    """Probability that the gate's t component blocks n cases whose true mean drop is ``drop``.

    The component blocks when the two-sided ``1 - alpha`` paired t interval lies below 0, a one-sided test
    at ``alpha / 2``. ``drop`` is positive for a decline (candidate - baseline = -drop) and ``sd`` is the
    standard deviation of per-case differences. Fewer than two cases never block (power 0.0); ``sd == 0``
    blocks exactly when ``drop > 0``, as ``paired_difference`` does.
    """
    n = as_int(n, "n")
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    drop = float(drop)
    if not math.isfinite(drop):
        raise ValueError(f"drop must be finite, got {drop!r}")
    sd = _check_sd(sd, "sd")
    check_probability(alpha, "alpha")
    if n < 2:
        return 0.0
    if sd == 0.0:
        return 1.0 if drop > 0.0 else 0.0
    noncentrality = drop * math.sqrt(n) / sd
    return nct_sf(_t_critical(n, alpha), n - 1, noncentrality)


def _check_power(power: float, alpha: float) -> float:
    """A target power, which must lie above the gate's one-sided level alpha/2 (and below 1)."""
    level = component_level(alpha)
    power = check_probability(power, "power")
    if power <= level:
        raise ValueError(f"power must exceed the one-sided level alpha/2={level}, got {power}")
    return power


def min_detectable_drop(
    n_cases: int, sd_of_differences: float, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Smallest true mean drop the gate's t component blocks with probability ``power`` over n_cases.

    Same rule as ``paired_t_power`` (one-sided at ``alpha / 2``). In rate units: 0.1 is ten points. A value
    above 1 means no possible drop reaches that power. ``inf`` for fewer than two cases; 0.0 when
    ``sd_of_differences == 0``. Requires ``alpha / 2 < power < 1``.
    """
    n_cases = as_int(n_cases, "n_cases")
    if n_cases < 0:
        raise ValueError(f"n_cases must not be negative, got {n_cases}")
    sd = _check_sd(sd_of_differences, "sd_of_differences")
    power = _check_power(power, alpha)
    if n_cases < 2:
        return math.inf
    if sd == 0.0:
        return 0.0
    noncentrality = noncentrality_for_sf(_t_critical(n_cases, alpha), n_cases - 1, power)
    return noncentrality * sd / math.sqrt(n_cases)


def cases_needed(
    drop: float,
    sd_of_differences: float,
    alpha: float = 0.05,
    power: float = 0.8,
    max_cases: int = 10_000_000,
) -> int:
    """Smallest number of cases (>= 2) at which the gate's t component blocks a true ``drop`` with ``power``.

    Same rule as ``paired_t_power``. Raises ``ValueError`` when ``drop <= 0`` or more than ``max_cases``
    would be needed.
    """
    drop = float(drop)
    if not (math.isfinite(drop) and drop > 0.0):
        raise ValueError(f"drop must be a positive number, got {drop!r}")
    sd = _check_sd(sd_of_differences, "sd_of_differences")
    power = _check_power(power, alpha)
    max_cases = as_int(max_cases, "max_cases")

    def enough(n: int) -> bool:
        return paired_t_power(n, drop, sd, alpha) >= power

    if enough(2):
        return 2
    low, high = 2, 4  # enough(low) is False
    while not enough(high):
        if high >= max_cases:
            raise ValueError(f"more than max_cases={max_cases} cases needed for drop={drop}, sd={sd}")
        low, high = high, min(2 * high, max_cases)
    while high - low > 1:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high


# --------------------------------------------------------------------------------------------------------
# Standard deviation of per-case differences


@dataclass(frozen=True)
class SdEstimate:
    """An estimate of the standard deviation of per-case differences, with where it came from."""

    value: float
    """The estimate to plan with."""
    source: Literal["observed", "floor", "worst-case"]
    """observed: sample sd; floor: the sample sd was below the floor; worst-case: nothing observed."""
    observed: float | None
    """Sample sd (ddof=1) of the observed differences; None with fewer than two."""
    floor: float
    """The smallest value allowed: sqrt(1/(2kn)) with n observed, else the worst case sqrt(1/(2k))."""


def binomial_sd_of_differences(trials: int, p: float = 0.5) -> float:
    """sd of one case's rate difference between two runs of k trials when its pass probability p is unchanged.

    ``sqrt(2 p (1 - p) / k)``; the default p = 1/2 is the largest.
    """
    trials = as_int(trials, "trials")
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be between 0 and 1, got {p!r}")
    return math.sqrt(2.0 * p * (1.0 - p) / trials)


def estimate_sd_of_differences(differences: Sequence[float] | None, trials: int) -> SdEstimate:
    """sd of per-case differences to plan with, for runs of ``trials`` trials per case.

    With fewer than two observed differences: the binomial worst case ``sqrt(1/(2k))``. Otherwise the sample
    sd of the differences, floored at ``sqrt(1/(2kn))``, the noise one coin-flip case adds among n.
    """
    worst = binomial_sd_of_differences(trials)
    observed_values = [] if differences is None else _finite_floats(differences, "differences")
    n = len(observed_values)
    if n < 2:
        return SdEstimate(value=worst, source="worst-case", observed=None, floor=worst)
    mean = math.fsum(observed_values) / n
    observed = math.sqrt(math.fsum((d - mean) ** 2 for d in observed_values) / (n - 1))
    floor = worst / math.sqrt(n)
    if observed < floor:
        return SdEstimate(value=floor, source="floor", observed=observed, floor=floor)
    return SdEstimate(value=observed, source="observed", observed=observed, floor=floor)
