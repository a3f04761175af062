"""The gate: a decision on a candidate run against a baseline, with the reasons and a power note.

Decisions: PASS, WARN and BLOCK, each exiting with its `ExitCode` (bad input raises UsageError). The gate first
refuses to judge (BLOCK) when a case has fewer than ``MIN_TRIALS`` non-error trials in either run, or when the runs
were made on different dataset fingerprints without ``allow_dataset_change``. Otherwise it blocks on

1. a significant drop over the blocking cases: ``runner.gate.stats.significant_drop`` on per-case mean rates (paired
   t interval entirely below 0) and per-case binary outcomes (exact one-sided McNemar), each at alpha/2 so
   the two together stay within alpha; advisory and quarantined cases are left out of the test;
2. a critical case that passed every baseline trial and did not pass every candidate trial;
3. a blocking case of the baseline that the candidate did not run (quarantined or not);
4. a quarantine entry without owner or expiry, or naming a critical case (expired or not: the file must be
   clean); an expired entry stops excluding its case, which counts again;

and warns on a drop over the tolerance that the test could not call significant, on a rise of the mean cost per
trial above the limit, on a rise of test downgrades, tampering or unsafe passes in a variant's scorecards
(``runner.gate.scorecard_rules``), and on a rise of a variant's error rate: errored trials leave every pass rate, so a
candidate that turns failures into errors would otherwise look better (``runner.gate.summary.ErrorRate.rose``).

Advisory cases never block, but they never read as a clean PASS when they got worse: among advisory cases the gate
warns on a significant drop (the same test, ``advisory-drop``), on a drop over the tolerance the test could not call
significant (``advisory-tolerance``) and on any case that passed every baseline trial and not every candidate trial
(``advisory-regression``). Comparing a run with itself (the same run id) warns too (``same-run``): it shows nothing.
So do two agent runs whose prompts' wordings were drawn from different seeds (``wording-seed``,
``runner.gate.seeds``), when a compared case has several wordings: their trials are no longer paired wording by wording.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from corpus.errors import ExitCode, UsageError
from runner.gate.behaviour import BehaviourComparison, Directions, compare_behaviour, directions_for
from runner.gate.behaviour_rules import behaviour_findings
from runner.gate.finding import Finding
from runner.gate.holdout import HoldoutGap, held_out_note, hold_out, holdout_findings, holdout_gap
from runner.gate.pairing import MIN_TRIALS, CaseInfo, Row, RunTrials, pair_runs
from runner.gate.power import cases_needed, estimate_sd_of_differences, min_detectable_drop
from runner.gate.quarantine import Quarantine
from runner.gate.scorecard_rules import ScoreChange, score_changes, scorecard_findings
from runner.gate.seeds import wording_seed_findings
from runner.gate.stats import DropTest, significant_drop
from runner.gate.summary import Summary, summarize
from runner.runs.aggregate import Aggregate

Decision = Literal["PASS", "WARN", "BLOCK"]
"""What the gate decides (printed as ``verdict:`` and written as the JSON key ``verdict``)."""
EXIT_CODES: Mapping[str, ExitCode] = {"PASS": ExitCode.OK, "WARN": ExitCode.WARN, "BLOCK": ExitCode.BLOCK}
TARGET_POWER = 0.8


@dataclass(frozen=True)
class CompareOptions:
    """How strict the gate is."""

    alpha: float = 0.05
    """The statistical rule's whole false-block budget (each of its two tests gets alpha/2)."""
    tolerance_points: float = 2.0
    """A drop in points above which a drop the test cannot call significant still warns."""
    max_cost_increase_pct: float | None = 20.0
    """A rise of the mean cost per trial above this percentage warns; None turns the check off."""
    allow_dataset_change: bool = False
    """Compare runs made on different dataset fingerprints."""
    today: date | None = None
    """The day quarantine expiry is judged against; None is the local date."""
    holdout: bool = False
    """Include the holdout cases (compare --holdout): the decision covers them, and the candidate's gain on the
    tuning set is set against its gain on the holdout set (``runner.gate.holdout``)."""

    def __post_init__(self) -> None:
        if not 0.0 < self.alpha < 0.5:
            raise UsageError(f"--alpha must be between 0 and 0.5, got {self.alpha:g}")
        if not (math.isfinite(self.tolerance_points) and 0.0 <= self.tolerance_points <= 100.0):
            raise UsageError(f"--tolerance must be between 0 and 100 points, got {self.tolerance_points:g}")
        cost = self.max_cost_increase_pct
        if cost is not None and not (math.isfinite(cost) and cost >= 0.0):
            raise UsageError(f"--max-cost-increase must be a percentage >= 0, got {cost:g}")


