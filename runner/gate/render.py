"""What `runner compare` and `runner flakes` print: the text report and the JSON document of each."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from runner.behaviour.metrics import Spread
from runner.gate.behaviour import CHANGES, BehaviourComparison, behaviour_lines
from runner.gate.excerpts import row_excerpts, side_excerpt
from runner.gate.flakes import FlakesReport
from runner.gate.gate import CompareReport
from runner.gate.holdout import HoldoutGap, SetGain
from runner.gate.pairing import MIN_TRIALS, TOKEN_BUCKETS, Row, RunTrials
from runner.gate.scorecard_rules import score_changes_json, score_lines
from runner.gate.stats import DropTest
from runner.gate.summary import Spend, Summary, per_trial_change_pct
from runner.gate.triage import Triage
from runner.runs.aggregate import Aggregate

# --------------------------------------------------------------------------------------------------------
# runner compare


def _pct(rate: float) -> str:
    return "-" if math.isnan(rate) else f"{rate * 100:.1f}%"


def _cases(n: int, kind: str = "") -> str:
    return f"{n} {kind}case{'' if n == 1 else 's'}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}s"


def _interval(test: DropTest) -> str:
    low, high = test.paired.ci_low, test.paired.ci_high
    if math.isinf(low) or math.isinf(high):
        return "none (fewer than 2 cases)"
    return f"[{low * 100:+.1f}, {high * 100:+.1f}] pp"


def _side(label: str, tally: Aggregate) -> str:
    text = f"{label} {tally.describe()}"
    return f"{text}: {tally.reason}" if tally.reason and not tally.passed else text


def _run_label(run: RunTrials) -> str:
    return f"{run.label} [{run.name}]" if run.name else run.label


def _row_block(row: Row, risk: tuple[str, ...] = (), report: CompareReport | None = None) -> list[str]:
    """A row's lines: the case, each side's tally, and under a failing side its first excerpt (given report)."""
    lines = [f"  {row.key}  [{row.info.label()}]" + (f"  risk: {', '.join(risk)}" if risk else "")]
    for label, tally, run in (("baseline: ", row.baseline, report and report.baseline),
                              ("candidate:", row.candidate, report and report.candidate)):
        if tally is None:
            continue
        lines.append("    " + _side(label, tally))
        excerpt = side_excerpt(report, run, row) if report and run and not tally.passed else None
        if excerpt is not None:
            lines.append(f"               {excerpt.line()}")
    return lines


@dataclass(frozen=True)
class SpendRow:
    """One resource of the summary (cost, tokens, or the tokens of one bucket) in both runs, as text."""

    name: str
    """cost, tokens, or ``tokens, <bucket>``."""
    baseline: Spend | None
    """The baseline's spend; None when no trial recorded it."""
    candidate: Spend | None
    """The candidate's spend, likewise."""
    unit: str
    """What a figure starts with ($ for cost)."""
    digits: int
    """Decimals shown."""

    def money(self, value: float) -> str:
        """A figure of this resource: ``$0.0300``, ``13,920``."""
        return f"{self.unit}{value:,.{self.digits}f}"

    def total(self, spend: Spend | None) -> str:
        """A run's total, or "not recorded"."""
        return "not recorded" if spend is None else self.money(spend.total)

    def per_trial(self, spend: Spend | None) -> str:
        """A run's mean per recording trial, or a dash."""
        return "-" if spend is None else self.money(spend.per_trial)

    @property
    def change(self) -> str:
        """The change of the mean per trial (``+100.0%``); empty unless both runs recorded a nonzero baseline."""
        change = per_trial_change_pct(self.baseline, self.candidate)
        return "" if change is None else f"{change:+.1f}%"

    def line(self) -> str:
        """The summary's line: ``cost: $0.0300 -> $0.0600; per trial $0.0100 -> $0.0200 (+100.0%) over 3/3 trials``."""
        before, after = self.baseline, self.candidate
        line = f"  {self.name}: {self.total(before)} -> {self.total(after)}"
        if before and after:
            change = f" ({self.change})" if self.change else ""
            line += (f"; per trial {self.money(before.per_trial)} -> {self.money(after.per_trial)}{change} "
                     f"over {before.trials}/{after.trials} trials")
        return line


