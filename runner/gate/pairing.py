"""Pair two runs case by case: regressions, fixes, lower pass rates, new and missing cases.

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

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

from corpus.errors import HindcastError, UsageError
from corpus.model import Policy
from corpus.store import Corpus
from runner.gate.quarantine import Quarantine, QuarantineEntry
from runner.runs.aggregate import Aggregate, cell_aggregate
from runner.runs.load import LoadedRun, load_run
from runner.runs.result import TrialResult

MIN_TRIALS = 3
"""Fewer non-error trials than this for any case and compare and flakes refuse to judge."""


@dataclass(frozen=True)
class RunTrials:
    """A run reduced to its identity and every trial by (variant, case)."""

    run_id: str
    """The run's id (its directory name)."""
    dataset_fingerprint: str
    """Fingerprint of the corpus the run was made on."""
    variants: tuple[str, ...]
    """The run's variants as its manifest lists them."""
    trials: Mapping[tuple[str, str], tuple[TrialResult, ...]]
    """Trials by (variant, case id), each sorted by trial number; a case without any trial is absent."""


def from_loaded(run: LoadedRun) -> RunTrials:
    """The trials of a run read by ``runner.runs.load.load_run``."""
    trials: dict[tuple[str, str], list[TrialResult]] = {}
    for result in run.trials:
        trials.setdefault((result.variant, result.case_id), []).append(result)
    manifest = run.manifest
    return RunTrials(manifest.run_id, manifest.dataset_fingerprint,
                     tuple(v.name for v in manifest.config.variants),
                     {key: tuple(sorted(records, key=lambda r: r.trial)) for key, records in trials.items()})


def load_trials(run_dir: Path) -> RunTrials:
    """Read a run directory; anything unreadable is bad input (UsageError, ExitCode.BAD_INPUT)."""
    try:
        return from_loaded(load_run(run_dir))
    except HindcastError as exc:
        raise UsageError(exc.message) from None
    except OSError as exc:
        raise UsageError(f"{exc.filename or run_dir}: cannot read: {exc.strerror}") from None


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
    """One compared key: its case, both runs' aggregates and whether a quarantine entry excludes it."""

    key: str
    """Case id, or variant::case for matrix runs."""
    case_id: str
    """The case id."""
    labels: tuple[str, ...]
    """Names a quarantine entry may use for this row: the case id and variant::case of each side."""
    info: CaseInfo
    """Policy and criticality."""
    baseline: Aggregate | None
    """The baseline's trials; None when the baseline did not run it (a new case)."""
    candidate: Aggregate | None
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

    def by_key(run: RunTrials) -> dict[str, tuple[str, str, tuple[TrialResult, ...]]]:
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
                        cell_aggregate(*base[key]) if key in base else None,
                        cell_aggregate(*cand[key]) if key in cand else None, entry))
    return keyed_by, rows
