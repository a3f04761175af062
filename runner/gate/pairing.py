"""Pair two runs case by case: regressions, fixes, lower pass rates, new and missing cases.

Keys. When each run has a single variant, rows are keyed by case id: that is the usual comparison of an old and a
new prompt, tool or model, whose variants carry different names. When either run is a matrix, rows are keyed by
``variant::case`` and only equal keys pair.

Trials. Error trials (the harness could not establish an outcome) are counted and shown but left out of the pass
rate: a case's rate is passes / (passes + fails), trials averaged within the case. A case *passes*, for the
regression and fix lists and for McNemar, when every non-error trial passed: ``runner.runs.stats.case_passed`` with
``rule="all"`` (the pass^k view; the simulation in ``bench/gate_simulation.py`` shows it sees declines that a
majority rule averages away).

Policy. Policy and criticality come from what the runs recorded when they started (the candidate's record first,
then the baseline's), so two runs can be compared from their directories alone; with --corpus they come from the
corpus as it is now. A case that is not an active case (deleted or deprecated) is advisory; a critical case is
blocking whatever its policy says.

Variants. --baseline-variant and --candidate-variant reduce a run to one of its variants, so two variants of one
matrix run, or one variant of each of two runs, compare by case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Literal

from corpus.errors import HindcastError, UsageError
from corpus.model import Policy
from corpus.store import Corpus
from runner.gate.quarantine import Quarantine, QuarantineEntry
from runner.runs.aggregate import Aggregate, cell_aggregate
from runner.runs.behaviour_record import read_behaviour
from runner.runs.load import LoadedRun, load_run
from runner.runs.manifest import CaseMeta
from runner.runs.result import TrialResult, trial_path

MIN_TRIALS = 3
"""Fewer non-error trials than this for any case and compare and flakes refuse to judge."""
TOKEN_BUCKETS = ("input", "cache_read", "cache_write", "output")
"""The disjoint token buckets of a behaviour record, in report order."""


@dataclass(frozen=True)
class TrialBehaviour:
    """What compare reads of one trial's behaviour.json."""

    metrics: Mapping[str, float | None]
    """The behaviour metrics by name (``runner.behaviour.metrics``); None where the transcript cannot say."""
    tokens: Mapping[str, int | None]
    """Tokens by bucket (TOKEN_BUCKETS); None where the transcript does not say."""


def trial_behaviour(document: Mapping[str, object]) -> TrialBehaviour:
    """The metrics and token buckets of a behaviour.json document (values that are not numbers are unknown)."""
    def number(value: object) -> float | None:
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    metrics = document.get("metrics")
    record = document.get("record")
    tokens = record.get("tokens") if isinstance(record, dict) else None
    return TrialBehaviour(
        {str(k): number(v) for k, v in metrics.items()} if isinstance(metrics, dict) else {},
        {b: (int(v) if (v := number(tokens.get(b))) is not None else None) if isinstance(tokens, dict) else None
         for b in TOKEN_BUCKETS})


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
    directory: Path | None = None
    """The run directory."""
    name: str | None = None
    """The run's --name."""
    cases_meta: Mapping[str, CaseMeta] = field(default_factory=dict)
    """Title, owner, policy and criticality of each case as recorded when the run started."""
    records_meta: bool = False
    """The run recorded its cases' policy (runs made by an older Hindcast did not)."""
    mode: str = "agent"
    """The run's mode."""
    selected: str | None = None
    """The variant --baseline-variant/--candidate-variant picked; None when the whole run is compared."""
    behaviour: Mapping[tuple[str, str, int], TrialBehaviour] = field(default_factory=dict)
    """Each trial's behaviour.json by (variant, case id, trial); trials without one are absent."""
    directions: Mapping[str, str] | None = None
    """corpus.yaml's behaviour.directions as the run recorded them; None when it recorded none."""
    seed: int = 0
    """The seed each trial's wording was drawn from (run.json's config.seed, ``runner run --seed``)."""

    @property
    def label(self) -> str:
        """The run id, with the variant when the run was reduced to one of several: ``<id>:<variant>``."""
        return self.run_id if self.selected is None else f"{self.run_id}:{self.selected}"


def only_variant(run: RunTrials, name: str, flag: str) -> RunTrials:
    """The run reduced to one variant; UsageError naming the flag when the run has no such variant."""
    if name not in run.variants:
        raise UsageError(f"{flag} {name}: run {run.run_id} has no variant {name!r} (it has {', '.join(run.variants)})")
    trials = {key: records for key, records in run.trials.items() if key[0] == name}
    behaviour = {key: b for key, b in run.behaviour.items() if key[0] == name}
    return replace(run, variants=(name,), trials=trials, selected=name, behaviour=behaviour)


def from_loaded(run: LoadedRun) -> RunTrials:
    """The trials of a run read by ``runner.runs.load.load_run``."""
    trials: dict[tuple[str, str], list[TrialResult]] = {}
    for result in run.trials:
        trials.setdefault((result.variant, result.case_id), []).append(result)
    manifest = run.manifest
    behaviour = {(t.variant, t.case_id, t.trial): trial_behaviour(document) for t in run.trials
                 if t.behaviour and (document := read_behaviour(
                     trial_path(run.directory, t.variant, t.case_id, t.trial))) is not None}
    return RunTrials(manifest.run_id, manifest.dataset_fingerprint,
                     tuple(v.name for v in manifest.config.variants),
                     {key: tuple(sorted(records, key=lambda r: r.trial)) for key, records in trials.items()},
                     run.directory, manifest.name, manifest.cases_meta, bool(manifest.cases_meta),
                     manifest.config.mode, behaviour=behaviour, directions=manifest.directions,
                     seed=manifest.config.seed)


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
    holdout: bool = False
    """A holdout case: left out of the comparison unless compare is given --holdout."""

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


def recorded_index(*runs: RunTrials) -> dict[str, CaseInfo]:
    """Policy and criticality as the runs recorded them, the first run's record winning; UsageError when a run
    recorded none (made by an older Hindcast: pass --corpus)."""
    index: dict[str, CaseInfo] = {}
    for run in runs:
        if not run.records_meta:
            raise UsageError(f"run {run.run_id} does not record its cases' policy (made by an older Hindcast); "
                             f"pass --corpus to apply the corpus's")
        for case_id, meta in run.cases_meta.items():
            if case_id not in index:
                active = meta.status == "active"
                index[case_id] = CaseInfo(meta.policy if active else "advisory",
                                          meta.critical and active, "active" if active else "deprecated",
                                          meta.holdout)
    return index


def case_index(corpus: Corpus) -> dict[str, CaseInfo]:
    """Policy and criticality of every case in the corpus; deprecated cases are advisory and never critical."""
    index: dict[str, CaseInfo] = {}
    for stored in corpus.load_all():
        case = stored.case
        if case.status == "active":
            index[case.id] = CaseInfo(case.policy, case.critical, "active", case.holdout)
        else:
            index[case.id] = CaseInfo("advisory", False, "deprecated", case.holdout)
    return index


def policy_for(corpus: Corpus | None, *runs: RunTrials) -> tuple[dict[str, CaseInfo], str]:
    """Policy and criticality by case, and where they came from: a corpus as it is today when one is given,
    else what the runs recorded (the first run's record winning)."""
    if corpus is not None:
        return case_index(corpus), f"the corpus {corpus.root} as it is today (--corpus)"
    return recorded_index(*runs), "as the runs recorded them when they started"


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
