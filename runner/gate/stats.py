"""Statistics for gating a candidate run against a baseline (scoring one run's trials is ``runner.runs.stats``).

A pure library: no I/O, no global state. Every function validates its arguments and raises ``ValueError``
for inputs outside its domain.

The gate's statistical block rule (``significant_drop``)
    The unit of analysis is the case. Trials are first averaged within each case (a case's pass rate in the
    baseline and in the candidate), then two tests look for a drop:

    * paired t: the two-sided ``1 - alpha`` t interval of the per-case differences (candidate - baseline)
      lies entirely below 0. For ``alpha = 0.05`` that is "the 95% interval's upper bound is < 0", which is
      a one-sided paired t test at level ``alpha / 2 = 0.025``;
    * exact one-sided McNemar on a per-case binary outcome: p = P(X >= b) for X ~ Binomial(b + c, 1/2),
      where b counts regressions (pass in the baseline, fail in the candidate) and c counts fixes; the
      test fires when p < ``alpha / 2``.

    The run is blocked when either test fires. Each component is held at ``alpha / 2`` (Bonferroni), so the
    combined false-block rate is at most ``alpha`` whatever the correlation between the two tests. Without
    the split (t at the 95% interval OR McNemar at p < 0.05) the union is only bounded by
    0.025 + 0.05 = 0.075, and it does exceed alpha: with the simulation in ``bench/gate_simulation.py`` on
    200 flaky cases and no change (McNemar sees many discordant pairs there, so its exact test is least
    conservative) the unadjusted rule blocked 0.056 of 35,000 simulated pairs (standard error 0.0012),
    the split rule about 0.038. On a 40-case mix of easy, hard and flaky cases both stay below alpha
    (0.037 unadjusted, 0.029 split).

    The per-case binary outcome the gate feeds McNemar is ``runner.runs.stats.case_passed`` with ``rule="all"``:
    a case passes when every one of its trials passed (the pass^k view of reliability). The simulation compared
    it with ``rule="majority"`` (strictly more than half of the trials): for a ten-point drop over 40 cases x 5 trials
    McNemar alone blocked about 81% of the time on "all" and 5% on "majority", while with no change its
    false-block rate was 0.5% and 0.0%. A decline mostly shows as reliable cases starting to fail now and
    then (the simulated decline scales every case's pass probability down), which "all" sees and
    "majority" averages away; the exact test stays valid under either.

Power and the standard deviation of per-case differences live in ``runner.gate.power``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from runner.gate.tdist import t_ppf, t_sf
from runner.runs.stats import as_int, check_probability

__all__ = [
    "DropTest",
    "McNemarResult",
    "PairedDifference",
    "component_level",
    "discordant_counts",
    "mcnemar_one_sided",
    "paired_difference",
    "significant_drop",
]

# Relative tolerance under which a sample standard deviation counts as zero (floating-point residue of
# subtracting equal-valued rates, e.g. 0.6 - 0.4 against 0.8 - 0.6).
_ZERO_SD_RTOL = 1e-12


# --------------------------------------------------------------------------------------------------------
# Validation helpers


def _finite_floats(values: Sequence[float], name: str) -> list[float]:
    out = [float(v) for v in values]
    for v in out:
        if not math.isfinite(v):
            raise ValueError(f"{name} must hold finite numbers, got {v!r}")
    return out


# --------------------------------------------------------------------------------------------------------
# Paired comparison of per-case pass rates


@dataclass(frozen=True)
class PairedDifference:
    """Paired t summary of per-case differences, candidate minus baseline."""

    n: int
    """Number of paired cases."""
    mean_difference: float
    """Mean of candidate - baseline; negative is a drop. nan when n == 0."""
    sd: float
    """Sample standard deviation (ddof=1) of the differences; nan when n < 2."""
    standard_error: float
    """sd / sqrt(n); inf when n < 2."""
    df: int
    """Degrees of freedom of the t distribution, n - 1 (0 when n == 0)."""
    t_statistic: float
    """mean / standard_error; +-inf when the differences are all equal and nonzero, nan when n < 2."""
    ci_low: float
    """Lower bound of the two-sided t interval; -inf when n < 2."""
    ci_high: float
    """Upper bound of the two-sided t interval; inf when n < 2."""
    confidence: float
    """Confidence level of the interval."""
    p_value: float
    """Two-sided p-value for mean difference == 0; 1.0 when n < 2."""


def paired_difference(
    baseline: Sequence[float], candidate: Sequence[float], confidence: float = 0.95
) -> PairedDifference:
    """Paired t comparison of per-case values; agrees with ``scipy.stats.ttest_rel(candidate, baseline)``.

    Two cases scipy leaves to nan are defined here:

    * zero variance (every difference equal, up to floating-point residue): the interval collapses to the
      mean difference, and p is 1.0 when that mean is 0, otherwise 0.0;
    * fewer than two cases: nothing can be concluded; the interval is (-inf, inf) and p is 1.0, so no rule
      built on it ever fires.
    """
    confidence = check_probability(confidence, "confidence")
    base = _finite_floats(baseline, "baseline")
    cand = _finite_floats(candidate, "candidate")
    if len(base) != len(cand):
        raise ValueError(f"baseline and candidate differ in length: {len(base)} != {len(cand)}")
    n = len(base)
    diffs = [c - b for b, c in zip(base, cand, strict=True)]
    if n == 0:
        return PairedDifference(
            0, math.nan, math.nan, math.inf, 0, math.nan, -math.inf, math.inf, confidence, 1.0
        )
    mean = math.fsum(diffs) / n
    if n == 1:
        return PairedDifference(
            1, mean, math.nan, math.inf, 0, math.nan, -math.inf, math.inf, confidence, 1.0
        )
    df = n - 1
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / df)
    largest = max(abs(d) for d in diffs)
    if sd <= _ZERO_SD_RTOL * largest or sd == 0.0:
        if mean == 0.0 or largest == 0.0:
            return PairedDifference(n, 0.0, 0.0, 0.0, df, 0.0, 0.0, 0.0, confidence, 1.0)
        t_stat = math.copysign(math.inf, mean)
        return PairedDifference(n, mean, 0.0, 0.0, df, t_stat, mean, mean, confidence, 0.0)
    se = sd / math.sqrt(n)
    t_stat = mean / se
    critical = t_ppf(0.5 + confidence / 2.0, df)
    p_value = min(1.0, 2.0 * t_sf(abs(t_stat), df))
    return PairedDifference(
        n=n,
        mean_difference=mean,
        sd=sd,
        standard_error=se,
        df=df,
        t_statistic=t_stat,
        ci_low=mean - critical * se,
        ci_high=mean + critical * se,
        confidence=confidence,
        p_value=p_value,
    )


# --------------------------------------------------------------------------------------------------------
# Exact McNemar on per-case binary outcomes


@dataclass(frozen=True)
class McNemarResult:
    """Exact one-sided McNemar test for regressions outnumbering fixes."""

    regressions: int
    """b: cases that passed in the baseline and fail in the candidate."""
    fixes: int
    """c: cases that failed in the baseline and pass in the candidate."""
    p_value: float
    """P(X >= b) for X ~ Binomial(b + c, 1/2); 1.0 when b + c == 0."""


def discordant_counts(baseline: Sequence[bool], candidate: Sequence[bool]) -> tuple[int, int]:
    """(regressions, fixes) between paired per-case binary outcomes."""
    if len(baseline) != len(candidate):
        raise ValueError(f"baseline and candidate differ in length: {len(baseline)} != {len(candidate)}")
    regressions = sum(1 for b, c in zip(baseline, candidate, strict=True) if b and not c)
    fixes = sum(1 for b, c in zip(baseline, candidate, strict=True) if c and not b)
    return regressions, fixes


def mcnemar_one_sided(b: int, c: int) -> McNemarResult:
    """Exact one-sided McNemar: b regressions and c fixes; p = P(X >= b), X ~ Binomial(b + c, 1/2)."""
    b = as_int(b, "b")
    c = as_int(c, "c")
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must not be negative, got b={b}, c={c}")
    if b + c == 0:
        return McNemarResult(b, c, 1.0)
    n = b + c
    tail = sum(math.comb(n, k) for k in range(b, n + 1))  # exact, in integers; the one rounding is the division
    return McNemarResult(b, c, min(1.0, tail / 2**n))


# --------------------------------------------------------------------------------------------------------
# The gate's block rule


def component_level(alpha: float) -> float:
    """One-sided level of each of the gate's two tests: alpha / 2, so that together they stay within alpha."""
    return check_probability(alpha, "alpha") / 2.0


