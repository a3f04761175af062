"""`runner compare --html`: the comparison as one self-contained page (inline style, no script, nothing fetched).

The decision and its findings come first, then the rows in the text report's order (regressions first), each with
every trial of both runs (outcome, reason and failure excerpt, linked to a section embedding the trial's artifacts
and its trajectory and max_turns checks) and a link to the baseline's and the candidate's trial side by side, then the summary, the gate's numbers and the power note, then behaviour: the
forbidden-tool and bait findings, both runs' cost and tokens, and every behaviour metric's medians per compared
case with its direction and class, as ``runner.gate.behaviour`` judged them. The gate itself knows nothing of HTML: this module reads a
``runner.gate.gate.CompareReport``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from corpus.errors import UsageError
from runner.behaviour.metrics import Spread
from runner.gate.behaviour import CHANGES, METRICS, BehaviourComparison, MetricChange, number_text
from runner.gate.finding import Finding
from runner.gate.gate import CompareReport
from runner.gate.pairing import Row, RunTrials
from runner.gate.render import SpendRow, behaviour_rule, pairs_line, render_compare, spend_rows
from runner.gate.scorecard_rules import RULES
from runner.gate.stats import DropTest
from runner.gate.triage import Triage
from runner.report.artifacts import ARTIFACT_CAP, PAGE_BUDGET, Budget, TrialView, relative_base, trial_view
from runner.report.checks import trial_checks
from runner.report.pages import environment
from runner.report.paging import (
    EXCERPT_CAP,
    ROWS_SHOWN,
    Paging,
    page_rows,
    paging_for,
    render_sheets,
    write_pages,
)
from runner.report.scorecards import COUNT_LABELS
from runner.runs.result import TrialResult, trial_path
from runner.scorecard.means import COUNTS, SCORES


@dataclass(frozen=True)
class Side:
    """One run's part of a compared row."""

    summary: str
    """The aggregate in words (``pass (5/5)``), or "not run"."""
    reason: str
    """The most common reason among the failed (else errored) trials; empty when the case passed."""
    passed: bool | None
    """The case's binary outcome in this run; None when the run did not have the case."""
    trials: tuple[TrialView | TrialResult, ...]
    """Every trial: a view with its embedded artifacts, or the bare result when the run's directory is unknown."""


@dataclass(frozen=True)
class RowView:
    """A compared row as the page shows it."""

    key: str
    """Case id, or variant::case for matrix runs."""
    title: str
    """The case's title as the runs recorded it (the id when they did not)."""
    label: str
    """Policy and criticality in words (``blocking, critical``)."""
    baseline: Side
    """The baseline's trials."""
    candidate: Side
    """The candidate's trials."""
    quarantine: str
    """Owner, expiry and reason of the quarantine entry excluding the row; empty when none does."""
    triage: str = ""
    """A regression's triage label in words (``reproduced (0 of 3 reruns passed)``); empty without one."""
    risk_flags: tuple[str, ...] = ()
    """The case's risk labels as the runs recorded them."""
    pairs: tuple[Pair, ...] = ()
    """Trial n of the baseline beside trial n of the candidate, for every n either run has (none when a run's
    directory is unknown)."""

    @property
    def pair_anchor(self) -> str:
        """The pair the row links to: the first whose candidate trial did not pass, else the first."""
        return next((p.anchor for p in self.pairs if p.candidate is not None and p.candidate.result.outcome != "pass"),
                    self.pairs[0].anchor if self.pairs else "")


@dataclass(frozen=True)
class Pair:
    """The baseline's and the candidate's trial of one number of a compared case, for a section side by side."""

    anchor: str
    """The section's id (made of indexes only)."""
    number: int
    """The trial number."""
    baseline: TrialView | None
    """The baseline's trial of that number; None when it has none."""
    candidate: TrialView | None
    """The candidate's, likewise."""
    others: tuple[tuple[int, str], ...]
    """(number, anchor) of every pair of the row, this one included."""


