"""Holdout cases at the gate: left out of a tuning comparison, and with `compare --holdout` the candidate's gain on
the tuning set set against its gain on the holdout set.

Which cases are holdout comes from where policy comes from (``runner.gate.pairing.policy_for``): what the runs
recorded, or the corpus as it is today with --corpus.

The gap. A prompt or tool tuned against the tuning cases can gain there and nowhere else. Per case the gain is
the candidate's pass rate minus the baseline's (trials averaged within the case, as the gate's paired t test);
each set's mean gain has its paired t interval (``runner.gate.stats.paired_difference``). The gap is the tuning
set's mean gain minus the holdout set's; its standard error is ``sqrt(sd_t^2 / n_t + sd_h^2 / n_h)`` and its
two-sided ``1 - alpha`` interval uses ``min(n_t, n_h) - 1`` degrees of freedom (the conservative choice for two
samples of unequal spread). The gap is significant when that interval lies above 0. Its power is the gate's:
the smallest true gap seen with 80% power (``runner.gate.power.min_detectable_drop`` at the same degrees of
freedom and standard error), the spread of each set planned with ``estimate_sd_of_differences`` (floored, or the
worst case with fewer than two cases). The rule ``holdout-gap`` warns when the tuning set gained and the gap is
significant or over the tolerance: a holdout set is small, and a gap the test cannot call significant still asks
a person to look, as an underpowered drop does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from runner.gate.finding import Finding
from runner.gate.pairing import CaseInfo, Row, RunTrials
from runner.gate.power import estimate_sd_of_differences, min_detectable_drop
from runner.gate.stats import PairedDifference, paired_difference
from runner.gate.tdist import t_ppf

TARGET_POWER = 0.8


def drop_cases(run: RunTrials, cases: frozenset[str]) -> RunTrials:
    """The run as if it had never run these cases (their trials, behaviour and records gone)."""
    if not cases:
        return run
    return replace(run, trials={k: v for k, v in run.trials.items() if k[1] not in cases},
                   behaviour={k: v for k, v in run.behaviour.items() if k[1] not in cases},
                   cases_meta={c: m for c, m in run.cases_meta.items() if c not in cases})


def hold_out(baseline: RunTrials, candidate: RunTrials, cases: Mapping[str, CaseInfo],
             include: bool) -> tuple[RunTrials, RunTrials, frozenset[str], tuple[str, ...]]:
    """The two runs as the gate sees them, the holdout cases either ran, and those left out: all of them unless
    include (compare --holdout), none with it."""
    ran = {case for run in (baseline, candidate) for _, case in run.trials}
    held = frozenset(case for case, info in cases.items() if info.holdout) & ran
    if include or not held:
        return baseline, candidate, held, ()
    return drop_cases(baseline, held), drop_cases(candidate, held), held, tuple(sorted(held))


def held_out_note(held_out: Sequence[str]) -> str | None:
    """compare's first line when it left holdout cases out; None when it left none out."""
    if not held_out:
        return None
    n = len(held_out)
    return (f"holdout: {n} holdout case{'' if n == 1 else 's'} held out of the decision and every figure "
            f"(compare --holdout includes them)")


@dataclass(frozen=True)
class SetGain:
    """One set's cases in both runs: pass rates and the paired difference."""

    baseline_rate: float
    """Mean per-case pass rate in the baseline; nan without a case."""
    candidate_rate: float
    """The same in the candidate."""
    paired: PairedDifference
    """Paired t summary of per-case gains (candidate - baseline), interval at 1 - alpha."""
    sd: float
    """The spread of per-case gains the power is planned with (``estimate_sd_of_differences``)."""


@dataclass(frozen=True)
class HoldoutGap:
    """The candidate's gain on the tuning set against its gain on the holdout set."""

    tuning: SetGain
    """The cases that are not holdout."""
    holdout: SetGain
    """The holdout cases."""
    gap: float
    """Tuning gain minus holdout gain (rate units); nan when a set has no scored case."""
    ci_low: float
    """Lower bound of the gap's two-sided 1 - alpha interval; -inf with fewer than two cases in a set."""
    ci_high: float
    """Upper bound; inf likewise."""
    significant: bool
    """The interval lies above 0: the holdout set gained less than the tuning set, beyond chance."""
    min_detectable_gap: float
    """Smallest true gap seen with 80% power; inf with fewer than two cases in a set."""
    confidence: float
    """1 - alpha."""

    def lines(self) -> list[str]:
        """The text report's section: the two sets side by side, the gap and its power."""
        out = ["Tuning set and holdout set (gain = candidate - baseline, per case, averaged):"]
        for name, side in (("tuning", self.tuning), ("holdout", self.holdout)):
            p = side.paired
            if not p.n:
                out.append(f"  {name}: no scored case")
                continue
            interval = ("none (fewer than 2 cases)" if math.isinf(p.ci_low)
                        else f"[{p.ci_low * 100:+.1f}, {p.ci_high * 100:+.1f}] pp")
            out.append(f"  {name} ({p.n} case{'' if p.n == 1 else 's'}): {side.baseline_rate * 100:.1f}% -> "
                       f"{side.candidate_rate * 100:.1f}% (gain {p.mean_difference * 100:+.1f} pp, "
                       f"{self.confidence:.0%} interval {interval})")
        if not math.isnan(self.gap):
            interval = ("none (fewer than 2 cases in a set)" if math.isinf(self.ci_low)
                        else f"[{self.ci_low * 100:+.1f}, {self.ci_high * 100:+.1f}] pp")
            out.append(f"  gap (tuning gain - holdout gain): {self.gap * 100:+.1f} pp, {self.confidence:.0%} "
                       f"interval {interval}, {'significant' if self.significant else 'not significant'}")
            out.append(f"  power: {self.power_text()}")
        return out

    def power_text(self) -> str:
        """What gap the holdout set could have shown."""
        mdg = self.min_detectable_gap
        if math.isinf(mdg):
            return "no gap can be detected (each set needs at least 2 cases)"
        if mdg > 1.0:
            return "no gap reaches 80% power"
        return f"gaps of {mdg * 100:.1f} pp or more are seen with at least 80% power"


