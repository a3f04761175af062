"""Monte Carlo check of the gate's statistical block rule against the analytic power note.

Usage: python bench/gate_simulation.py [--sims N] [--seed S] [--trials K] [--mix E,H,F] [--binary all|majority]

Synthetic corpora: each case's true per-trial pass probability is drawn from a mix of easy cases
(45%, Beta(19, 1), mean 0.95), hard cases (35%, Beta(1, 19), mean 0.05) and flaky cases (20%, Beta(2, 2),
mean 0.5); the mix's mean pass probability is 0.545. A baseline run and a candidate run draw K trials per
case (Binomial(K, p)). "No change" gives the candidate the same probabilities; a "D-point drop" scales every
case's probability by 1 - D / 0.545, so the true mean pass rate falls by D and a case loses in proportion to
what it had (an always failing case cannot get worse). Cases stay independent draws, as the t test assumes.

Every simulated pair goes through ``runner.gate.stats.significant_drop``, the function the gate uses: per-case
mean rates into the paired t interval, per-case binary outcomes (``runner.runs.stats.case_passed``) into the exact
one-sided McNemar test, each at alpha/2. The analytic column comes from ``paired_t_power``,
``min_detectable_drop`` and ``cases_needed`` with the sd of per-case differences estimated from the simulated
data (the root mean square of each simulated comparison's sample sd). The analytic note describes the t
component alone, so it is compared with the simulated t-only rate; the combined rule can only block more.

A last block runs the whole gate, ``runner.gate.gate.evaluate``, on in-memory runs built from the same draws (40
blocking cases, tolerance and cost warnings off), and compares the power note it prints with the simulated
rates: its minimum detectable drop, the cases it says the observed drop would need, and the cases a 10-point
drop needs at the sd the note estimated from that one comparison.

Two no-change rows are printed: the default mix at 40 cases, and a stress corpus of 200 cases that are all
flaky (Beta(2, 2)), where McNemar sees many discordant pairs, its exact test is least conservative, and the
unadjusted rule (t at the 95% interval OR McNemar p < alpha) exceeds alpha. That is why the gate gives each
component alpha/2.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.gate.gate import CompareOptions, evaluate
from runner.gate.pairing import CaseInfo, RunTrials
from runner.gate.power import cases_needed, min_detectable_drop, paired_t_power
from runner.gate.quarantine import Quarantine
from runner.gate.stats import significant_drop
from runner.runs.result import TrialResult
from runner.runs.stats import BinaryRule, case_passed

DEFAULT_MIX = "0.45,0.35,0.20"
MIX_BETA = np.array([[19.0, 1.0], [1.0, 19.0], [2.0, 2.0]])
ALPHA = 0.05
TARGET_POWER = 0.8
DROP = 0.10
N_CASES = 40
CASE_GRID = (10, 15, 20, 25, 30, 35, 40, 45, 50, 60)
DROP_GRID = (0.04, 0.06, 0.08, 0.10, 0.12)
STRESS_CASES = 200
STRESS_MIX = "0,0,1"


@dataclass(frozen=True)
class Rates:
    """Block rates and noise measured over one simulated condition."""

    sims: int
    """Number of simulated baseline/candidate pairs."""
    combined: float
    """Fraction blocked by the gate's rule (t OR McNemar, each at alpha/2)."""
    t_only: float
    """Fraction where the paired t component fired."""
    mcnemar_only: float
    """Fraction where the McNemar component fired (p < alpha/2)."""
    unadjusted: float
    """Fraction blocked by t at the 1-alpha interval OR McNemar at p < alpha (no Bonferroni split)."""
    sd: float
    """Root mean square of the per-comparison sample sd of per-case differences."""


def population_mean(weights: np.ndarray) -> float:
    """Mean per-trial pass probability of the case mix."""
    return float(weights @ (MIX_BETA[:, 0] / MIX_BETA.sum(axis=1)))


def draw_probabilities(rng: np.random.Generator, n_cases: int, weights: np.ndarray) -> np.ndarray:
    kind = rng.choice(len(weights), size=n_cases, p=weights)
    probabilities: np.ndarray = rng.beta(MIX_BETA[kind, 0], MIX_BETA[kind, 1])
    return probabilities


