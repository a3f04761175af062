"""Pair two runs case by case: regressions, fixes, lower pass rates, new and missing cases, and the summary.

Keys. When each run has a single variant, rows are keyed by case id: that is the usual comparison of an old and a
new prompt, tool or model, whose variants carry different names. When either run is a matrix, rows are keyed by
``variant::case`` and only equal keys pair.

Trials. Error trials (the harness could not establish an outcome) are counted and shown but left out of the pass
rate: a case's rate is passes / (passes + fails), trials averaged within the case. A case *passes*, for the
regression and fix lists and for McNemar, when every non-error trial passed: ``runner.gate.stats.case_passed`` with
``rule="all"`` (the pass^k view; the simulation in ``bench/gate_simulation.py`` shows it sees declines that a
majority rule averages away).

Policy. Policy and criticality come from the corpus as it is now. A case that is not an active case of the
corpus (deleted or deprecated) is advisory; a critical case is blocking whatever its policy says.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

import numpy as np

from corpus.errors import HindcastError, UsageError
from corpus.model import Policy
from corpus.store import Corpus
from runner.gate.quarantine import Quarantine, QuarantineEntry
from runner.gate.stats import case_passed
from runner.runs.results import LoadedRun, load_run

Outcome = Literal["pass", "fail", "error"]
OUTCOMES: tuple[str, ...] = ("pass", "fail", "error")
MIN_TRIALS = 3
"""Fewer non-error trials than this for any case and compare and flakes refuse to judge."""


@dataclass(frozen=True)
class TrialRecord:
    """What compare and flakes read from one trial's result."""

    trial: int
    """Trial number, from 1."""
    outcome: Outcome
    """pass, fail, or error (no outcome could be established)."""
    reason: str = ""
    """Why it failed or errored, as the runner recorded it."""
    duration: float | None = None
    """Total seconds of the trial, when recorded."""
    cost_usd: float | None = None
    """Agent cost in US dollars, when the agent reported it."""
    tokens: int | None = None
    """Tokens the agent used, when it reported them."""


@dataclass(frozen=True)
class RunTrials:
    """A run reduced to its identity and every trial by (variant, case)."""

    run_id: str
    """The run's id (its directory name)."""
    dataset_fingerprint: str
    """Fingerprint of the corpus the run was made on."""
    variants: tuple[str, ...]
    """The run's variants as its manifest lists them."""
    trials: Mapping[tuple[str, str], tuple[TrialRecord, ...]]
    """Trials by (variant, case id), each sorted by trial number; a case without any trial is absent."""


@dataclass(frozen=True)
class Tally:
    """One case's trials in one run."""

    passes: int
    """Trials that passed."""
    fails: int
    """Trials that failed."""
    errors: int
    """Trials without an outcome; not part of the rate."""
    reason: str = ""
    """The most common reason among failed (else errored) trials; empty when every trial passed."""

    @property
    def trials(self) -> int:
        """Non-error trials, the denominator of the rate."""
        return self.passes + self.fails

    @property
    def rate(self) -> float:
        """Pass rate over non-error trials; nan without any."""
        return self.passes / self.trials if self.trials else math.nan

    @property
    def passed(self) -> bool:
        """The case's binary outcome: every non-error trial passed (``case_passed`` rule "all")."""
        return self.trials > 0 and case_passed(self.passes, self.trials, "all")

    @property
    def every_trial_passed(self) -> bool:
        """Every trial passed, errors included: what the critical-case rule asks of the baseline."""
        return self.passes > 0 and self.fails == 0 and self.errors == 0

    def describe(self) -> str:
        """``pass (5/5)`` or ``fail (2/5 passed, 1 error)``."""
        errors = f", {self.errors} error{'s' if self.errors != 1 else ''}" if self.errors else ""
        if self.passed:
            return f"pass ({self.passes}/{self.trials}{errors})"
        return f"fail ({self.passes}/{self.trials} passed{errors})"


def from_loaded(run: LoadedRun) -> RunTrials:
    """The trials of a run read by ``runner.runs.results.load_run``."""
    trials: dict[tuple[str, str], list[TrialRecord]] = {}
    for result in run.trials:
        record = TrialRecord(result.trial, result.outcome, result.reason, result.durations.total,
                             result.cost_usd, result.tokens)
        trials.setdefault((result.variant, result.case_id), []).append(record)
    manifest = run.manifest
    return RunTrials(manifest.run_id, manifest.dataset_fingerprint,
                     tuple(v.name for v in manifest.config.variants),
                     {key: tuple(sorted(records, key=lambda r: r.trial)) for key, records in trials.items()})