def spend_rows(summary: Summary) -> list[SpendRow]:
    """Cost, tokens and each token bucket that either run recorded, in the summary's order."""
    rows = [SpendRow("cost", *summary.cost, "$", 4), SpendRow("tokens", *summary.tokens, "", 0)]
    rows += [SpendRow(f"tokens, {name}", summary.token_buckets[0].get(name), summary.token_buckets[1].get(name),
                      "", 0) for name in TOKEN_BUCKETS]
    return [row for row in rows if row.baseline is not None or row.candidate is not None]


def render_compare(report: CompareReport, triage: Triage | None = None) -> list[str]:
    """The text report: regressions first (with their triage labels when a triage exists), then the other lists,
    the summary, the gate and the decision."""
    base, cand = report.baseline, report.candidate
    header = (f"baseline {_run_label(base)} ({', '.join(base.variants)}) vs candidate {_run_label(cand)} "
              f"({', '.join(cand.variants)}), compared by {report.keyed_by}")
    lines = [header, f"policy and criticality: {report.policy_source}"]
    if report.cannot_block:
        lines.insert(0, report.cannot_block)
    if report.holdout_note:
        lines.insert(0, report.holdout_note)
    if triage is not None:
        lines.append(f"triage: run {triage.run_id} ({triage.directory})")
    lines.append("")
    sections = [("Regressions", report.regressions()), ("Lower pass rate", report.declined()),
                ("Fixes", report.fixes()), ("New cases", report.new()),
                ("Missing from candidate", report.missing())]
    for title, rows in sections:
        lines.append(f"{title} ({len(rows)}):")
        for row in rows:
            lines.extend(_row_block(row, report.risk_flags(row.case_id), report))
            label = triage.labels.get(row.key) if triage is not None and row.regression else None
            if label is not None:
                lines.append(f"    triage:    {label.text()}")
    quarantined = report.quarantined()
    expired = [e for e in report.quarantine.entries if e.expired(report.today)]
    if quarantined or expired:
        lines.append(f"Quarantined ({len(quarantined)}):")
        for row in quarantined:
            entry = row.quarantined_by
            assert entry is not None
            lines.extend(_row_block(row, report.risk_flags(row.case_id)))
            lines.append(f"    owner {entry.owner}, until {entry.expiry}: {entry.reason or 'no reason given'}")
        for entry in expired:
            lines.append(f"  {entry.case}: entry expired {entry.expiry} (owner {entry.owner}), counts again")
    if report.scores:
        lines += ["", SCORE_TITLE, *score_lines(report.scores)]
    s = report.summary
    lines += ["", "Summary:"]
    for name, change in (("blocking", s.blocking), ("advisory", s.advisory)):
        lines.append(f"  pass rate, {name} ({_cases(change.cases)}): {_pct(change.baseline)} -> "
                     f"{_pct(change.candidate)}" + ("" if not change.cases else f" ({change.points:+.1f} pp)"))
    for rate in s.errors:
        lines.append(f"  error rate, {rate.label}: {_pct(rate.baseline_rate)} ({rate.baseline_errors} of "
                     f"{rate.baseline_trials} trials) -> {_pct(rate.candidate_rate)} ({rate.candidate_errors} of "
                     f"{rate.candidate_trials})")
    lines.append(f"  duration p50: {_seconds(s.duration[0].p50)} -> {_seconds(s.duration[1].p50)}; "
                 f"p99: {_seconds(s.duration[0].p99)} -> {_seconds(s.duration[1].p99)}")
    lines.extend(row.line() for row in spend_rows(s))
    test, adv = report.test, report.advisory_test
    lines += ["", f"Gate (alpha {report.options.alpha:g}, each test one-sided at {test.component_alpha:g}):"]
    lines.append(f"  paired t over {_cases(test.paired.n, 'blocking ')}: mean difference "
                 + ("-" if not test.paired.n else f"{test.paired.mean_difference * 100:+.1f} pp")
                 + f", {1 - report.options.alpha:.0%} interval {_interval(test)}")
    b, c = test.mcnemar.regressions, test.mcnemar.fixes
    lines.append(f"  exact McNemar (one-sided): {b} regression{'' if b == 1 else 's'}, "
                 f"{c} fix{'' if c == 1 else 'es'}, p = {test.mcnemar.p_value:.4g}")
    if adv.paired.n:
        lines.append(f"  advisory, never blocks ({_cases(adv.paired.n)}): mean difference "
                     f"{adv.paired.mean_difference * 100:+.1f} pp, interval {_interval(adv)}, "
                     f"McNemar p = {adv.mcnemar.p_value:.4g}")
    lines.append(f"  power: {report.power.text()}")
    if report.holdout_gap is not None:
        lines += ["", *report.holdout_gap.lines()]
    if report.behaviour is not None and report.behaviour.recorded:
        lines += ["", *render_behaviour(report.behaviour)]
    lines.append("")
    lines.extend(f"{f.level}: {f.message}" for f in report.findings)
    lines.append(f"verdict: {report.decision} (exit {report.exit_code})")
    return lines