def simulate(
    rng: np.random.Generator,
    sims: int,
    n_cases: int,
    trials: int,
    drop: float,
    binary: BinaryRule,
    weights: np.ndarray,
) -> Rates:
    combined = t_only = mcnemar_only = unadjusted = 0
    factor = 1.0 - drop / population_mean(weights)
    variances: list[float] = []
    for _ in range(sims):
        p_base = draw_probabilities(rng, n_cases, weights)
        p_cand = p_base * factor
        base_passes = rng.binomial(trials, p_base).tolist()
        cand_passes = rng.binomial(trials, p_cand).tolist()
        result = significant_drop(
            [x / trials for x in base_passes],
            [x / trials for x in cand_passes],
            [case_passed(x, trials, binary) for x in base_passes],
            [case_passed(x, trials, binary) for x in cand_passes],
            alpha=ALPHA,
        )
        combined += result.blocked
        t_only += result.t_blocks
        mcnemar_only += result.mcnemar_blocks
        unadjusted += result.t_blocks or result.mcnemar.p_value < ALPHA
        variances.append(result.paired.sd**2)
    return Rates(
        sims=sims,
        combined=combined / sims,
        t_only=t_only / sims,
        mcnemar_only=mcnemar_only / sims,
        unadjusted=unadjusted / sims,
        sd=math.sqrt(float(np.mean(variances))),
    )


@dataclass(frozen=True)
class GateNotes:
    """What ``runner.gate.gate.evaluate`` decided and printed over simulated pairs."""

    sims: int
    """Number of simulated baseline/candidate pairs."""
    blocked: float
    """Fraction the gate decided BLOCK."""
    min_detectable: list[float]
    """The note's minimum detectable drop, per pair."""
    needed_observed: list[int]
    """The note's cases for the observed drop, per pair that observed a drop (capped pairs left out)."""
    needed_drop: list[int]
    """Cases for 80% power at DROP with the sd the note estimated, per pair."""


def in_memory_run(name: str, passes: list[int], trials: int) -> RunTrials:
    """A one-variant run whose case i passed its first passes[i] of trials trials."""
    return RunTrials(name, "simulated", ("agent",), {
        ("agent", f"case-{i}"): tuple(TrialResult(f"case-{i}", "agent", t + 1, "pass" if t < x else "fail", "", "", "")
                                      for t in range(trials))
        for i, x in enumerate(passes)})


def simulate_gate(rng: np.random.Generator, sims: int, n_cases: int, trials: int, drop: float,
                  weights: np.ndarray) -> GateNotes:
    factor = 1.0 - drop / population_mean(weights)
    cases = {f"case-{i}": CaseInfo("blocking", False, "active") for i in range(n_cases)}
    options = CompareOptions(alpha=ALPHA, tolerance_points=100.0, max_cost_increase_pct=None,
                             today=dt.date(2024, 1, 1))
    blocked = 0
    mdd: list[float] = []
    observed: list[int] = []
    at_drop: list[int] = []
    for _ in range(sims):
        p_base = draw_probabilities(rng, n_cases, weights)
        base = rng.binomial(trials, p_base).tolist()
        cand = rng.binomial(trials, p_base * factor).tolist()
        report = evaluate(in_memory_run("baseline", base, trials), in_memory_run("candidate", cand, trials),
                          cases, Quarantine(), options)
        blocked += report.decision == "BLOCK"
        note = report.power
        mdd.append(note.min_detectable_drop)
        if note.target_is_observed and note.cases_needed is not None:
            observed.append(note.cases_needed)
        at_drop.append(cases_needed(DROP, note.sd, ALPHA, TARGET_POWER))
    return GateNotes(sims, blocked / sims, mdd, observed, at_drop)


def quantiles(values: list[float] | list[int]) -> str:
    """Median with the 10th and 90th percentiles."""
    q10, q50, q90 = np.percentile(np.asarray(values, dtype=float), [10, 50, 90])
    return f"{q50:.4g} [{q10:.4g}, {q90:.4g}]"


def mc_se(rate: float, sims: int) -> float:
    return math.sqrt(max(rate * (1.0 - rate), 1e-12) / sims)


def fmt(rate: float, sims: int) -> str:
    return f"{rate:.3f} ± {mc_se(rate, sims):.3f}"


def first_crossing(xs: tuple[float, ...], ys: list[float], target: float) -> tuple[str, str]:
    """First grid point at or above target, and a linear interpolation between it and the point before."""
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if y >= target:
            if i == 0:
                return f"{x:g}", f"<= {x:g}"
            x0, y0 = xs[i - 1], ys[i - 1]
            return f"{x:g}", f"{x0 + (target - y0) * (x - x0) / (y - y0):.3g}"
    return f"> {xs[-1]:g}", f"> {xs[-1]:g}"