@dataclass(frozen=True)
class PowerNote:
    """What the statistical rule could have seen with this many cases and trials."""

    cases: int
    """Blocking cases in the test."""
    trials: int
    """Smallest number of non-error trials of a tested case in either run."""
    sd: float
    """sd of per-case differences used (``estimate_sd_of_differences``)."""
    sd_source: str
    """observed, floor or worst-case."""
    min_detectable_drop: float
    """Smallest true drop (rate units) blocked with 80% power; inf with fewer than two cases."""
    target_drop: float | None
    """The drop cases_needed is about: the observed drop, else the tolerance; None when neither is positive."""
    target_is_observed: bool
    """Whether target_drop is the observed drop (else the tolerance)."""
    cases_needed: int | None
    """Cases for 80% power at target_drop; None when more than the search limit."""

    def text(self) -> str:
        """The note as one line.

        It describes the paired t test (``runner.gate.power.paired_t_power``); McNemar can only add blocks, so for the
        whole rule the power is at least this and the cases needed at most this.
        """
        mdd = self.min_detectable_drop
        detectable = (f"drops of {mdd * 100:.1f} pp or more are blocked with at least 80% power" if mdd <= 1.0
                      else "no drop can be detected (the test needs at least 2 cases)" if math.isinf(mdd)
                      else "no drop reaches 80% power")
        line = (f"{self.cases} blocking case{'' if self.cases == 1 else 's'} x {self.trials} trials, "
                f"sd of per-case differences {self.sd:.3f} ({self.sd_source}): {detectable}")
        if self.target_drop is None:
            return line
        what = "the observed" if self.target_is_observed else "a tolerance-sized"
        needed = f"{self.cases_needed} cases" if self.cases_needed is not None else "more than 10,000,000 cases"
        return f"{line}; {what} {self.target_drop * 100:.1f} pp drop would need {needed}"


@dataclass(frozen=True)
class CompareReport:
    """Everything ``runner compare`` prints, as data."""

    baseline: RunTrials
    """The baseline run."""
    candidate: RunTrials
    """The candidate run."""
    keyed_by: str
    """case, or variant::case for matrix runs."""
    rows: tuple[Row, ...]
    """Every key of either run, sorted."""
    summary: Summary
    """Pass rates, durations, cost and tokens."""
    test: DropTest
    """The statistical rule over blocking cases."""
    advisory_test: DropTest
    """The same numbers over advisory cases; never blocks."""
    power: PowerNote
    """The power note."""
    findings: tuple[Finding, ...]
    """Reasons, blocks first."""
    quarantine: Quarantine
    """The quarantine file read."""
    options: CompareOptions
    """The options used."""
    today: date
    """The day expiry was judged against."""
    refused: bool = field(default=False)
    """The gate refused to judge (too few trials, or a dataset change)."""
    policy_source: str = "the corpus"
    """Where policy and criticality came from: the runs' records, or a corpus as it is today."""
    behaviour: BehaviourComparison | None = None
    """Behaviour medians against the baseline (``runner.gate.behaviour``); information, never a finding."""
    scores: tuple[ScoreChange, ...] = ()
    """Each compared variant's scorecard means and counts in both runs (``runner.gate.scorecard_rules``)."""
    held_out: tuple[str, ...] = ()
    """The holdout cases of either run left out of everything (compare without --holdout)."""
    holdout_gap: HoldoutGap | None = None
    """With --holdout and holdout cases: the tuning set's gain against the holdout set's."""

    @property
    def cannot_block(self) -> str | None:
        """What the gate cannot do on these runs, said before anything else: with every case advisory no drop
        and no regression blocks; None when some case is blocking (or the gate refused)."""
        if self.refused or not self.rows or any(r.info.blocking for r in self.rows):
            return None
        return ("note: every case is advisory, so this gate can warn but never block on a drop or a regression "
                "(make the cases that must hold blocking: authoring set --policy blocking ID..., or --critical)")

    @property
    def holdout_note(self) -> str | None:
        """What a comparison without --holdout left out, said first; None when it left nothing out."""
        return held_out_note(self.held_out)

    def risk_flags(self, case_id: str) -> tuple[str, ...]:
        """The case's risk labels as the candidate (else the baseline) recorded them."""
        for run in (self.candidate, self.baseline):
            meta = run.cases_meta.get(case_id)
            if meta is not None and meta.risk_flags:
                return meta.risk_flags
        return ()

    @property
    def decision(self) -> Decision:
        """BLOCK when any finding blocks, WARN when any warns, else PASS."""
        levels = {f.level for f in self.findings}
        return "BLOCK" if "BLOCK" in levels else "WARN" if "WARN" in levels else "PASS"

    @property
    def exit_code(self) -> ExitCode:
        """OK for PASS, WARN, BLOCK."""
        return EXIT_CODES[self.decision]

    def regressions(self) -> list[Row]:
        """Passed in the baseline, fail now; quarantined rows are listed apart."""
        return [r for r in self.rows if r.regression and r.quarantined_by is None]

    def declined(self) -> list[Row]:
        """Lower pass rate without a flip."""
        return [r for r in self.rows if r.declined and r.quarantined_by is None]

    def fixes(self) -> list[Row]:
        """Failed in the baseline, pass now."""
        return [r for r in self.rows if r.fix and r.quarantined_by is None]

    def new(self) -> list[Row]:
        """Only the candidate ran them."""
        return [r for r in self.rows if r.baseline is None]

    def missing(self) -> list[Row]:
        """Only the baseline ran them."""
        return [r for r in self.rows if r.candidate is None]

    def quarantined(self) -> list[Row]:
        """Rows an entry excludes."""
        return [r for r in self.rows if r.quarantined_by is not None]


