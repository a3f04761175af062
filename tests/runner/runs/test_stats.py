"""Known values and cross-checks for runner.runs.stats: pass@k, pass^k, Wilson, a case's stability and outcome."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from runner.runs.stats import case_passed, case_stability, pass_at_k, pass_hat_k, wilson_interval

ROOT = Path(__file__).resolve().parents[3]


# ----------------------------------------------------------------------------------------------- pass@k


def test_pass_at_k_and_pass_hat_k_hand_worked() -> None:
    # n=5, c=2, k=2: pass@2 = 1 - C(3,2)/C(5,2) = 1 - 3/10; pass^2 = C(2,2)/C(5,2) = 1/10.
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7, abs=1e-15)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1, abs=1e-15)
    # n=10, c=3, k=3: pass@3 = 1 - C(7,3)/C(10,3) = 1 - 35/120; pass^3 = 1/120.
    assert pass_at_k(10, 3, 3) == pytest.approx(85 / 120, abs=1e-15)
    assert pass_hat_k(10, 3, 3) == pytest.approx(1 / 120, abs=1e-15)


@pytest.mark.parametrize("n", [1, 2, 5, 10])
def test_pass_at_k_edges(n: int) -> None:
    for k in range(1, n + 1):
        assert pass_at_k(n, 0, k) == 0.0
        assert pass_hat_k(n, 0, k) == 0.0
        assert pass_at_k(n, n, k) == 1.0
        assert pass_hat_k(n, n, k) == pytest.approx(1.0, abs=1e-15)
    for c in range(n + 1):
        # k = 1: both are the plain pass rate.
        assert pass_at_k(n, c, 1) == pytest.approx(c / n, abs=1e-15)
        assert pass_hat_k(n, c, 1) == pytest.approx(c / n, abs=1e-15)
        # k = n: at least one pass iff c > 0; all pass iff c == n.
        assert pass_at_k(n, c, n) == (1.0 if c > 0 else 0.0)
        assert pass_hat_k(n, c, n) == pytest.approx(1.0 if c == n else 0.0, abs=1e-15)


def test_pass_at_k_matches_exact_combinatorics() -> None:
    for n in range(1, 16):
        for c in range(n + 1):
            for k in range(1, n + 1):
                at = 1 - Fraction(comb(n - c, k), comb(n, k))
                hat = Fraction(comb(c, k), comb(n, k))
                assert pass_at_k(n, c, k) == pytest.approx(float(at), abs=1e-13)
                assert pass_hat_k(n, c, k) == pytest.approx(float(hat), abs=1e-13)


def test_pass_at_k_large_n_is_stable() -> None:
    n, c, k = 400, 150, 60
    assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k), rel=1e-12)
    assert pass_hat_k(n, c, k) == pytest.approx(comb(c, k) / comb(n, k), rel=1e-9)
    assert pass_at_k(np.int64(5), np.int64(2), np.int64(2)) == pytest.approx(0.7)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("n", "c", "k"),
    [(5, 2, 0), (5, 2, 6), (0, 0, 1), (5, 6, 1), (5, -1, 1), (-1, 0, 1), (5.0, 2, 2), (5, 2, True)],
)
def test_pass_at_k_rejects_bad_arguments(n: object, c: object, k: object) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------------- Wilson


def test_wilson_known_value() -> None:
    low, high = wilson_interval(8, 10)
    assert round(low, 4) == 0.4902
    assert round(high, 4) == 0.9433


def test_wilson_edges_and_defining_equation() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and 0 < high < 1
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and 0 < low < 1
    # The bounds are the roots of (phat - p)^2 = z^2 p (1 - p) / n.
    for successes, n, confidence in [(3, 17, 0.9), (40, 50, 0.99), (1, 2, 0.95)]:
        z = sps.norm.ppf(0.5 + confidence / 2)
        phat = successes / n
        for bound in wilson_interval(successes, n, confidence):
            assert (phat - bound) ** 2 == pytest.approx(z * z * bound * (1 - bound) / n, abs=1e-12)
    assert wilson_interval(8, 10, 0.99)[0] < wilson_interval(8, 10, 0.95)[0]


@pytest.mark.parametrize(
    ("successes", "n", "confidence"), [(11, 10, 0.95), (-1, 10, 0.95), (1, 10, 1.0), (1, -1, 0.9)]
)
def test_wilson_rejects_bad_arguments(successes: int, n: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n, confidence)


# ----------------------------------------------------------------------------------------------- cases


def test_case_stability() -> None:
    assert case_stability(5, 5) == "STABLE_PASS"
    assert case_stability(0, 5) == "STABLE_FAIL"
    assert case_stability(1, 5) == "FLAKY"
    assert case_stability(4, 5) == "FLAKY"
    assert case_stability(1, 1) == "STABLE_PASS"
    for passes, n in [(6, 5), (-1, 5), (0, 0)]:
        with pytest.raises(ValueError):
            case_stability(passes, n)


def test_case_passed_rules() -> None:
    assert case_passed(5, 5) and not case_passed(4, 5)  # default: every trial passed
    assert case_passed(3, 5, "majority") and not case_passed(2, 5, "majority")
    assert not case_passed(2, 4, "majority")  # a tie fails
    with pytest.raises(ValueError):
        case_passed(1, 2, "some")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------------- purity


def test_module_is_pure() -> None:
    code = "import sys, runner.runs.stats; assert 'textual' not in sys.modules, 'textual imported'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    source = (ROOT / "runner" / "runs" / "stats.py").read_text()
    for forbidden in ("open(", "print(", "import os", "pathlib", "textual"):
        assert forbidden not in source