def pairs(baseline: Side, candidate: Side, index: int) -> tuple[Pair, ...]:
    """Trial n beside trial n for each number either side has, when both sides have their trials' views."""
    views = [{t.result.trial: t for t in side.trials if isinstance(t, TrialView)} for side in (baseline, candidate)]
    if not all(views):
        return ()
    numbers = sorted(set(views[0]) | set(views[1]))
    others = tuple((n, f"p{index}-{n}") for n in numbers)
    return tuple(Pair(f"p{index}-{n}", n, views[0].get(n), views[1].get(n), others) for n in numbers)


def _title(report: CompareReport, case_id: str) -> str:
    for run in (report.candidate, report.baseline):
        meta = run.cases_meta.get(case_id)
        if meta is not None and meta.title:
            return meta.title
    return case_id


def _variant(report: CompareReport, run: RunTrials, key: str) -> str:
    return run.variants[0] if report.keyed_by == "case" else key.split("::", 1)[0]


def _side(report: CompareReport, run: RunTrials, row: Row, which: str, index: int, paging: Paging,
          budget: Budget, placed: list[TrialView]) -> Side:
    tally = row.baseline if which == "b" else row.candidate
    if tally is None:
        return Side("not run", "", None, ())
    records = run.trials.get((_variant(report, run, row.key), row.case_id), ())
    title = _title(report, row.case_id)
    label = f"{'baseline' if which == 'b' else 'candidate'} {run.label}"
    trials: list[TrialView | TrialResult] = []
    page = paging.sheet_base if paging.paged else paging.page
    base = None if run.directory is None else relative_base(run.directory, page)  # once: it resolves both paths
    for record in records:
        if run.directory is None or base is None:
            trials.append(record)
        else:
            folder = trial_path(run.directory, record.variant, record.case_id, record.trial)
            view = trial_view(run.directory, base, record, f"{which}{index}-{record.trial}", title, budget, label,
                              trial_checks(folder, record, run.cases_meta.get(record.case_id)),
                              report.risk_flags(row.case_id), paging.href(len(placed)),
                              EXCERPT_CAP if paging.paged else ARTIFACT_CAP)
            placed.append(view)
            trials.append(view)
    return Side(tally.describe(), tally.reason if not tally.passed else "", tally.passed, tuple(trials))


def _row_view(report: CompareReport, row: Row, index: int, paging: Paging, budget: Budget,
              triage: Triage | None, placed: list[TrialView]) -> RowView:
    label = triage.labels.get(row.key) if triage is not None and row.regression else None
    entry = row.quarantined_by
    quarantine = "" if entry is None else (f"owner {entry.owner}, until {entry.expiry}: "
                                           f"{entry.reason or 'no reason given'}")
    baseline = _side(report, report.baseline, row, "b", index, paging, budget, placed)
    candidate = _side(report, report.candidate, row, "c", index, paging, budget, placed)
    return RowView(row.key, _title(report, row.case_id), row.info.label(), baseline, candidate, quarantine,
                   "" if label is None else label.text(), report.risk_flags(row.case_id),
                   pairs(baseline, candidate, index))


def _points(value: float) -> str:
    return "—" if math.isnan(value) else f"{value * 100:+.1f} pp"


def _interval(test: DropTest) -> str:
    low, high = test.paired.ci_low, test.paired.ci_high
    if math.isinf(low) or math.isinf(high):
        return "none (fewer than 2 cases)"
    return f"[{low * 100:+.1f}, {high * 100:+.1f}] pp"


def _test_rows(report: CompareReport) -> list[dict[str, str]]:
    rows = []
    for name, test in (("blocking", report.test), ("advisory (never blocks)", report.advisory_test)):
        p, m = test.paired, test.mcnemar
        rows.append({"name": name, "cases": str(p.n), "mean": _points(p.mean_difference),
                     "interval": _interval(test),
                     "t": "—" if math.isnan(p.t_statistic) else f"{p.t_statistic:.3g}",
                     "t_blocks": "yes" if test.t_blocks else "no", "regressions": str(m.regressions),
                     "fixes": str(m.fixes), "p": f"{m.p_value:.4g}",
                     "mcnemar_blocks": "yes" if test.mcnemar_blocks else "no",
                     "blocked": "yes" if test.blocked else "no"})
    return rows