def evaluate(baseline: RunTrials, candidate: RunTrials, cases: Mapping[str, CaseInfo],
             quarantine: Quarantine, options: CompareOptions, policy_source: str = "the corpus",
             directions: Directions | None = None) -> CompareReport:
    """Compare two runs and decide; behaviour is judged by directions (default: as the runs recorded them)."""
    today = options.today or date.today()
    baseline, candidate, held, held_out = hold_out(baseline, candidate, cases, options.holdout)
    keyed_by, rows = pair_runs(baseline, candidate, cases, quarantine, today)
    gap = holdout_gap(rows, held, options.alpha) if options.holdout and held else None
    gated = [r for r in rows if r.gated]
    test = _drop_test(gated, options.alpha)
    advisory_test = _drop_test([r for r in rows if r.advisory], options.alpha)
    power = power_note(gated, test, options, rows)
    summary = summarize(rows, baseline, candidate, keyed_by)
    scores = score_changes(rows, baseline, candidate)
    refusals = refusal_findings(baseline, candidate, rows, options)
    findings = [*statistical_findings(test, options), *critical_findings(rows), *missing_findings(rows),
                *quarantine_findings(quarantine, cases), *same_run_findings(baseline, candidate),
                *wording_seed_findings(baseline, candidate, rows),
                *warning_findings(test, power, summary, options),
                *advisory_findings(rows, advisory_test, options),
                *behaviour_findings(baseline, candidate), *scorecard_findings(scores),
                *holdout_findings(gap, options.tolerance_points)]
    findings.sort(key=lambda f: f.level != "BLOCK")
    findings = [*refusals, *findings]  # a refusal leads, and hides nothing else the runs show
    return CompareReport(baseline, candidate, keyed_by, tuple(rows), summary, test, advisory_test, power,
                         tuple(findings), quarantine, options, today, refused=bool(refusals),
                         policy_source=policy_source, behaviour=compare_behaviour(
                             rows, baseline, candidate, directions or directions_for(None, candidate, baseline)),
                         scores=scores, held_out=held_out, holdout_gap=gap)


def _scored_pairs(rows: Sequence[Row]) -> list[tuple[Aggregate, Aggregate]]:
    """The two sides of the rows both runs scored (a case whose trials all errored has no rate: the gate refuses
    it, and the statistics leave it out)."""
    return [(r.baseline, r.candidate) for r in rows
            if r.baseline is not None and r.candidate is not None and r.baseline.scored and r.candidate.scored]


def _drop_test(rows: Sequence[Row], alpha: float) -> DropTest:
    pairs = _scored_pairs(rows)
    return significant_drop([b.rate for b, _ in pairs], [c.rate for _, c in pairs],
                            [b.passed for b, _ in pairs], [c.passed for _, c in pairs], alpha=alpha)


