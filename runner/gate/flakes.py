"""Flake detection over one run: STABLE_PASS, STABLE_FAIL or FLAKY per case, before any comparison is trusted.

Error trials are counted apart and left out of the rate, as in ``runner.gate.pairing``. A case with fewer than
``MIN_TRIALS`` non-error trials makes the whole report a refusal (``ExitCode.BLOCK``): one or two trials cannot tell
a flaky case from a stable one. Critical cases are never quarantine candidates. Exit codes: OK all stable, WARN
flaky cases exist, BAD_INPUT bad input, BLOCK too few trials. What it prints is ``runner.gate.render``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from corpus.errors import ExitCode, UsageError
from runner.gate.pairing import ABSENT, MIN_TRIALS, CaseInfo, RunTrials
from runner.gate.quarantine import Stub
from runner.runs.aggregate import Aggregate, cell_aggregate
from runner.runs.stats import CaseStability, case_stability, wilson_interval


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
    tally: Aggregate
    """Its trials counted (``scored`` is the non-error ones)."""
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
    policy_source: str = "the corpus"
    """Where criticality came from: the run's record, or a corpus as it is today."""

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


def detect_flakes(run: RunTrials, cases: Mapping[str, CaseInfo], options: FlakesOptions,
                  policy_source: str = "the corpus") -> FlakesReport:
    """Every case of a run with its stability."""
    single = len(run.variants) == 1
    found: list[CaseFlakiness] = []
    for (variant, case_id), records in run.trials.items():
        counts = cell_aggregate(variant, case_id, records)
        found.append(CaseFlakiness(
            key=case_id if single else f"{variant}::{case_id}",
            tally=counts,
            stability=case_stability(counts.passes, counts.scored) if counts.scored else None,
            wilson=counts.wilson or wilson_interval(0, 0),
            pass_at_k=counts.pass_at_k.get(options.k),
            pass_hat_k=counts.pass_hat_k.get(options.k),
            critical=cases.get(case_id, ABSENT).critical,
        ))
    found.sort(key=lambda c: c.key)
    short = tuple(c.key for c in found if c.tally.scored < MIN_TRIALS)
    return FlakesReport(run, options.k, tuple(found), short, policy_source)


def quarantine_stubs(report: FlakesReport) -> list[Stub]:
    """Stub entries for the quarantine candidates; owner and expiry are left for a person."""
    return [Stub(c.key, f"flaky in run {report.run.run_id}: {c.tally.passes}/{c.tally.scored} passed")
            for c in report.cases if c.quarantine_candidate]
