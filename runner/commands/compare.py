"""CLI commands `runner compare`, `runner flakes` and `runner select`."""

from __future__ import annotations

import json
import math
from functools import partial
from pathlib import Path
from typing import Any

import click

from corpus.cli_support import corpus_option
from corpus.errors import ExitCode, UsageError
from corpus.store import Corpus
from runner.gate.flakes import FlakesOptions, detect_flakes, flakes_json, quarantine_stubs, render_flakes
from runner.gate.gate import CompareOptions, CompareReport, evaluate
from runner.gate.pairing import Row, Spend, case_index, load_trials
from runner.gate.quarantine import Quarantine, load_quarantine, write_stubs
from runner.gate.select import changed_since, select_cases
from runner.gate.stats import DropTest

corpus_option = partial(corpus_option, help="Corpus directory (case policy and criticality).")
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")


@click.command("compare")
@click.option("--baseline", type=click.Path(path_type=Path), required=True, help="The baseline run directory.")
@click.option("--candidate", type=click.Path(path_type=Path), required=True, help="The candidate run directory.")
@corpus_option()
@click.option("--quarantine", "quarantine_file", type=click.Path(path_type=Path), default=None,
              help="Quarantine YAML file (case, reason, owner, expiry per entry).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="False-block budget of the statistical rule.")
@click.option("--tolerance", type=float, default=2.0, show_default=True,
              help="Points of drop above which a drop that is not significant warns.")
@click.option("--max-cost-increase", type=float, default=20.0, show_default=True,
              help="Percent rise of the mean cost per trial above which the gate warns.")
@click.option("--allow-dataset-change", is_flag=True, help="Compare runs made on different dataset fingerprints.")
@json_option
def compare_command(baseline: Path, candidate: Path, corpus_dir: Path, quarantine_file: Path | None, alpha: float,
                    tolerance: float, max_cost_increase: float, allow_dataset_change: bool, as_json: bool) -> int:
    """Gate a candidate run against a baseline: exit 0 PASS, 2 WARN, 3 bad input, 4 BLOCK."""
    options = CompareOptions(alpha=alpha, tolerance_points=tolerance, max_cost_increase_pct=max_cost_increase,
                             allow_dataset_change=allow_dataset_change)
    report = evaluate(load_trials(baseline), load_trials(candidate), case_index(Corpus.open(corpus_dir)),
                      load_quarantine(quarantine_file) if quarantine_file else Quarantine(), options)
    click.echo(json.dumps(compare_json(report), indent=2, sort_keys=True) if as_json
               else "\n".join(render_compare(report)))
    return report.exit_code


@click.command("flakes")
@click.argument("run", type=click.Path(path_type=Path))
@corpus_option()
@click.option("--k", "k", type=int, default=3, show_default=True, help="The k of pass@k and pass^k.")
@click.option("--quarantine-out", type=click.Path(path_type=Path), default=None,
              help="Append stub entries for flaky, non-critical cases to this quarantine file.")
@json_option
def flakes_command(run: Path, corpus_dir: Path, k: int, quarantine_out: Path | None, as_json: bool) -> int:
    """Label every case STABLE_PASS, STABLE_FAIL or FLAKY: exit 0, 2 flaky, 3 bad input, 4 too few trials."""
    options = FlakesOptions(k=k)
    report = detect_flakes(load_trials(run), case_index(Corpus.open(corpus_dir)), options)
    click.echo(flakes_json(report) if as_json else "\n".join(render_flakes(report)))
    if quarantine_out is not None and report.exit_code != ExitCode.BLOCK:
        added = write_stubs(quarantine_out, quarantine_stubs(report))
        click.echo(f"{quarantine_out}: {len(added)} stub {'entry' if len(added) == 1 else 'entries'} added; "
                   "fill in owner and expiry", err=True)
    return report.exit_code


@click.command("select")
@corpus_option()
@click.option("--repo", type=click.Path(path_type=Path), default=None,
              help="Source repository for --since (overrides corpus.yaml).")
@click.option("--changed", is_flag=True, help="Select by the PATHS given (repository-relative).")
@click.option("--since", metavar="REV", default=None, help="Select by the files changed since REV.")
@click.argument("paths", nargs=-1)
def select_command(corpus_dir: Path, repo: Path | None, changed: bool, since: str | None,
                   paths: tuple[str, ...]) -> None:
    """Print the ids of the cases whose trigger paths match the changed files, one per line."""
    if changed == (since is not None):
        raise UsageError("give exactly one of --changed PATH... or --since REV")
    if since is None and not paths:
        raise UsageError("--changed needs at least one path")
    if since is not None and paths:
        raise UsageError("paths are only taken with --changed")
    corpus = Corpus.open(corpus_dir)
    files = list(paths) if since is None else changed_since(corpus.repo_path(repo), since)
    for case_id in select_cases(corpus, files):
        click.echo(case_id)


COMMANDS = [compare_command, flakes_command, select_command]


# --------------------------------------------------------------------------------------------------------
# Rendering the comparison


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


def _side(label: str, tally: Any) -> str:
    text = f"{label} {tally.describe()}"
    return f"{text}: {tally.reason}" if tally.reason and not tally.passed else text


def _row_block(row: Row) -> list[str]:
    lines = [f"  {row.key}  [{row.info.label()}]"]
    if row.baseline is not None:
        lines.append("    " + _side("baseline: ", row.baseline))
    if row.candidate is not None:
        lines.append("    " + _side("candidate:", row.candidate))
    return lines


def _spend_line(name: str, pair: tuple[Spend | None, Spend | None], unit: str, digits: int) -> str | None:
    before, after = pair
    if before is None and after is None:
        return None

    def money(value: float) -> str:
        return f"{unit}{value:,.{digits}f}"

    parts = [money(s.total) if s else "not recorded" for s in pair]
    line = f"  {name}: {parts[0]} -> {parts[1]}"
    if before and after:
        change = ("" if before.per_trial <= 0 else f" ({(after.per_trial / before.per_trial - 1) * 100:+.1f}%)")
        line += (f"; per trial {money(before.per_trial)} -> {money(after.per_trial)}{change} "
                 f"over {before.trials}/{after.trials} trials")
    return line


def render_compare(report: CompareReport) -> list[str]:
    """The text report: regressions first, then the other lists, the summary, the gate and the verdict."""
    base, cand = report.baseline, report.candidate
    header = (f"baseline {base.run_id} ({', '.join(base.variants)}) vs candidate {cand.run_id} "
              f"({', '.join(cand.variants)}), compared by {report.keyed_by}")
    lines = [header, ""]
    sections = [("Regressions", report.regressions()), ("Lower pass rate", report.declined()),
                ("Fixes", report.fixes()), ("New cases", report.new()),
                ("Missing from candidate", report.missing())]
    for title, rows in sections:
        lines.append(f"{title} ({len(rows)}):")
        for row in rows:
            lines.extend(_row_block(row))
    quarantined = report.quarantined()
    expired = [e for e in report.quarantine.entries if e.expired(report.today)]
    if quarantined or expired:
        lines.append(f"Quarantined ({len(quarantined)}):")
        for row in quarantined:
            entry = row.quarantined_by
            assert entry is not None
            lines.extend(_row_block(row))
            lines.append(f"    owner {entry.owner}, until {entry.expiry}: {entry.reason or 'no reason given'}")
        for entry in expired:
            lines.append(f"  {entry.case}: entry expired {entry.expiry} (owner {entry.owner}), counts again")
    s = report.summary
    lines += ["", "Summary:"]
    for name, change in (("blocking", s.blocking), ("advisory", s.advisory)):
        lines.append(f"  pass rate, {name} ({_cases(change.cases)}): {_pct(change.baseline)} -> "
                     f"{_pct(change.candidate)}" + ("" if not change.cases else f" ({change.points:+.1f} pp)"))
    lines.append(f"  duration p50: {_seconds(s.duration[0].p50)} -> {_seconds(s.duration[1].p50)}; "
                 f"p99: {_seconds(s.duration[0].p99)} -> {_seconds(s.duration[1].p99)}")
    for extra in (_spend_line("cost", s.cost, "$", 4), _spend_line("tokens", s.tokens, "", 0)):
        if extra:
            lines.append(extra)
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
    lines.append("")
    lines.extend(f"{f.level}: {f.message}" for f in report.findings)
    lines.append(f"verdict: {report.verdict} (exit {report.exit_code})")
    return lines


def _tally_json(tally: Any) -> dict[str, Any] | None:
    if tally is None:
        return None
    return {"passes": tally.passes, "fails": tally.fails, "errors": tally.errors, "passed": tally.passed,
            "rate": None if not tally.trials else tally.rate, "reason": tally.reason}


def _number(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else value


def compare_json(report: CompareReport) -> dict[str, Any]:
    """The report as a JSON-ready mapping (stable keys; NaN and infinities become null)."""

    def row(r: Row) -> dict[str, Any]:
        entry = r.quarantined_by
        return {"key": r.key, "case_id": r.case_id, "policy": r.info.policy, "critical": r.info.critical,
                "blocking": r.info.blocking, "corpus_status": r.info.status,
                "baseline": _tally_json(r.baseline), "candidate": _tally_json(r.candidate),
                "quarantined_by": None if entry is None else entry.case}

    def test(t: DropTest) -> dict[str, Any]:
        p = t.paired
        return {"cases": p.n, "mean_difference": _number(p.mean_difference), "ci_low": _number(p.ci_low),
                "ci_high": _number(p.ci_high), "t_blocks": t.t_blocks, "mcnemar_regressions": t.mcnemar.regressions,
                "mcnemar_fixes": t.mcnemar.fixes, "mcnemar_p": t.mcnemar.p_value,
                "mcnemar_blocks": t.mcnemar_blocks, "blocked": t.blocked}

    s, p = report.summary, report.power
    spend = {name: [None if x is None else {"total": x.total, "trials": x.trials} for x in pair]
             for name, pair in (("cost_usd", s.cost), ("tokens", s.tokens))}
    return {
        "verdict": report.verdict, "exit_code": report.exit_code, "refused": report.refused,
        "findings": [{"level": f.level, "rule": f.rule, "message": f.message} for f in report.findings],
        "baseline": {"run_id": report.baseline.run_id, "dataset_fingerprint": report.baseline.dataset_fingerprint,
                     "variants": list(report.baseline.variants)},
        "candidate": {"run_id": report.candidate.run_id,
                      "dataset_fingerprint": report.candidate.dataset_fingerprint,
                      "variants": list(report.candidate.variants)},
        "keyed_by": report.keyed_by,
        **{name: [row(r) for r in rows] for name, rows in (
            ("regressions", report.regressions()), ("declined", report.declined()), ("fixes", report.fixes()),
            ("new", report.new()), ("missing", report.missing()), ("quarantined", report.quarantined()))},
        "summary": {
            "blocking": {"cases": s.blocking.cases, "baseline": _number(s.blocking.baseline),
                         "candidate": _number(s.blocking.candidate)},
            "advisory": {"cases": s.advisory.cases, "baseline": _number(s.advisory.baseline),
                         "candidate": _number(s.advisory.candidate)},
            "duration": [{"p50": d.p50, "p99": d.p99} for d in s.duration],
            "cost_change_pct": s.cost_change_pct, **spend,
        },
        "test": test(report.test), "advisory_test": test(report.advisory_test),
        "power": {"cases": p.cases, "trials": p.trials, "sd": p.sd, "sd_source": p.sd_source,
                  "min_detectable_drop": _number(p.min_detectable_drop), "target_drop": p.target_drop,
                  "target_is_observed": p.target_is_observed, "cases_needed": p.cases_needed, "text": p.text()},
        "options": {"alpha": report.options.alpha, "tolerance_points": report.options.tolerance_points,
                    "max_cost_increase_pct": report.options.max_cost_increase_pct,
                    "allow_dataset_change": report.options.allow_dataset_change,
                    "today": report.today.isoformat()},
    }