SCORE_TITLE = ("Scorecard (means over the trials with a scorecard; a rise of test downgrades, tampering or unsafe "
               "passes warns):")
"""The title of the text report's scorecard section."""


def render_behaviour(behaviour: BehaviourComparison) -> list[str]:
    """The behaviour section: how medians are judged, every counted change (regressions first) and the tally."""
    lines = [f"Behaviour ({behaviour_rule(behaviour)}):", f"  directions: {behaviour.directions.source}"]
    if behaviour.directions.unknown:
        lines.append(f"  not a metric, ignored: {', '.join(behaviour.directions.unknown)}")
    lines.extend(f"  {line}" for line in behaviour_lines(behaviour))
    lines.append(f"  {pairs_line(behaviour)}")
    return lines


def behaviour_rule(behaviour: BehaviourComparison) -> str:
    """How the behaviour medians are judged, in one sentence."""
    return (f"medians of non-error trials per case; a change counts at {behaviour.threshold:.0%} or more with the "
            f"metric known in {behaviour.min_known} or more trials of each run; information, never a verdict")


def pairs_line(behaviour: BehaviourComparison) -> str:
    """``18 metric x case pairs: 6 regress, 1 improve, 10 neutral, 1 unknown``."""
    totals = {kind: sum(t[kind] for t in behaviour.tally().values()) for kind in CHANGES}
    return (f"{len(behaviour.changes)} metric x case pairs: {totals['regress']} regress, {totals['improve']} "
            f"improve, {totals['neutral']} neutral, {totals['unknown']} unknown")


def _spread_json(value: Spread | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"min": value.minimum, "median": value.median, "max": value.maximum, "trials": value.trials}


def behaviour_document(behaviour: BehaviourComparison | None) -> dict[str, Any] | None:
    """The behaviour comparison as a JSON-ready mapping."""
    if behaviour is None:
        return None
    return {
        "directions": dict(behaviour.directions.by_metric), "directions_source": behaviour.directions.source,
        "unknown_directions": list(behaviour.directions.unknown), "threshold": behaviour.threshold,
        "min_trials": behaviour.min_known, "tally": behaviour.tally(),
        "changes": [{"key": c.key, "metric": c.metric, "direction": c.direction, "change": c.change,
                     "relative": None if c.relative is None else _number(c.relative),
                     "baseline": _spread_json(c.baseline), "candidate": _spread_json(c.candidate)}
                    for c in behaviour.changes],
    }


