"""The t and non-central t distributions the gate needs, from ``scipy.special``'s functions.

``scipy.stats`` computes ``t`` and ``nct`` with these same functions (``t.ppf`` is ``stdtrit``, ``t.sf`` is
``stdtr`` at ``-x``, ``nct.cdf`` is ``nctdtr``), but importing it costs about a second of CPU more than
``scipy.special`` (it builds every distribution and parses their docstrings), the largest single cost of a
compare on a large run. ``scipy.special`` is imported on first use, so commands that never gate never load it.
The tests hold every function here to ``scipy.stats`` within 1e-9 relative.
"""

from __future__ import annotations

import math

__all__ = ["nct_sf", "noncentrality_for_sf", "t_isf", "t_ppf", "t_sf"]

_ROOT_TOLERANCE = 1e-12
"""Absolute and relative tolerance of ``noncentrality_for_sf``'s root, as the ``brentq`` it replaces had."""


def t_ppf(q: float, df: int) -> float:
    """The q quantile of Student's t with df degrees of freedom (``scipy.stats.t.ppf``)."""
    from scipy.special import stdtrit

    return float(stdtrit(df, q))


def t_isf(q: float, df: int) -> float:
    """The value Student's t exceeds with probability q (``scipy.stats.t.isf``)."""
    from scipy.special import stdtrit

    return -float(stdtrit(df, q))


def t_sf(x: float, df: int) -> float:
    """P(T > x) for Student's t with df degrees of freedom (``scipy.stats.t.sf``)."""
    from scipy.special import stdtr

    return float(stdtr(df, -x))


def nct_sf(x: float, df: int, noncentrality: float) -> float:
    """P(T > x) for the non-central t (``scipy.stats.nct.sf``): P(-T < -x), and -T is non-central t at -nc,
    so the tail keeps its full relative precision where ``1 - cdf`` would round it away."""
    from scipy.special import nctdtr

    return min(1.0, max(0.0, float(nctdtr(df, -noncentrality, -x))))


def noncentrality_for_sf(x: float, df: int, sf: float) -> float:
    """The noncentrality >= 0 at which ``nct_sf(x, df, nc) == sf``, by bisection to 1e-12.

    ``nct_sf`` rises with the noncentrality, so the root is bracketed by 0 and a bound doubled until it is
    passed. Requires ``nct_sf(x, df, 0) < sf < 1``. ``scipy.special.nctdtrinc`` solves the same equation but
    only to about 1e-7, and ``scipy.optimize`` costs as much to import as ``scipy.stats``.
    """
    if not nct_sf(x, df, 0.0) < sf < 1.0:
        raise ValueError(f"sf must lie between nct_sf(x, df, 0) and 1, got {sf!r}")
    low, high = 0.0, max(1.0, x + 1.0)
    while nct_sf(x, df, high) < sf:
        low, high = high, high * 2.0
        if not math.isfinite(high):
            raise ValueError(f"no noncentrality reaches sf={sf!r} at x={x!r}, df={df}")
    while high - low > _ROOT_TOLERANCE * (1.0 + high):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if nct_sf(x, df, middle) < sf:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0