def load_trials(run_dir: Path) -> RunTrials:
    """Read a run directory; anything unreadable is bad input (exit 3)."""
    try:
        return from_loaded(load_run(run_dir))
    except HindcastError as exc:
        raise UsageError(exc.message) from None
    except OSError as exc:
        raise UsageError(f"{exc.filename or run_dir}: cannot read: {exc.strerror}") from None


def tally(records: Iterable[TrialRecord]) -> Tally:
    """Count a case's outcomes and pick its failure reason."""
    records = list(records)
    counts = Counter(r.outcome for r in records)
    failing = [r.reason for r in records if r.outcome == "fail" and r.reason] or [
        r.reason for r in records if r.outcome == "error" and r.reason
    ]
    reason = Counter(failing).most_common(1)[0][0] if failing else ""
    return Tally(counts["pass"], counts["fail"], counts["error"], reason)


@dataclass(frozen=True)
class CaseInfo:
    """A case's governance as the corpus says now."""

    policy: Policy
    """advisory or blocking."""
    critical: bool
    """Blocks on any regression and is never quarantined."""
    status: Literal["active", "deprecated", "absent"]
    """active, deprecated, or not in the corpus at all."""

    @property
    def blocking(self) -> bool:
        """Whether the case can block the gate: active and blocking policy, or critical."""
        return self.status == "active" and (self.critical or self.policy == "blocking")

    def label(self) -> str:
        """``blocking, critical``, ``blocking``, ``advisory`` or ``advisory: not in corpus``."""
        if self.status == "absent":
            return "advisory: not in corpus"
        if self.status == "deprecated":
            return "advisory: deprecated"
        if self.critical:
            return "blocking, critical"
        return "blocking" if self.blocking else "advisory"


ABSENT = CaseInfo("advisory", False, "absent")


def case_index(corpus: Corpus) -> dict[str, CaseInfo]:
    """Policy and criticality of every case in the corpus; deprecated cases are advisory and never critical."""
    index: dict[str, CaseInfo] = {}
    for stored in corpus.load_all():
        case = stored.case
        if case.status == "active":
            index[case.id] = CaseInfo(case.policy, case.critical, "active")
        else:
            index[case.id] = CaseInfo("advisory", False, "deprecated")
    return index


@dataclass(frozen=True)
class Row:
    """One compared key: its case, both runs' tallies and whether a quarantine entry excludes it."""

    key: str
    """Case id, or variant::case for matrix runs."""
    case_id: str
    """The case id."""
    labels: tuple[str, ...]
    """Names a quarantine entry may use for this row: the case id and variant::case of each side."""
    info: CaseInfo
    """Policy and criticality."""
    baseline: Tally | None
    """The baseline's trials; None when the baseline did not run it (a new case)."""
    candidate: Tally | None
    """The candidate's trials; None when the candidate did not run it (a missing case)."""
    quarantined_by: QuarantineEntry | None = None
    """The acceptable, unexpired entry that takes this row out of the test and the regression list."""

    @property
    def paired(self) -> bool:
        """Both runs have it."""
        return self.baseline is not None and self.candidate is not None

    @property
    def regression(self) -> bool:
        """Passed in the baseline, fails in the candidate."""
        return self.baseline is not None and self.candidate is not None and (
            self.baseline.passed and not self.candidate.passed)

    @property
    def fix(self) -> bool:
        """Failed in the baseline, passes in the candidate."""
        return self.baseline is not None and self.candidate is not None and (
            not self.baseline.passed and self.candidate.passed)

    @property
    def declined(self) -> bool:
        """Not a regression, but the pass rate fell (a flaky case became flakier)."""
        return self.baseline is not None and self.candidate is not None and not self.regression and (
            self.candidate.rate < self.baseline.rate)

    @property
    def gated(self) -> bool:
        """Part of the statistical test: paired, blocking and not quarantined."""
        return self.paired and self.info.blocking and self.quarantined_by is None

    @property
    def advisory(self) -> bool:
        """Paired, advisory and not quarantined: reported with its own numbers, never blocking."""
        return self.paired and not self.info.blocking and self.quarantined_by is None


def pair_runs(baseline: RunTrials, candidate: RunTrials, cases: Mapping[str, CaseInfo],
              quarantine: Quarantine, today: date) -> tuple[str, list[Row]]:
    """Rows for every key either run has, sorted by key, and what they are keyed by."""
    single = len(baseline.variants) == 1 and len(candidate.variants) == 1
    keyed_by = "case" if single else "variant::case"
    if not single and not set(baseline.variants) & set(candidate.variants):
        raise UsageError(f"cannot pair variants {', '.join(baseline.variants)} with {', '.join(candidate.variants)}: "
                       "matrix runs pair by variant::case and share no variant name")

    def by_key(run: RunTrials) -> dict[str, tuple[str, str, tuple[TrialRecord, ...]]]:
        return {(case if single else f"{variant}::{case}"): (variant, case, records)
                for (variant, case), records in run.trials.items()}

    base, cand = by_key(baseline), by_key(candidate)
    rows: list[Row] = []
    for key in sorted(base.keys() | cand.keys()):
        sides = [side[key] for side in (base, cand) if key in side]
        case_id = sides[0][1]
        labels = tuple(dict.fromkeys([case_id, *(f"{variant}::{case_id}" for variant, _, _ in sides)]))
        info = cases.get(case_id, ABSENT)
        entry = None if info.critical else quarantine.excluding(labels, today)
        rows.append(Row(key, case_id, labels, info,
                        tally(base[key][2]) if key in base else None,
                        tally(cand[key][2]) if key in cand else None, entry))
    return keyed_by, rows