def _summary_lines(report: CompareReport, triage: Triage | None) -> list[str]:
    """The text report's summary lines, so both formats show the very same figures."""
    lines = render_compare(report, triage)
    start = lines.index("Summary:") + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("  "))
    return [line.strip() for line in lines[start:end]]


SCORE_RULES = tuple(rule for rule, _ in RULES.values())
"""The gate's scorecard rules, whose findings the scorecard section repeats."""
BEHAVIOUR_RULES = ("forbidden-tool", "bait", "upstream-lookup")
"""The gate's behaviour rules, whose findings the behaviour section repeats."""


@dataclass(frozen=True)
class ChangeRow:
    """One metric of one compared row as the behaviour tables show it (from ``runner.gate.behaviour``)."""

    key: str
    """The row's key (case id, or variant::case)."""
    metric: str
    """The metric."""
    direction: str
    """lower, higher or neutral: which way is better."""
    baseline: str
    """The baseline's median, or a dash when no trial knew the metric."""
    baseline_trials: int
    """Baseline trials that knew it."""
    candidate: str
    """The candidate's median, likewise."""
    candidate_trials: int
    """Candidate trials that knew it."""
    relative: str
    """The change of the median in percent (``+300%``, ``from 0``); a dash when unknown."""
    change: str
    """improve, regress, neutral or unknown."""


def _median(value: Spread | None) -> str:
    return "—" if value is None else number_text(value.median)


def _relative(change: MetricChange) -> str:
    relative = change.relative
    if relative is None:
        return "—"
    return "from 0" if math.isinf(relative) else f"{relative * 100:+.0f}%"


def change_row(change: MetricChange) -> ChangeRow:
    """A metric change as text, its figures as the text report writes them."""
    before, after = change.baseline, change.candidate
    return ChangeRow(change.key, change.metric, change.direction, _median(before), 0 if before is None else
                     before.trials, _median(after), 0 if after is None else after.trials, _relative(change),
                     change.change)


@dataclass(frozen=True)
class BehaviourView:
    """The behaviour section: the rule, the directions, every metric's tally, every change, and the findings."""

    rule: str
    """How medians are judged, in one sentence."""
    directions_source: str
    """Where the directions came from."""
    unknown_directions: tuple[str, ...]
    """Configured names that are no metric."""
    tally: tuple[tuple[str, str, tuple[int, ...]], ...]
    """(metric, direction, rows per class in CHANGES order) for every metric with a row."""
    counted: tuple[ChangeRow, ...]
    """The regressions, then the improvements."""
    changes: tuple[ChangeRow, ...]
    """Every metric of every paired row, in row then metric order."""
    pairs: str
    """The tally over every pair, in one line."""


def behaviour_view(behaviour: BehaviourComparison) -> BehaviourView:
    """The comparison as the page's tables show it."""
    tally = behaviour.tally()
    return BehaviourView(
        behaviour_rule(behaviour), behaviour.directions.source, behaviour.directions.unknown,
        tuple((m, behaviour.directions.by_metric[m], tuple(tally[m][kind] for kind in CHANGES))
              for m in METRICS if m in tally),
        tuple(change_row(c) for c in behaviour.counted()), tuple(change_row(c) for c in behaviour.changes),
        pairs_line(behaviour))


def behaviour_section(report: CompareReport) -> tuple[BehaviourView | None, list[Finding], list[SpendRow]]:
    """What the behaviour section shows: the comparison when either run recorded behaviour, the behaviour rules'
    findings, and the cost and tokens of both runs."""
    behaviour = report.behaviour
    view = behaviour_view(behaviour) if behaviour is not None and behaviour.recorded else None
    return view, [f for f in report.findings if f.rule in BEHAVIOUR_RULES], spend_rows(report.summary)


