"""runner.gate.tdist agrees with scipy.stats's t and nct within 1e-9 relative, and the gate never imports
scipy.stats."""

from __future__ import annotations

import math
import subprocess
import sys
from statistics import NormalDist

import pytest
from scipy import optimize
from scipy import stats as sps

from runner.gate.power import min_detectable_drop
from runner.gate.tdist import nct_sf, noncentrality_for_sf, t_isf, t_ppf, t_sf

DEGREES = [1, 2, 3, 5, 9, 39, 199, 3999, 100_000]


@pytest.mark.parametrize("df", DEGREES)
def test_t_quantiles_and_tails_agree_with_scipy_stats(df: int) -> None:
    for q in (1e-8, 0.0125, 0.025, 0.05, 0.5, 0.9, 0.95, 0.975, 0.995, 1 - 1e-9):
        assert t_ppf(q, df) == pytest.approx(sps.t.ppf(q, df), rel=1e-9, abs=1e-300)
        assert t_isf(q, df) == pytest.approx(sps.t.isf(q, df), rel=1e-9, abs=1e-300)
    for x in (-40.0, -2.0, -0.3, 0.0, 0.7, 1.96, 4.3, 12.0, 60.0):
        assert t_sf(x, df) == pytest.approx(sps.t.sf(x, df), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("df", DEGREES)
def test_nct_tail_agrees_with_scipy_stats_far_into_the_tail(df: int) -> None:
    for x in (-3.0, 0.0, 1.0, 1.96, 2.0, 4.3, 12.7):
        for noncentrality in (-6.0, -1.0, 0.0, 0.4, 2.0, 2.8, 6.0, 30.0):
            expected = float(sps.nct.sf(x, df, noncentrality))
            assert nct_sf(x, df, noncentrality) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def _brentq_noncentrality(critical: float, df: int, power: float) -> float:
    """The root min_detectable_drop found with scipy.optimize.brentq and scipy.stats.nct before."""

    def shortfall(noncentrality: float) -> float:
        return float(sps.nct.sf(critical, df, noncentrality)) - power

    high = critical + NormalDist().inv_cdf(power) + 1.0
    while shortfall(high) < 0.0:
        high *= 2.0
    return float(optimize.brentq(shortfall, 0.0, high, xtol=1e-12, rtol=1e-12))


@pytest.mark.parametrize("df", [1, 2, 9, 39, 199, 3999])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_the_noncentrality_root_agrees_with_brentq_on_scipy_stats(df: int, alpha: float) -> None:
    critical = float(sps.t.isf(alpha / 2, df))
    for power in (0.06, 0.5, 0.8, 0.9, 0.99):
        expected = _brentq_noncentrality(critical, df, power)
        assert noncentrality_for_sf(critical, df, power) == pytest.approx(expected, rel=1e-9)
        n, sd = df + 1, 0.3
        assert min_detectable_drop(n, sd, alpha, power) == pytest.approx(expected * sd / math.sqrt(n), rel=1e-9)


def test_the_noncentrality_root_refuses_a_tail_no_noncentrality_reaches() -> None:
    for sf in (0.01, 1.0, 1.5):  # nct_sf(1.96, 9, 0) is about 0.04: below it no noncentrality >= 0 fits
        with pytest.raises(ValueError, match="sf must lie between"):
            noncentrality_for_sf(1.96, 9, sf)


def test_comparing_loads_scipy_special_and_never_scipy_stats() -> None:
    """scipy.stats costs a second of CPU to import: the gate's statistics, power and holdout gap do without it."""
    code = ("import sys; from runner.gate.stats import paired_difference; from runner.gate.power import "
            "min_detectable_drop, cases_needed; from runner.gate.holdout import holdout_gap; "
            "paired_difference([0.0, 0.2, 0.4], [0.2, 0.6, 0.4]); min_detectable_drop(40, 0.2); "
            "cases_needed(0.1, 0.2); print('scipy.special' in sys.modules, 'scipy.stats' in sys.modules, "
            "'scipy.optimize' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "False", "False"]