Pair = tuple[str, float, float, int]
"""A scored case of both runs: its id, the baseline's and the candidate's pass rate, the fewer scored trials."""


def _scored(rows: Sequence[Row]) -> list[Pair]:
    return [(r.case_id, r.baseline.rate, r.candidate.rate, min(r.baseline.scored, r.candidate.scored))
            for r in rows if r.baseline is not None and r.candidate is not None
            and r.baseline.scored and r.candidate.scored]


def _set_gain(pairs: Sequence[Pair], alpha: float, trials: int) -> SetGain:
    base, cand = [b for _, b, _, _ in pairs], [c for _, _, c, _ in pairs]
    paired = paired_difference(base, cand, confidence=1.0 - alpha)
    sd = estimate_sd_of_differences([c - b for b, c in zip(base, cand, strict=True)], trials).value
    return SetGain(math.fsum(base) / len(base) if base else math.nan,
                   math.fsum(cand) / len(cand) if cand else math.nan, paired, sd)


def holdout_gap(rows: Sequence[Row], held: frozenset[str], alpha: float) -> HoldoutGap:
    """The two sets' gains and the gap between them (rows of both runs, every policy)."""
    scored = _scored(rows)
    trials = max(1, min((k for _, _, _, k in scored), default=1))
    tuning = _set_gain([p for p in scored if p[0] not in held], alpha, trials)
    holdout = _set_gain([p for p in scored if p[0] in held], alpha, trials)
    n_t, n_h = tuning.paired.n, holdout.paired.n
    confidence = 1.0 - alpha
    if not n_t or not n_h:
        return HoldoutGap(tuning, holdout, math.nan, -math.inf, math.inf, False, math.inf, confidence)
    gap = tuning.paired.mean_difference - holdout.paired.mean_difference
    if min(n_t, n_h) < 2:
        return HoldoutGap(tuning, holdout, gap, -math.inf, math.inf, False, math.inf, confidence)
    df = min(n_t, n_h) - 1
    se = math.sqrt(tuning.paired.sd ** 2 / n_t + holdout.paired.sd ** 2 / n_h)
    if se == 0.0:
        low = high = gap
    else:
        critical = t_ppf(1.0 - alpha / 2.0, df)
        low, high = gap - critical * se, gap + critical * se
    planned = math.sqrt(tuning.sd ** 2 / n_t + holdout.sd ** 2 / n_h)
    n = df + 1
    mdg = min_detectable_drop(n, planned * math.sqrt(n), alpha, TARGET_POWER)
    return HoldoutGap(tuning, holdout, gap, low, high, low > 0.0, mdg, confidence)


def holdout_findings(gap: HoldoutGap | None, tolerance_points: float) -> list[Finding]:
    """Rule holdout-gap: the tuning set gained and the holdout set did not match it."""
    if gap is None or math.isnan(gap.gap) or not gap.tuning.paired.mean_difference > 0.0:
        return []
    points = gap.gap * 100.0
    if not (gap.significant or points > tolerance_points):
        return []
    t, h = gap.tuning.paired, gap.holdout.paired
    verdict = "significant" if gap.significant else f"not significant ({gap.power_text()})"
    return [Finding("WARN", "holdout-gap", (
        f"the candidate gained {t.mean_difference * 100:+.1f} pp on {t.n} tuning case{'' if t.n == 1 else 's'} and "
        f"{h.mean_difference * 100:+.1f} pp on {h.n} holdout case{'' if h.n == 1 else 's'}: a gap of "
        f"{points:.1f} pp, {verdict}; a gain the holdout set does not share is tuned to the cases, not the "
        f"problem (rule holdout-gap)"))]