def power_note(gated: Sequence[Row], test: DropTest, options: CompareOptions,
               rows: Sequence[Row] = ()) -> PowerNote:
    """Minimum detectable drop for these cases and trials, and the cases needed for the observed drop. The trials
    are the runs' own: the fewest non-error trials of a gated case, else of any case both runs scored (rows),
    else of any case either run has."""
    pairs = _scored_pairs(gated)
    counts = ([min(b.scored, c.scored) for b, c in pairs] or [min(b.scored, c.scored) for b, c in _scored_pairs(rows)]
              or [t.scored for r in rows for t in (r.baseline, r.candidate) if t is not None])
    trials = min(counts, default=0)
    sd = estimate_sd_of_differences([c.rate - b.rate for b, c in pairs], max(trials, 1))
    mdd = min_detectable_drop(len(pairs), sd.value, options.alpha, TARGET_POWER)
    observed = -test.paired.mean_difference if pairs else math.nan
    target: float | None = None
    if observed > 0.0:
        target = observed
    elif options.tolerance_points > 0.0:
        target = options.tolerance_points / 100.0
    needed: int | None = None
    if target is not None:
        try:
            needed = cases_needed(target, sd.value, options.alpha, TARGET_POWER)
        except ValueError:
            needed = None
    return PowerNote(len(pairs), trials, sd.value, sd.source, mdd, target, observed > 0.0, needed)


def refusal_findings(baseline: RunTrials, candidate: RunTrials, rows: Sequence[Row],
                     options: CompareOptions) -> list[Finding]:
    """Reasons the gate will not judge at all."""
    found: list[Finding] = []
    if baseline.dataset_fingerprint != candidate.dataset_fingerprint and not options.allow_dataset_change:
        found.append(Finding("BLOCK", "refused", (
            f"refused: the runs were made on different datasets ({baseline.dataset_fingerprint[:12]} vs "
            f"{candidate.dataset_fingerprint[:12]}); rerun the baseline or pass --allow-dataset-change")))
    for side, run in (("baseline", baseline), ("candidate", candidate)):
        if not run.trials:
            found.append(Finding("BLOCK", "refused", f"refused: the {side} run {run.run_id} has no trials"))
            continue
        tallies = [(r.key, r.baseline if side == "baseline" else r.candidate) for r in rows]
        short = [f"{key} ({t.scored})" for key, t in tallies if t is not None and t.scored < MIN_TRIALS]
        if short:
            shown = ", ".join(short[:5]) + (f" and {len(short) - 5} more" if len(short) > 5 else "")
            found.append(Finding("BLOCK", "refused", (
                f"refused: the {side} run has fewer than {MIN_TRIALS} non-error trials for {shown}")))
    return found


def statistical_findings(test: DropTest, options: CompareOptions) -> list[Finding]:
    """Rule 1: a significant drop over the blocking cases."""
    if not test.blocked:
        return []
    paired, mcnemar = test.paired, test.mcnemar
    parts = []
    if test.t_blocks:
        parts.append(f"the {1 - options.alpha:.0%} interval of the mean per-case difference "
                     f"[{paired.ci_low * 100:+.1f}, {paired.ci_high * 100:+.1f}] pp lies below 0")
    if test.mcnemar_blocks:
        parts.append(f"exact McNemar p = {mcnemar.p_value:.4g} < {test.component_alpha:g} "
                     f"({mcnemar.regressions} regressions, {mcnemar.fixes} fixes)")
    return [Finding("BLOCK", "significant-drop",
                    f"significant drop over {paired.n} blocking cases: " + "; ".join(parts))]


def critical_findings(rows: Sequence[Row]) -> list[Finding]:
    """Rule 2: a critical case that passed every baseline trial failed a candidate trial."""
    found = []
    for row in rows:
        base, cand = row.baseline, row.candidate
        if not row.info.critical or base is None or cand is None or not base.every_trial_passed:
            continue
        if cand.fails or cand.errors:
            found.append(Finding("BLOCK", "critical-regression", (
                f"critical case {row.key} passed all {base.passes} baseline trials and failed "
                f"{cand.fails + cand.errors} of {cand.passes + cand.fails + cand.errors} candidate trials"
                + (f": {cand.reason}" if cand.reason else ""))))
    return found


def missing_findings(rows: Sequence[Row]) -> list[Finding]:
    """Rule 3: a blocking baseline case the candidate did not run."""
    missing = [r.key for r in rows if r.candidate is None and r.info.blocking]
    if not missing:
        return []
    return [Finding("BLOCK", "missing-case",
                    f"{len(missing)} blocking case{'s' if len(missing) != 1 else ''} of the baseline "
                    f"missing from the candidate: {', '.join(missing)}")]