@dataclass(frozen=True)
class DropTest:
    """Outcome of the gate's statistical block rule for one baseline/candidate pair."""

    alpha: float
    """The rule's whole false-block budget."""
    component_alpha: float
    """One-sided level of each component test (alpha / 2)."""
    paired: PairedDifference
    """Paired t summary of per-case pass rates at confidence 1 - alpha."""
    mcnemar: McNemarResult
    """Exact one-sided McNemar on the per-case binary outcomes."""
    t_blocks: bool
    """The paired interval's upper bound is below 0."""
    mcnemar_blocks: bool
    """McNemar's p-value is below component_alpha."""
    blocked: bool
    """Either component fired: the drop is statistically significant."""


def significant_drop(
    baseline_case_rates: Sequence[float],
    candidate_case_rates: Sequence[float],
    baseline_case_binary: Sequence[bool],
    candidate_case_binary: Sequence[bool],
    alpha: float = 0.05,
) -> DropTest:
    """The gate's block rule: paired t interval below 0 OR exact McNemar, each at alpha / 2 one-sided.

    All four sequences are per case and in the same case order. Rates are per-case mean pass rates (trials
    averaged within the case); binary outcomes are per-case passes (see ``case_passed``).
    """
    alpha = check_probability(alpha, "alpha")
    n = len(baseline_case_rates)
    lengths = {n, len(candidate_case_rates), len(baseline_case_binary), len(candidate_case_binary)}
    if len(lengths) != 1:
        raise ValueError(
            "per-case sequences differ in length: "
            f"rates {len(baseline_case_rates)}/{len(candidate_case_rates)}, "
            f"binary {len(baseline_case_binary)}/{len(candidate_case_binary)}"
        )
    level = component_level(alpha)
    paired = paired_difference(baseline_case_rates, candidate_case_rates, confidence=1.0 - alpha)
    mcnemar = mcnemar_one_sided(*discordant_counts(baseline_case_binary, candidate_case_binary))
    t_blocks = paired.ci_high < 0.0
    mcnemar_blocks = mcnemar.p_value < level
    return DropTest(
        alpha=alpha,
        component_alpha=level,
        paired=paired,
        mcnemar=mcnemar,
        t_blocks=t_blocks,
        mcnemar_blocks=mcnemar_blocks,
        blocked=t_blocks or mcnemar_blocks,
    )
