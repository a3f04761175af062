"""Flake detection over one run: STABLE_PASS, STABLE_FAIL or FLAKY per case, before any comparison is trusted.

Error trials are counted apart and left out of the rate, as in ``runner.gate.pairing``. A case with fewer than
``MIN_TRIALS`` non-error trials makes the whole report a refusal (exit 4): one or two trials cannot tell a flaky
case from a stable one. Critical cases are never quarantine candidates. Exit codes: 0 all stable, 2 flaky cases
exist, 3 bad input, 4 too few trials.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from corpus.errors import ExitCode, UsageError
from runner.gate.pairing import ABSENT, MIN_TRIALS, CaseInfo, RunTrials, Tally, tally
from runner.gate.quarantine import Stub
from runner.gate.stats import CaseStability, classify_case, pass_at_k, pass_hat_k, wilson_interval


@dataclass(frozen=True)
class FlakesOptions:
    """What the flake report computes."""

    k: int = 3
    """The k of pass@k and pass^k."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise UsageError(f"--k must be at least 1, got {self.k}")


@dataclass(frozen=True)
class CaseFlakiness:
    """One case (or variant::case) of the run."""

    key: str
    """Case id, or variant::case when the run has several variants."""
    tally: Tally
    """Its trials."""
    stability: CaseStability | None
    """STABLE_PASS, STABLE_FAIL or FLAKY; None without a non-error trial."""
    wilson: tuple[float, float]
    """Wilson 95% interval of the pass rate."""
    pass_at_k: float | None
    """Unbiased pass@k; None when k exceeds the non-error trials."""
    pass_hat_k: float | None
    """Unbiased pass^k; None when k exceeds the non-error trials."""
    critical: bool
    """Critical in the corpus: never a quarantine candidate."""

    @property
    def quarantine_candidate(self) -> bool:
        """FLAKY and not critical."""
        return self.stability == "FLAKY" and not self.critical


@dataclass(frozen=True)
class FlakesReport:
    """The flake report of one run."""

    run: RunTrials
    """The run."""
    k: int
    """The k used."""
    cases: tuple[CaseFlakiness, ...]
    """Every case of the run, sorted by key."""
    short: tuple[str, ...]
    """Keys with fewer than MIN_TRIALS non-error trials (a refusal)."""

    @property
    def flaky(self) -> list[CaseFlakiness]:
        """The FLAKY cases."""
        return [c for c in self.cases if c.stability == "FLAKY"]

    @property
    def exit_code(self) -> ExitCode:
        """BLOCK with too few trials to label a case, WARN with flaky cases, else OK."""
        if self.short or not self.cases:
            return ExitCode.BLOCK
        return ExitCode.WARN if self.flaky else ExitCode.OK


def detect_flakes(run: RunTrials, cases: Mapping[str, CaseInfo], options: FlakesOptions) -> FlakesReport:
    """Classify every case of a run."""
    single = len(run.variants) == 1
    found: list[CaseFlakiness] = []
    for (variant, case_id), records in run.trials.items():
        counts = tally(records)
        n = counts.trials
        found.append(CaseFlakiness(
            key=case_id if single else f"{variant}::{case_id}",
            tally=counts,
            stability=classify_case(counts.passes, n) if n else None,
            wilson=wilson_interval(counts.passes, n),
            pass_at_k=pass_at_k(n, counts.passes, options.k) if options.k <= n else None,
            pass_hat_k=pass_hat_k(n, counts.passes, options.k) if options.k <= n else None,
            critical=cases.get(case_id, ABSENT).critical,
        ))
    found.sort(key=lambda c: c.key)
    short = tuple(c.key for c in found if c.tally.trials < MIN_TRIALS)
    return FlakesReport(run, options.k, tuple(found), short)


def quarantine_stubs(report: FlakesReport) -> list[Stub]:
    """Stub entries for the quarantine candidates; owner and expiry are left for a person."""
    return [Stub(c.key, f"flaky in run {report.run.run_id}: {c.tally.passes}/{c.tally.trials} passed")
            for c in report.cases if c.quarantine_candidate]


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def render_flakes(report: FlakesReport) -> list[str]:
    """The text report: one line per case, then the counts."""
    k = report.k
    width = max([len(c.key) for c in report.cases] + [4])
    header = (f"{'CASE':<{width}}  {'CLASS':<11}  {'PASSED':>7}  {'ERR':>3}  {'RATE':>4}  {'WILSON 95%':<10}  "
              f"{f'PASS@{k}':>6}  {f'PASS^{k}':>6}  NOTE")
    lines = [header]
    for c in report.cases:
        t = c.tally
        rate = f"{t.rate:.0%}" if t.trials else "-"
        note = ("critical, not quarantinable" if c.stability == "FLAKY" and c.critical
                else "quarantine candidate" if c.quarantine_candidate
                else f"fewer than {MIN_TRIALS} trials" if c.key in report.short else "")
        lines.append(f"{c.key:<{width}}  {c.stability or '-':<11}  {f'{t.passes}/{t.trials}':>7}  "
                     f"{t.errors:>3}  {rate:>4}  {f'{c.wilson[0]:.0%}-{c.wilson[1]:.0%}':<10}  "
                     f"{_num(c.pass_at_k):>6}  {_num(c.pass_hat_k):>6}  {note}".rstrip())
    counts = {s: sum(1 for c in report.cases if c.stability == s) for s in ("STABLE_PASS", "STABLE_FAIL", "FLAKY")}
    candidates = sum(1 for c in report.cases if c.quarantine_candidate)
    lines.append(f"{len(report.cases)} cases: {counts['STABLE_PASS']} stable pass, {counts['STABLE_FAIL']} "
                 f"stable fail, {counts['FLAKY']} flaky ({candidates} quarantine candidate{'' if candidates == 1 else 's'})")
    if report.short:
        lines.append(f"refused: fewer than {MIN_TRIALS} non-error trials for {', '.join(report.short)}")
    elif not report.cases:
        lines.append(f"refused: run {report.run.run_id} has no trials")
    return lines


def flakes_json(report: FlakesReport) -> str:
    """The report as one JSON document."""
    data: dict[str, Any] = {
        "run_id": report.run.run_id,
        "k": report.k,
        "exit_code": report.exit_code,
        "refused": list(report.short),
        "cases": [{
            "key": c.key, "class": c.stability, "passes": c.tally.passes, "trials": c.tally.trials,
            "errors": c.tally.errors, "rate": c.tally.rate if c.tally.trials else None,
            "wilson": list(c.wilson), "pass_at_k": c.pass_at_k, "pass_hat_k": c.pass_hat_k,
            "critical": c.critical, "quarantine_candidate": c.quarantine_candidate,
        } for c in report.cases],
    }
    return json.dumps(data, indent=2, sort_keys=True)