def parse_mix(text: str) -> np.ndarray:
    """Three non-negative weights "easy,hard,flaky", normalised to sum to 1."""
    try:
        weights = np.array([float(x) for x in text.split(",")])
    except ValueError:
        raise argparse.ArgumentTypeError(f"not three numbers: {text!r}") from None
    if weights.shape != (3,) or (weights < 0).any() or weights.sum() <= 0:
        raise argparse.ArgumentTypeError(f"need three non-negative weights easy,hard,flaky: {text!r}")
    normalised: np.ndarray = weights / weights.sum()
    return normalised


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sims",
        type=int,
        default=2000,
        help="simulated pairs per condition (no change: 2x; 200-case stress: 4x)",
    )
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--trials", type=int, default=5, help="trials per case per run")
    parser.add_argument(
        "--mix",
        type=parse_mix,
        default=parse_mix(DEFAULT_MIX),
        help=f"weights of easy,hard,flaky cases (default {DEFAULT_MIX})",
    )
    parser.add_argument(
        "--binary",
        choices=("all", "majority"),
        default="all",
        help="per-case binary outcome fed to McNemar (default all, as the gate)",
    )
    args = parser.parse_args(argv)
    if args.sims < 1 or args.trials < 1:
        parser.error("--sims and --trials must be positive")
    k: int = args.trials
    binary: BinaryRule = args.binary
    weights: np.ndarray = args.mix
    started = time.perf_counter()
    streams = iter(np.random.SeedSequence(args.seed).spawn(3 + len(CASE_GRID) + len(DROP_GRID) + 2))

    def run(sims: int, n_cases: int, drop: float, mix: np.ndarray = weights) -> Rates:
        rng = np.random.default_rng(next(streams))
        return simulate(rng, sims, n_cases, k, drop, binary, mix)

    null = run(2 * args.sims, N_CASES, 0.0)
    stress = run(4 * args.sims, STRESS_CASES, 0.0, parse_mix(STRESS_MIX))
    alt = run(args.sims, N_CASES, DROP)
    sd = alt.sd
    level = ALPHA / 2
    points = f"{DROP * 100:g}-point drop"

    print(
        f"Gate simulation: {N_CASES} cases x {k} trials, alpha={ALPHA:g} (each component at {level:g}), "
        f"McNemar binary outcome={binary}, seed={args.seed}, sims={args.sims} (no change: {null.sims}, stress: {stress.sims})"
    )
    w = [f"{x:.0%}" for x in weights]
    print(
        f"Case mix: {w[0]} easy Beta(19,1), {w[1]} hard Beta(1,19), {w[2]} flaky Beta(2,2) "
        f"(mean pass probability {population_mean(weights):.3f}); a drop scales every case's probability"
    )
    print(
        f"sd of per-case differences: no change {null.sd:.4f}, {points} {sd:.4f} "
        "(the latter feeds the analytic column)"
    )
    print()
    t_power = paired_t_power(N_CASES, DROP, sd, ALPHA)
    rows: list[tuple[str, str, str]] = [
        (
            "false-block rate, no change: gate rule (t OR McNemar)",
            fmt(null.combined, null.sims),
            f"<= {ALPHA:g}",
        ),
        ("  t component (95% interval upper bound < 0)", fmt(null.t_only, null.sims), f"{level:g}"),
        (f"  McNemar component (p < {level:g})", fmt(null.mcnemar_only, null.sims), f"<= {level:g}"),
        (
            f"  unadjusted rule: t OR McNemar p < {ALPHA:g}",
            fmt(null.unadjusted, null.sims),
            f"<= {ALPHA + level:g}",
        ),
        (
            f"false-block rate, no change, {STRESS_CASES} flaky cases: gate rule",
            fmt(stress.combined, stress.sims),
            f"<= {ALPHA:g}",
        ),
        ("  unadjusted rule", fmt(stress.unadjusted, stress.sims), f"<= {ALPHA + level:g}"),
        (f"power, {points}, n={N_CASES}: gate rule", fmt(alt.combined, alt.sims), f">= {t_power:.3f}"),
        ("  t component", fmt(alt.t_only, alt.sims), f"{t_power:.3f}"),
        ("  McNemar component", fmt(alt.mcnemar_only, alt.sims), "-"),
        ("  unadjusted rule", fmt(alt.unadjusted, alt.sims), "-"),
    ]

    grid_t: list[float] = []
    grid_combined: list[float] = []
    grid_rows: list[str] = []
    for n in CASE_GRID:
        r = run(args.sims, n, DROP)
        grid_t.append(r.t_only)
        grid_combined.append(r.combined)
        grid_rows.append(
            f"  {n:>5}  {fmt(r.t_only, r.sims):>15}  {paired_t_power(n, DROP, sd, ALPHA):>8.3f}  "
            f"{fmt(r.combined, r.sims):>15}"
        )
    need = cases_needed(DROP, sd, ALPHA, TARGET_POWER)
    t_grid, t_interp = first_crossing(CASE_GRID, grid_t, TARGET_POWER)
    c_grid, c_interp = first_crossing(CASE_GRID, grid_combined, TARGET_POWER)
    rows.append(
        (
            f"cases for {TARGET_POWER:.0%} power, {points}: t component",
            f"{t_grid} (interp. {t_interp})",
            f"{need}",
        )
    )
    rows.append(("  gate rule", f"{c_grid} (interp. {c_interp})", f"<= {need}"))

    drop_t: list[float] = []
    drop_rows: list[str] = []
    for d in DROP_GRID:
        r = run(args.sims, N_CASES, d)
        drop_t.append(r.t_only)
        drop_rows.append(
            f"  {d:>5.2f}  {r.sd:>6.4f}  {fmt(r.t_only, r.sims):>15}  "
            f"{paired_t_power(N_CASES, d, r.sd, ALPHA):>8.3f}  {fmt(r.combined, r.sims):>15}"
        )
    mdd = min_detectable_drop(N_CASES, sd, ALPHA, TARGET_POWER)
    d_grid, d_interp = first_crossing(DROP_GRID, drop_t, TARGET_POWER)
    rows.append(
        (
            f"min detectable drop, n={N_CASES}, {TARGET_POWER:.0%} power: t component",
            f"{d_grid} (interp. {d_interp})",
            f"{mdd:.4f}",
        )
    )

    width = max(len(r[0]) for r in rows)
    print(f"{'quantity':<{width}}  {'simulated ± MC SE':>24}  {'analytic':>9}")
    for name, simulated, analytic in rows:
        print(f"{name:<{width}}  {simulated:>24}  {analytic:>9}")
    print()
    print(f"Power by number of cases ({points}, {k} trials):")
    print(f"  {'cases':>5}  {'t simulated':>15}  {'analytic':>8}  {'gate simulated':>15}")
    print("\n".join(grid_rows))
    print()
    print(f"Power by drop size ({N_CASES} cases, {k} trials; analytic uses each row's simulated sd):")
    print(f"  {'drop':>5}  {'sd':>6}  {'t simulated':>15}  {'analytic':>8}  {'gate simulated':>15}")
    print("\n".join(drop_rows))
    print()
    gate_sims = max(1, args.sims // 2)
    gate_null = simulate_gate(np.random.default_rng(next(streams)), gate_sims, N_CASES, k, 0.0, weights)
    gate_alt = simulate_gate(np.random.default_rng(next(streams)), gate_sims, N_CASES, k, DROP, weights)
    print(f"The whole gate (runner.gate.gate.evaluate), {N_CASES} blocking cases x {k} trials, {gate_sims} pairs each; "
          "note values are median [10th, 90th percentile]:")
    gate_rows = [
        ("verdict BLOCK, no change", fmt(gate_null.blocked, gate_null.sims), f"<= {ALPHA:g}"),
        (f"verdict BLOCK, {points}", fmt(gate_alt.blocked, gate_alt.sims), fmt(alt.combined, alt.sims)),
        ("note: min detectable drop, no change", quantiles(gate_null.min_detectable),
         f"{min_detectable_drop(N_CASES, null.sd, ALPHA, TARGET_POWER):.4f}"),
        (f"note: min detectable drop, {points}", quantiles(gate_alt.min_detectable), f"{mdd:.4f}"),
        (f"note: cases for the observed drop, {points}", quantiles(gate_alt.needed_observed), f"{need}"),
        (f"cases for a {points} at the note's sd", quantiles(gate_alt.needed_drop), f"{need}"),
    ]
    gate_width = max(len(r[0]) for r in gate_rows)
    print(f"  {'quantity':<{gate_width}}  {'gate':>26}  {'simulation / analytic':>22}")
    for name, simulated, reference in gate_rows:
        print(f"  {name:<{gate_width}}  {simulated:>26}  {reference:>22}")
    print()
    print(f"elapsed {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