def quarantine_findings(quarantine: Quarantine, cases: Mapping[str, CaseInfo]) -> list[Finding]:
    """Rule 4: entries without owner or expiry, or naming a critical case."""
    found = []
    for entry in quarantine.entries:
        problems = entry.problems()
        info = cases.get(entry.case_id)
        if info is not None and info.critical:
            problems.append("critical cases cannot be quarantined")
        if problems:
            found.append(Finding("BLOCK", "quarantine", (
                f"quarantine entry {entry.case} ({entry.where(quarantine.path)}): {', '.join(problems)}")))
    return found


def warning_findings(test: DropTest, power: PowerNote, summary: Summary,
                     options: CompareOptions) -> list[Finding]:
    """A drop over the tolerance that is not significant; a cost rise over the limit; a rise of an error rate."""
    found = []
    drop_points = -test.paired.mean_difference * 100.0 if test.paired.n else 0.0
    if not test.blocked and drop_points > options.tolerance_points:
        found.append(Finding("WARN", "underpowered-drop", (
            f"blocking cases fell {drop_points:.1f} pp (tolerance {options.tolerance_points:g} pp), "
            f"not significant with {power.cases} case{'' if power.cases == 1 else 's'}; a person should decide")))
    change = summary.cost_change_pct
    limit = options.max_cost_increase_pct
    before, after = summary.cost
    if limit is not None and change is not None and change > limit and before and after:
        found.append(Finding("WARN", "cost", (
            f"mean cost per trial rose {change:.1f}% (${before.per_trial:.4f} -> ${after.per_trial:.4f}), "
            f"above the {limit:g}% limit")))
    for rate in summary.errors:
        if rate.rose:
            found.append(Finding("WARN", "error-rate", (
                f"error rate of {rate.label} rose from {rate.baseline_rate * 100:.1f}% ({rate.baseline_errors} of "
                f"{rate.baseline_trials} trials) to {rate.candidate_rate * 100:.1f}% ({rate.candidate_errors} of "
                f"{rate.candidate_trials}): errored trials leave the pass rates, so failures turned errors look "
                f"like passes; resume the candidate run to run them again")))
    return found


def _keys(rows: Sequence[Row]) -> str:
    keys = [r.key for r in rows]
    return ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")


def same_run_findings(baseline: RunTrials, candidate: RunTrials) -> list[Finding]:
    """Baseline and candidate are the same run: whatever it says, the comparison shows nothing."""
    if baseline.run_id != candidate.run_id or baseline.selected != candidate.selected:
        return []
    return [Finding("WARN", "same-run", (
        f"baseline and candidate are the same run {baseline.label}: the comparison shows nothing (rule same-run)"))]


def advisory_findings(rows: Sequence[Row], test: DropTest, options: CompareOptions) -> list[Finding]:
    """Advisory cases that got worse: a significant drop, a drop over the tolerance, per-case regressions."""
    advisory = [r for r in rows if r.advisory]
    worse = [r for r in advisory if r.regression or r.declined]
    found = []
    drop_points = -test.paired.mean_difference * 100.0 if test.paired.n else 0.0
    if test.blocked:
        parts = []
        if test.t_blocks:
            parts.append(f"interval [{test.paired.ci_low * 100:+.1f}, {test.paired.ci_high * 100:+.1f}] pp below 0")
        if test.mcnemar_blocks:
            parts.append(f"exact McNemar p = {test.mcnemar.p_value:.4g} < {test.component_alpha:g}")
        found.append(Finding("WARN", "advisory-drop", (
            f"significant drop over {test.paired.n} advisory cases ({drop_points:.1f} pp; {'; '.join(parts)}): "
            f"{_keys(worse)}; advisory cases never block (rule advisory-drop)")))
    elif drop_points > options.tolerance_points:
        found.append(Finding("WARN", "advisory-tolerance", (
            f"advisory cases fell {drop_points:.1f} pp (tolerance {options.tolerance_points:g} pp), not significant "
            f"with {test.paired.n} case{'' if test.paired.n == 1 else 's'}: {_keys(worse)} (rule advisory-tolerance)")))
    regressed = [r for r in advisory if r.regression]
    if regressed:
        found.append(Finding("WARN", "advisory-regression", (
            f"{len(regressed)} advisory case{'' if len(regressed) == 1 else 's'} passed every baseline trial and "
            f"not every candidate trial: {_keys(regressed)} (rule advisory-regression)")))
    return found