# --------------------------------------------------------------------------------------------------------
# Summary numbers


@dataclass(frozen=True)
class RateChange:
    """Mean per-case pass rate (trials averaged within each case) before and after, over the same cases."""

    cases: int
    """Number of cases averaged."""
    baseline: float
    """Baseline mean rate; nan without cases."""
    candidate: float
    """Candidate mean rate; nan without cases."""

    @property
    def points(self) -> float:
        """Change in percentage points; negative is a drop."""
        return (self.candidate - self.baseline) * 100.0


@dataclass(frozen=True)
class Spread:
    """Duration percentiles of one run's trials, in seconds (None when no trial recorded a duration)."""

    p50: float | None
    """Median."""
    p99: float | None
    """99th percentile (linear interpolation between order statistics)."""


@dataclass(frozen=True)
class Spend:
    """A resource (cost or tokens) over the trials that recorded it."""

    total: float
    """Sum over recording trials."""
    trials: int
    """Trials that recorded it."""

    @property
    def per_trial(self) -> float:
        """Mean per recording trial."""
        return self.total / self.trials


@dataclass(frozen=True)
class Summary:
    """The numbers under the lists. Rates exclude quarantined rows; durations and spend cover every paired row."""

    blocking: RateChange
    """Cases that can block, not quarantined."""
    advisory: RateChange
    """Advisory cases, not quarantined."""
    duration: tuple[Spread, Spread]
    """Baseline and candidate trial durations."""
    cost: tuple[Spend | None, Spend | None]
    """Baseline and candidate cost in USD, where recorded."""
    tokens: tuple[Spend | None, Spend | None]
    """Baseline and candidate tokens, where recorded."""

    @property
    def cost_change_pct(self) -> float | None:
        """Change of the mean cost per trial in percent; None unless both runs recorded a nonzero baseline."""
        before, after = self.cost
        if before is None or after is None or before.per_trial <= 0.0:
            return None
        return (after.per_trial / before.per_trial - 1.0) * 100.0


def rate_change(rows: Sequence[Row]) -> RateChange:
    """Mean per-case rates of paired rows."""
    base = [r.baseline.rate for r in rows if r.baseline is not None and r.candidate is not None]
    cand = [r.candidate.rate for r in rows if r.baseline is not None and r.candidate is not None]
    if not base:
        return RateChange(0, math.nan, math.nan)
    return RateChange(len(base), math.fsum(base) / len(base), math.fsum(cand) / len(cand))


def spread(values: Sequence[float]) -> Spread:
    """p50 and p99 of durations."""
    if not values:
        return Spread(None, None)
    p50, p99 = np.percentile(np.asarray(values, dtype=float), [50, 99])
    return Spread(float(p50), float(p99))


def spend(values: Sequence[float | int | None]) -> Spend | None:
    """Sum and count of the recorded values; None when none was recorded."""
    recorded = [float(v) for v in values if v is not None]
    return Spend(math.fsum(recorded), len(recorded)) if recorded else None


def summarize(rows: Sequence[Row], baseline: RunTrials, candidate: RunTrials, keyed_by: str) -> Summary:
    """Pass rates by policy, and durations, cost and tokens over the keys both runs have."""
    paired_keys = {r.key for r in rows if r.paired}

    def trials_of(run: RunTrials) -> list[TrialRecord]:
        return [t for (variant, case), records in run.trials.items()
                if (case if keyed_by == "case" else f"{variant}::{case}") in paired_keys for t in records]

    base, cand = trials_of(baseline), trials_of(candidate)
    return Summary(
        blocking=rate_change([r for r in rows if r.gated]),
        advisory=rate_change([r for r in rows if r.advisory]),
        duration=(spread([t.duration for t in base if t.duration is not None]),
                  spread([t.duration for t in cand if t.duration is not None])),
        cost=(spend([t.cost_usd for t in base]), spend([t.cost_usd for t in cand])),
        tokens=(spend([t.tokens for t in base]), spend([t.tokens for t in cand])),
    )
