"""The arithmetic of a run's trials: pass@k and pass^k, the Wilson interval of a pass rate, and a case's outcome and
stability over its trials.

A pure library: no I/O, no global state. Every function validates its arguments and raises ``ValueError``
for inputs outside its domain.

``pass_at_k`` (at least one of k draws passes) and ``pass_hat_k`` (all k draws pass) are the unbiased estimators
over n recorded trials with c passes. ``wilson_interval`` bounds a pass rate. ``case_stability`` labels a case's
stability STABLE_PASS, STABLE_FAIL or FLAKY from its trials; ``case_passed`` is its binary outcome (the gate's
McNemar input, see ``runner.gate.stats``).
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist
from typing import Literal

__all__ = [
    "BinaryRule",
    "CaseStability",
    "as_int",
    "case_passed",
    "case_stability",
    "check_probability",
    "pass_at_k",
    "pass_hat_k",
    "wilson_interval",
]

CaseStability = Literal["STABLE_PASS", "STABLE_FAIL", "FLAKY"]
BinaryRule = Literal["majority", "all"]


# --------------------------------------------------------------------------------------------------------
# Validation helpers (the gate's statistics use them too)


def as_int(value: object, name: str) -> int:
    """value as an int when it is an integer (numpy's included, bool not); ValueError naming it otherwise."""
    index = getattr(value, "__index__", None)
    if index is None or value is True or value is False:
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(index())


def check_probability(value: float, name: str) -> float:
    """value as a float strictly between 0 and 1; ValueError naming it otherwise."""
    value = float(value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value!r}")
    return value


def _check_trials(n: object, c: object, *, c_name: str = "c", least: int = 1) -> tuple[int, int]:
    n_ = as_int(n, "n")
    c_ = as_int(c, c_name)
    if n_ < least:
        raise ValueError(f"n must be at least {least}, got {n_}")
    if not 0 <= c_ <= n_:
        raise ValueError(f"{c_name} must be between 0 and n={n_}, got {c_}")
    return n_, c_


# --------------------------------------------------------------------------------------------------------
# Scoring


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k: probability that at least one of k trials drawn from n (c passing) passes.

    ``1 - C(n-c, k) / C(n, k)``, computed as ``1 - prod_{i=n-c+1}^{n} (1 - k/i)``.
    Requires ``1 <= k <= n`` and ``0 <= c <= n``.
    """
    n, c = _check_trials(n, c)
    k = as_int(k, "k")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k: probability that all k trials drawn from n (c passing) pass.

    ``C(c, k) / C(n, k)``, computed as ``prod_{i=0}^{k-1} (c - i) / (n - i)``.
    Requires ``1 <= k <= n`` and ``0 <= c <= n``.
    """
    n, c = _check_trials(n, c)
    k = as_int(k, "k")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    if c < k:
        return 0.0
    product = 1.0
    for i in range(k):
        product *= (c - i) / (n - i)
    return product


@functools.cache
def _two_sided_z(confidence: float) -> float:
    """The normal quantile of a two-sided interval at confidence (computed once per level: every cell asks)."""
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; ``(0.0, 1.0)`` when ``n == 0``."""
    n, successes = _check_trials(n, successes, c_name="successes", least=0)
    confidence = check_probability(confidence, "confidence")
    if n == 0:
        return (0.0, 1.0)
    z = _two_sided_z(confidence)
    p = successes / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def case_stability(passes: int, n: int) -> CaseStability:
    """STABLE_PASS when every one of n trials passed, STABLE_FAIL when none did, otherwise FLAKY."""
    n, passes = _check_trials(n, passes)
    if passes == n:
        return "STABLE_PASS"
    if passes == 0:
        return "STABLE_FAIL"
    return "FLAKY"


def case_passed(passes: int, n: int, rule: BinaryRule = "all") -> bool:
    """A case's binary outcome over n trials: ``all`` is passes == n; ``majority`` is passes > n/2 (a tie fails)."""
    n, passes = _check_trials(n, passes)
    if rule == "majority":
        return 2 * passes > n
    if rule == "all":
        return passes == n
    raise ValueError(f"rule must be 'majority' or 'all', got {rule!r}")