def holdout_document(gap: HoldoutGap | None) -> dict[str, Any] | None:
    """compare --holdout's two sets and their gap as a JSON-ready mapping; None without holdout cases shown."""
    if gap is None:
        return None

    def side(gain: SetGain) -> dict[str, Any]:
        p = gain.paired
        return {"cases": p.n, "baseline": _number(gain.baseline_rate), "candidate": _number(gain.candidate_rate),
                "gain": _number(p.mean_difference), "ci_low": _number(p.ci_low), "ci_high": _number(p.ci_high)}

    return {"tuning": side(gap.tuning), "holdout": side(gap.holdout), "gap": _number(gap.gap),
            "ci_low": _number(gap.ci_low), "ci_high": _number(gap.ci_high), "significant": gap.significant,
            "min_detectable_gap": _number(gap.min_detectable_gap), "power": gap.power_text()}


def _tally_json(tally: Aggregate | None) -> dict[str, Any] | None:
    if tally is None:
        return None
    return {"passes": tally.passes, "fails": tally.fails, "errors": tally.errors, "passed": tally.passed,
            "rate": tally.success_rate, "reason": tally.reason}


def _number(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else value


def compare_document(report: CompareReport, triage: Triage | None = None) -> dict[str, Any]:
    """The report as a JSON-ready mapping (stable keys; NaN and infinities become null)."""

    def row(r: Row) -> dict[str, Any]:
        entry = r.quarantined_by
        label = triage.labels.get(r.key) if triage is not None and r.regression else None
        return {"key": r.key, "triage": None if label is None else {
                    "label": label.label, "passes": label.passes, "fails": label.fails, "errors": label.errors}, "case_id": r.case_id, "policy": r.info.policy, "critical": r.info.critical,
                "blocking": r.info.blocking, "corpus_status": r.info.status,
                "baseline": _tally_json(r.baseline), "candidate": _tally_json(r.candidate),
                "quarantined_by": None if entry is None else entry.case,
                "excerpts": row_excerpts(report, r),
                "risk_flags": list(report.risk_flags(r.case_id))}

    def test(t: DropTest) -> dict[str, Any]:
        p = t.paired
        return {"cases": p.n, "mean_difference": _number(p.mean_difference), "ci_low": _number(p.ci_low),
                "ci_high": _number(p.ci_high), "t_blocks": t.t_blocks, "mcnemar_regressions": t.mcnemar.regressions,
                "mcnemar_fixes": t.mcnemar.fixes, "mcnemar_p": t.mcnemar.p_value,
                "mcnemar_blocks": t.mcnemar_blocks, "blocked": t.blocked}

    s, p = report.summary, report.power
    spend = {name: [None if x is None else {"total": x.total, "trials": x.trials} for x in pair]
             for name, pair in (("cost_usd", s.cost), ("tokens", s.tokens))}
    by_bucket = {bucket: [None if x is None else {"total": x.total, "trials": x.trials}
                                          for x in (s.token_buckets[0].get(bucket), s.token_buckets[1].get(bucket))]
                                 for bucket in TOKEN_BUCKETS}
    return {
        "verdict": report.decision, "exit_code": report.exit_code, "refused": report.refused,
        "findings": [{"level": f.level, "rule": f.rule, "message": f.message} for f in report.findings],
        "baseline": _run_document(report.baseline), "candidate": _run_document(report.candidate),
        "policy_source": report.policy_source, "cannot_block": report.cannot_block,
        "held_out": list(report.held_out), "holdout": holdout_document(report.holdout_gap),
        "triage": None if triage is None else {"run_id": triage.run_id, "directory": str(triage.directory)},
        "keyed_by": report.keyed_by,
        **{name: [row(r) for r in rows] for name, rows in (
            ("regressions", report.regressions()), ("declined", report.declined()), ("fixes", report.fixes()),
            ("new", report.new()), ("missing", report.missing()), ("quarantined", report.quarantined()))},
        "summary": {
            "blocking": {"cases": s.blocking.cases, "baseline": _number(s.blocking.baseline),
                         "candidate": _number(s.blocking.candidate)},
            "advisory": {"cases": s.advisory.cases, "baseline": _number(s.advisory.baseline),
                         "candidate": _number(s.advisory.candidate)},
            "error_rate": [{"baseline_variant": e.baseline_variant, "candidate_variant": e.candidate_variant,
                            "baseline": {"errors": e.baseline_errors, "trials": e.baseline_trials,
                                         "rate": _number(e.baseline_rate)},
                            "candidate": {"errors": e.candidate_errors, "trials": e.candidate_trials,
                                          "rate": _number(e.candidate_rate)},
                            "rose": e.rose} for e in s.errors],
            "duration": [{"p50": d.p50, "p99": d.p99} for d in s.duration],
            "cost_change_pct": s.cost_change_pct, **spend, "tokens_by_bucket": by_bucket,
        },
        "test": test(report.test), "advisory_test": test(report.advisory_test),
        "behaviour": behaviour_document(report.behaviour),
        "scorecard": score_changes_json(report.scores),
        "power": {"cases": p.cases, "trials": p.trials, "sd": p.sd, "sd_source": p.sd_source,
                  "min_detectable_drop": _number(p.min_detectable_drop), "target_drop": p.target_drop,
                  "target_is_observed": p.target_is_observed, "cases_needed": p.cases_needed, "text": p.text()},
        "options": {"alpha": report.options.alpha, "tolerance_points": report.options.tolerance_points,
                    "max_cost_increase_pct": report.options.max_cost_increase_pct,
                    "allow_dataset_change": report.options.allow_dataset_change,
                    "today": report.today.isoformat()},
    }


def _run_document(run: RunTrials) -> dict[str, Any]:
    return {"run_id": run.run_id, "name": run.name, "directory": str(run.directory) if run.directory else None,
            "dataset_fingerprint": run.dataset_fingerprint, "variants": list(run.variants), "variant": run.selected}


def compare_json(report: CompareReport, triage: Triage | None = None) -> str:
    """compare_document as indented JSON text."""
    return json.dumps(compare_document(report, triage), indent=2, sort_keys=True)


# --------------------------------------------------------------------------------------------------------
# runner flakes


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def render_flakes(report: FlakesReport) -> list[str]:
    """The text report: one line per case, then the counts."""
    k = report.k
    width = max([len(c.key) for c in report.cases] + [4])
    header = (f"{'CASE':<{width}}  {'CLASS':<11}  {'PASSED':>7}  {'ERR':>3}  {'RATE':>4}  {'WILSON 95%':<10}  "
              f"{f'PASS@{k}':>6}  {f'PASS^{k}':>6}  NOTE")
    lines = [f"run {_run_label(report.run)}; criticality: {report.policy_source}", header]
    for c in report.cases:
        t = c.tally
        rate = f"{t.rate:.0%}" if t.scored else "-"
        note = ("critical, not quarantinable" if c.stability == "FLAKY" and c.critical
                else "quarantine candidate" if c.quarantine_candidate
                else f"fewer than {MIN_TRIALS} trials" if c.key in report.short else "")
        lines.append(f"{c.key:<{width}}  {c.stability or '-':<11}  {f'{t.passes}/{t.scored}':>7}  "
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


def flakes_document(report: FlakesReport) -> dict[str, Any]:
    """The report as a JSON-ready mapping."""
    return {
        "run_id": report.run.run_id,
        "name": report.run.name,
        "policy_source": report.policy_source,
        "k": report.k,
        "exit_code": report.exit_code,
        "refused": list(report.short),
        "cases": [{
            "key": c.key, "class": c.stability, "passes": c.tally.passes, "trials": c.tally.scored,
            "errors": c.tally.errors, "rate": c.tally.success_rate,
            "wilson": list(c.wilson), "pass_at_k": c.pass_at_k, "pass_hat_k": c.pass_hat_k,
            "critical": c.critical, "quarantine_candidate": c.quarantine_candidate,
        } for c in report.cases],
    }


def flakes_json(report: FlakesReport) -> str:
    """flakes_document as indented JSON text."""
    return json.dumps(flakes_document(report), indent=2, sort_keys=True)
