"""Known values and cross-checks for runner.gate.stats and runner.gate.power."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from runner.gate.power import (
    binomial_sd_of_differences,
    cases_needed,
    estimate_sd_of_differences,
    min_detectable_drop,
    paired_t_power,
)
from runner.gate.stats import (
    DropTest,
    McNemarResult,
    PairedDifference,
    component_level,
    discordant_counts,
    mcnemar_one_sided,
    paired_difference,
    significant_drop,
)

ROOT = Path(__file__).resolve().parents[3]


# ----------------------------------------------------------------------------------------------- paired t


def _assert_matches_ttest_rel(base: list[float], cand: list[float], confidence: float) -> PairedDifference:
    result = paired_difference(base, cand, confidence)
    reference = sps.ttest_rel(cand, base)
    interval = reference.confidence_interval(confidence_level=confidence)
    diffs = np.asarray(cand) - np.asarray(base)
    assert result.n == len(base)
    assert result.df == int(reference.df)
    assert result.mean_difference == pytest.approx(diffs.mean(), abs=1e-14)
    assert result.sd == pytest.approx(diffs.std(ddof=1), rel=1e-12)
    assert result.standard_error == pytest.approx(diffs.std(ddof=1) / math.sqrt(len(base)), rel=1e-12)
    assert result.t_statistic == pytest.approx(reference.statistic, rel=1e-10)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-300)
    assert result.ci_low == pytest.approx(interval.low, rel=1e-10, abs=1e-14)
    assert result.ci_high == pytest.approx(interval.high, rel=1e-10, abs=1e-14)
    assert result.confidence == confidence
    return result


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_paired_difference_agrees_with_ttest_rel(seed: int, confidence: float) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    trials = 5
    base = (rng.binomial(trials, rng.random(n)) / trials).tolist()
    cand = (rng.binomial(trials, rng.random(n)) / trials).tolist()
    _assert_matches_ttest_rel(base, cand, confidence)


def test_paired_difference_hand_worked() -> None:
    # differences 0.5, 0.0, 1.5: mean 2/3, sd sqrt(7/12), df 2.
    result = _assert_matches_ttest_rel([0.5, 2.0, 2.0], [1.0, 2.0, 3.5], 0.95)
    assert result.mean_difference == pytest.approx(2 / 3)
    assert result.sd == pytest.approx(math.sqrt(7 / 12))


def test_paired_difference_zero_variance() -> None:
    same = paired_difference([0.2, 0.4, 1.0], [0.2, 0.4, 1.0])
    assert (same.mean_difference, same.sd, same.ci_low, same.ci_high, same.p_value) == (
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
    )
    drop = paired_difference([1.0, 1.0, 1.0], [0.8, 0.8, 0.8])
    assert drop.ci_low == drop.ci_high == drop.mean_difference == pytest.approx(-0.2)
    assert drop.p_value == 0.0 and drop.t_statistic == -math.inf
    # Equal differences that floating point does not subtract exactly (0.6-0.4 vs 0.8-0.6) still collapse.
    residue = paired_difference([0.4, 0.6], [0.6, 0.8])
    assert residue.sd == 0.0 and residue.ci_low == residue.ci_high and residue.p_value == 0.0


def test_paired_difference_too_few_cases() -> None:
    one = paired_difference([1.0], [0.0])
    assert one.n == 1 and one.mean_difference == -1.0
    assert (one.ci_low, one.ci_high, one.p_value) == (-math.inf, math.inf, 1.0)
    assert math.isnan(one.sd) and math.isnan(one.t_statistic)
    none = paired_difference([], [])
    assert none.n == 0 and math.isnan(none.mean_difference)
    assert (none.ci_low, none.ci_high, none.p_value) == (-math.inf, math.inf, 1.0)


def test_paired_difference_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        paired_difference([1.0, 0.0], [1.0])
    with pytest.raises(ValueError):
        paired_difference([1.0, math.nan], [1.0, 0.0])
    with pytest.raises(ValueError):
        paired_difference([1.0, 0.0], [1.0, 0.0], confidence=95)


# ----------------------------------------------------------------------------------------------- McNemar


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (5, 0, 1 / 32),  # all five discordant cases are regressions: 2^-5
        (6, 1, 8 / 128),  # P(X >= 6 | 7) = (7 + 1) / 128
        (3, 3, 42 / 64),  # (20 + 15 + 6 + 1) / 64
        (0, 5, 1.0),  # no regressions: P(X >= 0) = 1
        (1, 0, 0.5),
        (0, 0, 1.0),  # no discordant cases
    ],
)
def test_mcnemar_hand_worked(b: int, c: int, expected: float) -> None:
    result = mcnemar_one_sided(b, c)
    assert isinstance(result, McNemarResult)
    assert (result.regressions, result.fixes) == (b, c)
    assert result.p_value == pytest.approx(expected, abs=1e-15)


def test_mcnemar_agrees_with_binomtest() -> None:
    for b in range(15):
        for c in range(15):
            if b + c == 0:
                continue
            expected = sps.binomtest(b, b + c, 0.5, alternative="greater").pvalue
            assert mcnemar_one_sided(b, c).p_value == pytest.approx(expected, rel=1e-12)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_one_sided(-1, 2)


def test_discordant_counts() -> None:
    base = [True, True, False, False, True]
    cand = [False, True, True, False, False]
    assert discordant_counts(base, cand) == (2, 1)
    with pytest.raises(ValueError):
        discordant_counts([True], [])


# ----------------------------------------------------------------------------------------------- gate rule


def test_component_level_is_half_alpha() -> None:
    assert component_level(0.05) == 0.025
    with pytest.raises(ValueError):
        component_level(0.0)


def test_significant_drop_blocks_on_t() -> None:
    base = [1.0] * 10 + [0.0] * 10
    cand = [0.6] * 10 + [0.0] * 10
    result = significant_drop(base, cand, [r == 1.0 for r in base], [r == 1.0 for r in cand])
    assert isinstance(result, DropTest)
    assert result.alpha == 0.05 and result.component_alpha == 0.025
    assert result.paired.confidence == pytest.approx(0.95)
    assert result.t_blocks and result.paired.ci_high < 0
    assert result.mcnemar.regressions == 10 and result.mcnemar_blocks  # 2^-10 < 0.025
    assert result.blocked


def test_significant_drop_blocks_on_mcnemar_alone() -> None:
    # Rates unchanged on average, but six cases that always passed now never do all-pass.
    rates = [0.5] * 20
    base_binary = [True] * 6 + [False] * 14
    cand_binary = [False] * 20
    result = significant_drop(rates, rates, base_binary, cand_binary)
    assert not result.t_blocks
    assert result.mcnemar.p_value == pytest.approx(1 / 64)
    assert result.mcnemar_blocks and result.blocked
    # Five regressions give p = 1/32 = 0.03125: below alpha, not below alpha / 2.
    result = significant_drop(rates, rates, [True] * 5 + [False] * 15, cand_binary)
    assert not result.mcnemar_blocks and not result.blocked


def test_significant_drop_no_change_does_not_block() -> None:
    rates = [1.0, 0.8, 0.0, 0.6, 1.0]
    binary = [r == 1.0 for r in rates]
    result = significant_drop(rates, rates, binary, binary)
    assert not result.blocked and result.paired.p_value == 1.0 and result.mcnemar.p_value == 1.0


def test_significant_drop_t_component_is_one_sided_at_half_alpha() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(3, 30))
        base = rng.random(n).tolist()
        cand = (np.asarray(base) + rng.normal(-0.1, 0.3, n)).tolist()
        binary = [False] * n
        result = significant_drop(base, cand, binary, binary, alpha=0.05)
        one_sided = sps.ttest_rel(cand, base, alternative="less").pvalue
        assert result.t_blocks == (one_sided < 0.025)


def test_significant_drop_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError):
        significant_drop([1.0, 0.0], [1.0, 0.0], [True], [True, False])


# ----------------------------------------------------------------------------------------------- power


def test_paired_t_power_formula_and_size() -> None:
    n, drop, sd = 40, 0.1, 0.2
    expected = sps.nct.sf(sps.t.ppf(0.975, n - 1), n - 1, drop * math.sqrt(n) / sd)
    assert paired_t_power(n, drop, sd) == pytest.approx(expected, rel=1e-12)
    assert paired_t_power(n, 0.0, sd) == pytest.approx(0.025, rel=1e-9)  # no drop: the one-sided size
    assert paired_t_power(n, -0.1, sd) < 0.025
    assert paired_t_power(1, 0.5, 0.1) == 0.0
    assert paired_t_power(10, 0.1, 0.0) == 1.0 and paired_t_power(10, 0.0, 0.0) == 0.0
    assert paired_t_power(20, 0.1, 0.2) < paired_t_power(21, 0.1, 0.2)
    assert paired_t_power(20, 0.1, 0.2) < paired_t_power(20, 0.11, 0.2)
    # Large n: the normal approximation.
    z = sps.norm.ppf(0.975)
    assert paired_t_power(5000, 0.01, 0.2) == pytest.approx(
        sps.norm.sf(z - 0.01 * math.sqrt(5000) / 0.2), abs=1e-3
    )


@pytest.mark.parametrize(
    ("n", "sd", "alpha", "power"), [(40, 0.2, 0.05, 0.8), (10, 0.3, 0.1, 0.9), (200, 0.15, 0.01, 0.5)]
)
def test_min_detectable_drop_inverts_power(n: int, sd: float, alpha: float, power: float) -> None:
    drop = min_detectable_drop(n, sd, alpha, power)
    assert paired_t_power(n, drop, sd, alpha) == pytest.approx(power, abs=1e-9)


def test_min_detectable_drop_edges() -> None:
    assert min_detectable_drop(1, 0.2) == math.inf
    assert min_detectable_drop(10, 0.0) == 0.0
    with pytest.raises(ValueError):
        min_detectable_drop(10, 0.2, power=0.02)  # not above the one-sided size 0.025
    with pytest.raises(ValueError):
        min_detectable_drop(10, -0.1)


@pytest.mark.parametrize(
    ("drop", "sd", "alpha", "power"),
    [
        (0.1, 0.2, 0.05, 0.8),
        (0.05, 0.25, 0.05, 0.9),
        (0.2, 0.3, 0.1, 0.8),
        (0.3, 0.1, 0.05, 0.8),
        (0.02, 0.3, 0.05, 0.8),
    ],
)
def test_cases_needed_consistent_with_power_and_min_detectable_drop(
    drop: float, sd: float, alpha: float, power: float
) -> None:
    n = cases_needed(drop, sd, alpha, power)
    assert paired_t_power(n, drop, sd, alpha) >= power
    assert min_detectable_drop(n, sd, alpha, power) <= drop
    if n > 2:
        assert paired_t_power(n - 1, drop, sd, alpha) < power
        assert min_detectable_drop(n - 1, sd, alpha, power) > drop


def test_cases_needed_known_value_and_edges() -> None:
    # Normal approximation ((z_.975 + z_.8) * sd / drop)^2 = 31.4 for drop 0.1, sd 0.2; the t test needs a bit more.
    assert cases_needed(0.1, 0.2) == 34
    assert cases_needed(0.1, 0.0) == 2
    with pytest.raises(ValueError):
        cases_needed(0.0, 0.2)
    with pytest.raises(ValueError):
        cases_needed(1e-4, 0.3, max_cases=1000)


@pytest.mark.parametrize(("n", "drop", "sd"), [(20, 0.1, 0.2), (40, 0.0, 0.2), (8, 0.25, 0.3)])
def test_power_agrees_with_monte_carlo(n: int, drop: float, sd: float) -> None:
    rng = np.random.default_rng(1234 + n)
    sims = 2000
    blocked = 0
    for _ in range(sims):
        base = rng.random(n)
        cand = base + rng.normal(-drop, sd, n)
        blocked += paired_difference(base.tolist(), cand.tolist(), 0.95).ci_high < 0
    simulated = blocked / sims
    expected = paired_t_power(n, drop, sd)
    se = math.sqrt(expected * (1 - expected) / sims)
    assert abs(simulated - expected) < 4 * se + 1e-3


# ----------------------------------------------------------------------------------------------- sd


def test_binomial_sd_of_differences() -> None:
    assert binomial_sd_of_differences(5) == pytest.approx(math.sqrt(0.1))
    assert binomial_sd_of_differences(5, 0.9) == pytest.approx(math.sqrt(2 * 0.09 / 5))
    assert binomial_sd_of_differences(3, 0.0) == 0.0
    with pytest.raises(ValueError):
        binomial_sd_of_differences(0)


def test_estimate_sd_of_differences() -> None:
    prior = estimate_sd_of_differences(None, trials=5)
    assert prior.source == "worst-case" and prior.value == pytest.approx(math.sqrt(1 / 10))
    assert estimate_sd_of_differences([0.2], trials=5).source == "worst-case"
    quiet = estimate_sd_of_differences([0.0] * 40, trials=5)
    assert quiet.source == "floor" and quiet.observed == 0.0
    assert quiet.value == pytest.approx(math.sqrt(1 / (2 * 5 * 40)))
    diffs = np.random.default_rng(3).normal(0, 0.2, 50).tolist()
    seen = estimate_sd_of_differences(diffs, trials=5)
    assert seen.source == "observed" and seen.value == pytest.approx(np.std(diffs, ddof=1), rel=1e-12)


# ----------------------------------------------------------------------------------------------- purity


def test_module_is_pure() -> None:
    code = "import sys, runner.gate.stats; assert 'textual' not in sys.modules, 'textual imported'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    source = (ROOT / "runner" / "gate" / "stats.py").read_text()
    for forbidden in ("open(", "print(", "import os", "pathlib", "textual"):
        assert forbidden not in source