def render_compare_html(report: CompareReport, html_path: Path, triage: Triage | None = None) -> str:
    """The page of render_compare_pages (what a reader opens first)."""
    return render_compare_pages(report, html_path, triage)[1]


def _trial_count(run: RunTrials) -> int:
    return 0 if run.directory is None else sum(len(records) for records in run.trials.values())


def render_compare_pages(report: CompareReport, html_path: Path, triage: Triage | None = None) -> \
        tuple[Paging, str, dict[str, str]]:
    """The comparison as a page whose links are relative to html_path, with the regressions' triage labels when a
    triage of the candidate exists, and its trial pages by name: above INLINE_TRIALS trials in both runs, the
    trials' sections are on trial pages beside the page, and a section's rows past ROWS_SHOWN on row pages there
    (``runner.report.paging``)."""
    budget = Budget()
    paging = paging_for(html_path, _trial_count(report.baseline) + _trial_count(report.candidate))
    placed: list[TrialView] = []
    views = [_row_view(report, row, index, paging, budget, triage, placed) for index, row in enumerate(report.rows)]
    by_key = dict(zip((row.key for row in report.rows), views, strict=True))
    listed = [("regressions", "Regressions", report.regressions()), ("declined", "Lower pass rate", report.declined()),
              ("fixes", "Fixes", report.fixes()), ("new", "New cases", report.new()),
              ("missing", "Missing from candidate", report.missing()),
              ("quarantined", "Quarantined", report.quarantined())]
    seen = {row.key for _, _, rows in listed for row in rows}
    listed.append(("unchanged", "Unchanged", [row for row in report.rows if row.key not in seen]))
    sections, row_sheets = page_rows(paging, [(ident, title, [by_key[row.key] for row in rows])
                                              for ident, title, rows in listed])
    trials = [t for view in views for side in (view.baseline, view.candidate) for t in side.trials
              if isinstance(t, TrialView)]
    expired = [e for e in report.quarantine.entries if e.expired(report.today)]
    behaviour, rule_findings, spend = behaviour_section(report)
    side_by_side = [pair for view in views for pair in view.pairs]
    template = environment().get_template("compare.html.j2")
    page = template.render(report=report, sections=sections, trials=[] if paging.paged else trials,
                           pairs=[] if paging.paged else side_by_side, back="#overview", paging=paging, rows_shown=ROWS_SHOWN,
                           excerpt_cap=EXCERPT_CAP, summary=_summary_lines(report, triage),
                           triage=triage, tests=_test_rows(report), expired=expired, budget=budget,
                           page_budget=PAGE_BUDGET, confidence=f"{1 - report.options.alpha:.0%}",
                           behaviour=behaviour, rule_findings=rule_findings, spend=spend, changes=CHANGES,
                           score_findings=[f for f in report.findings if f.rule in SCORE_RULES],
                           score_names=SCORES, count_labels=[(n, COUNT_LABELS[n]) for n in COUNTS],
                           rules=RULES)
    heading = f"Hindcast compare: {report.decision}"
    sheets = render_sheets(paging, placed, heading, "overview")
    rows_template = environment().get_template("rows.html.j2")
    for sheet in row_sheets:
        sheets[sheet.name] = rows_template.render(
            heading=heading, title=sheet.title, ident=sheet.ident, rows=sheet.rows, first=sheet.first,
            last=sheet.first + len(sheet.rows) - 1, total=sheet.total, strip=f"{paging.folder.name}/",
            back=f"{paging.back}#{sheet.ident}")
    return paging, page, sheets


def write_compare_html(report: CompareReport, html_path: Path, triage: Triage | None = None) -> None:
    """Write the comparison page, and its trial pages beside it, atomically; UsageError naming the file when it
    cannot be written."""
    paging, page, sheets = render_compare_pages(report, html_path, triage)
    try:
        write_pages(paging, page, sheets)
    except OSError as exc:
        raise UsageError(f"--html {html_path}: cannot write: {getattr(exc, 'reason', None) or exc.strerror or exc}") from None
