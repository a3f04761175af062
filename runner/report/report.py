"""`runner report`: a run as a terminal table, one JSON document, or a self-contained HTML page.

Every figure comes from `runner.runs.load.load_run`, which recomputes the aggregates from the trials.
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from runner.behaviour.aggregate import BUCKETS, METRICS, run_behaviour
from runner.report.artifacts import ARTIFACT_CAP, PAGE_BUDGET, Budget, TrialView, relative_base, trial_view
from runner.report.behaviour import behaviour_json, behaviour_table, checks_table, totals_line
from runner.report.checks import TrialChecks, cell_checks, cell_lines, checks_json, run_checks, trial_lines
from runner.report.failure import failure_lines
from runner.report.grid import GRID_CASES, boxed_grid, compact_grid
from runner.report.pages import at as _at
from runner.report.pages import environment
from runner.report.pages import rate as _rate
from runner.report.paging import EXCERPT_CAP, Paging, paging_for, render_sheets, write_pages
from runner.report.plan import trial_plan
from runner.report.review import Review
from runner.report.scorecards import ScoreView, counts_text, score_text, score_view
from runner.report.sets import sets_table
from runner.report.wordings import gap_lines, wording_rows, wordings_json, wordings_table
from runner.runs.aggregate import Aggregate
from runner.runs.holdout import holdout_cases, set_rates
from runner.runs.load import LoadedRun
from runner.runs.result import TrialResult, trial_path
from runner.scorecard.means import COUNTS, SCORES, VariantScores, variant_scores, variant_scores_json
from runner.settings import RecordedSettings, resume_command


def common_k(run: LoadedRun) -> int:
    """The k shown in the table: the smallest number of scored trials over the cells that have any."""
    return min((c.passes + c.fails for c in run.cells if c.passes + c.fails), default=0)


def sandbox_text(recorded: RecordedSettings | None) -> str:
    """How the run confined its trials, in a few words: "bwrap 0.8.0, agent network host", or "none"."""
    if recorded is None:
        return "unrecorded"
    settings = recorded.settings
    if settings.sandbox != "bwrap":
        return settings.sandbox
    text = f"bwrap {recorded.bwrap_version or ''}".rstrip()
    text += f", agent network {settings.text('agent_network')}"
    if settings.agent_allow_hosts:
        text += f", allowed hosts {' '.join(settings.agent_allow_hosts)}"
    for label, paths in (("binds", settings.agent_binds), ("home copies", settings.agent_home)):
        if paths:
            text += f", {label} {' '.join(str(p) for p in paths)}"
    return text


MODE_NOTES = {
    "baseline": "mode baseline: no agent ran and the grader judged the broken base as it is, so a pass means the "
                "case is broken (its grader passes without the fix)",
    "oracle": "mode oracle: the known fix was applied, so a fail means the case is broken (its grader rejects "
              "the fix)",
}
"""What a pass or a fail means in the modes without an agent."""
OPEN_NETWORK = ("OPEN NETWORK: the agents had the whole host network (--agent-network host or --sandbox none), so "
                "nothing kept them from fetching the fix from upstream; a pass may be the fix found, not made")
"""The note of a run whose agents could reach anything (every format shows it first)."""


def run_notes(run: LoadedRun) -> list[str]:
    """What a reader must know before reading the figures: an INCOMPLETE banner with the missing count, and
    what a pass means in a mode without an agent. Every report format shows them first."""
    notes = []
    planned = run.manifest.config.trials * len(run.manifest.config.cases) * len(run.manifest.config.variants)
    if run.missing:
        recorded = run.manifest.current_settings()  # what the run last ran with, as Ctrl-C's line says
        line = resume_command(run.directory, recorded.settings) if recorded is not None else \
            f"runner run --resume {run.directory}"
        notes.append(f"INCOMPLETE: {run.missing} of {planned} planned trials missing; complete the run with "
                     f"`{line}`")
    if run.manifest.config.mode in MODE_NOTES:
        notes.append(MODE_NOTES[run.manifest.config.mode])
    recorded = run.manifest.settings
    if run.manifest.config.mode == "agent" and recorded is not None and recorded.settings.open_network:
        notes.append(OPEN_NETWORK)
    if run.held_out:
        count = len(run.held_out)
        notes.append(f"holdout: {count} holdout case{'' if count == 1 else 's'} held out of every figure "
                     f"(--holdout shows them)")
    return notes


def upstream_lines(run: LoadedRun) -> list[str]:
    """One line per trial that tried to reach a code host and was denied (flag upstream_lookup)."""
    return [f"upstream lookup {t.variant}::{t.case_id} #{t.trial}: denied {', '.join(t.upstream_lookups) or '?'}"
            for t in run.trials if "upstream_lookup" in t.flags]


def risk_flags(run: LoadedRun, case_id: str) -> tuple[str, ...]:
    """The case's risk labels as the run recorded them (() for older runs)."""
    meta = run.manifest.cases_meta.get(case_id)
    return meta.risk_flags if meta is not None else ()


def sets_json(run: LoadedRun) -> dict[str, Any]:
    """The document's "holdout" key: the cases held out of this view, and (when they are shown) each variant's
    totals on the tuning set and the holdout set."""
    return {"held_out": list(run.held_out), "cases": list(holdout_cases(run.manifest)),
            "sets": [{"variant": r.variant, "tuning": aggregate_json(r.tuning), "holdout": aggregate_json(r.holdout)}
                     for r in set_rates(run)]}


def run_scores(run: LoadedRun) -> tuple[VariantScores, ...]:
    """Every variant's scorecard summary; () when no trial of the run has a scorecard."""
    if not any(isinstance(t.scorecard, dict) for t in run.trials):
        return ()
    return tuple(variant_scores(v.name, [t for t in run.trials if t.variant == v.name])
                 for v in run.manifest.config.variants)


def trial_score(run: LoadedRun, result: TrialResult) -> ScoreView:
    """One trial's scorecard view, with its plan line read from its folder."""
    folder = trial_path(run.directory, result.variant, result.case_id, result.trial)
    return score_view(result, trial_plan(folder), risk_flags(run, result.case_id))


def scores_table(found: tuple[VariantScores, ...]) -> Table:
    """Per variant the mean of each score (over the trials that know it) and the counts of the findings."""
    table = Table(box=box.SIMPLE, pad_edge=False)
    for column in ("variant", "scored", *SCORES, *(c.replace("_", " ") for c in COUNTS)):
        table.add_column(column, justify="left" if column == "variant" else "right", no_wrap=True)
    for v in found:
        table.add_row(Text(v.variant), str(v.scored), *(score_text(v.means[name]) for name in SCORES),
                      *(str(v.counts[name]) for name in COUNTS))
    return table


def render_table(run: LoadedRun, console: Console | None = None, review: Review | None = None) -> str:
    """The terminal report: a cases x variants grid (one plain line per case above GRID_CASES), one line per
    variant, then (when trials recorded behaviour) the behaviour table and the run's totals, and (when cases have a trajectory or a max_turns) the checks per cell
    and per trial; returns the text printed."""
    buffer = io.StringIO()
    out = console or Console(file=buffer, width=160, color_system=None, highlight=False)
    manifest, config = run.manifest, run.manifest.config
    k = common_k(run)
    for note in run_notes(run):
        out.print(note, style="bold", markup=False, soft_wrap=True)
    named = f" [{manifest.name}]" if manifest.name else ""
    out.print(f"run {manifest.run_id}{named}  mode {config.mode}  {config.trials} trial(s) per case  "
              f"dataset {manifest.dataset_fingerprint[:12]}  runtime {manifest.runtime.get('fingerprint', '')[:12]}  "
              f"sandbox {sandbox_text(manifest.settings)}", markup=False)
    for line in manifest.resume_overrides():
        out.print(line, markup=False, soft_wrap=True)
    if len(config.cases) > GRID_CASES:
        out.print("\n".join(compact_grid(run, k)), markup=False, highlight=False, soft_wrap=True)
    else:
        out.print(boxed_grid(run, k))
    totals = Table(box=box.SIMPLE, pad_edge=False)
    for column in ("variant", "trials", "pass", "fail", "err", "miss", "rate", "wilson95",
                   f"pass@{k or 'k'}", f"pass^{k or 'k'}"):
        totals.add_column(column, justify="left" if column == "variant" else "right", no_wrap=True,
                          min_width=len(column))
    for v in run.variants:
        wilson = f"{v.wilson[0]:.0%}–{v.wilson[1]:.0%}" if v.wilson else "—"
        totals.add_row(v.variant, str(v.trials), str(v.passes), str(v.fails), str(v.errors), str(v.missing),
                       _rate(v.success_rate), wilson, _at(v.pass_at_k, k), _at(v.pass_hat_k, k))
    out.print(totals)
    out.print("err: trials that ended in error, kept out of rate, pass@k and pass^k; miss: trials not recorded; "
              f"pass@k and pass^k: unbiased estimators at k={k or '—'} (every k in --json and --html)")
    sets = set_rates(run)
    if sets:
        out.print("tuning set and holdout set: per variant the pass rate over the cases that are not holdout and "
                  "over the holdout cases", markup=False)
        out.print(sets_table(sets))
    for line in failure_lines(run.directory, run.trials):
        out.print(line, markup=False, soft_wrap=True)
    for line in upstream_lines(run):
        out.print(line, markup=False, soft_wrap=True)
    for line in review.lines(run) if review is not None else ():
        out.print(line, markup=False, soft_wrap=True)
    rows = wording_rows(run)
    if rows:
        out.print()
        out.print(f"wordings: per case with several, each variant's passes under each wording (drawn per trial "
                  f"from seed {config.seed})", markup=False)
        out.print(wordings_table(run, rows))
        for line in gap_lines(run, rows):
            out.print(line, markup=False, soft_wrap=True)
    found = run_scores(run)
    if found:
        out.print()
        out.print("scorecard: per variant the mean of each score over its trials with a scorecard, and the trials "
                  "with each finding (`runner report RUN --trial VARIANT/CASE/N` shows one trial)", markup=False)
        out.print(scores_table(found))
        for summary in found:
            if summary.not_analysed:
                out.print(f"{summary.variant}: {summary.not_analysed} patch(es) could not be analysed", markup=False)
    behaviour = run_behaviour(run)
    if behaviour.recorded:
        out.print()
        out.print("behaviour: per case the median over its non-error trials; total: every recorded trial",
                  markup=False)
        out.print(behaviour_table(behaviour))
        out.print(totals_line(behaviour.run), markup=False)
        out.print("records: parsed, partial (cut off), unparsed, none (plain text) or absent (no behaviour.json)",
                  markup=False)
    checks = report_checks(run)
    if checks:
        out.print()
        out.print("checks: each trial's trajectory and max_turns verdicts (cases with either check only)",
                  markup=False)
        out.print(checks_table(cell_checks(checks)))
        for checked in checks:
            for line in trial_lines(checked):
                out.print(line, markup=False, soft_wrap=True)
    return buffer.getvalue()


def report_checks(run: LoadedRun) -> tuple[TrialChecks, ...]:
    """The behaviour checks of every trial whose case has a trajectory or a max_turns."""
    return run_checks(run.directory, run.trials, run.manifest.cases_meta)


def print_report(run: LoadedRun, review: Review | None = None) -> None:
    """Print the table (in colour on a terminal) and the run directory: what `runner run` and `runner report` show."""
    if sys.stdout.isatty():
        render_table(run, Console(highlight=False), review)
    else:
        click.echo(render_table(run, review=review), nl=False)
    click.echo(f"run directory: {run.directory}")


def aggregate_json(aggregate: Aggregate) -> dict[str, Any]:
    """An aggregate with JSON-friendly keys."""
    data = asdict(aggregate)
    del data["reason"]  # compare's and flakes' failure reason; the report shows every trial's own
    data["pass_at_k"] = {str(k): v for k, v in aggregate.pass_at_k.items()}
    data["pass_hat_k"] = {str(k): v for k, v in aggregate.pass_hat_k.items()}
    data["wilson"] = list(aggregate.wilson) if aggregate.wilson else None
    return data


def report_document(run: LoadedRun, review: Review | None = None) -> dict[str, Any]:
    """The whole run as one JSON-able document: manifest, aggregates, every trial, behaviour (every cell's
    spreads, the totals per variant and of the run) and checks (per cell the trials that broke a trajectory or a
    max_turns, and every checked trial's checks)."""
    manifest = run.manifest
    return {
        "run_id": manifest.run_id,
        "name": manifest.name,
        "notes": run_notes(run),
        "upstream_lookups": upstream_lines(run),
        "origin": asdict(manifest.origin) if manifest.origin else None,
        "cases_meta": {case: asdict(meta) for case, meta in manifest.cases_meta.items()},
        "directory": str(run.directory),
        "created": manifest.created,
        "dataset_fingerprint": manifest.dataset_fingerprint,
        "runtime": manifest.runtime,
        "config": asdict(manifest.config),
        "resumed": list(manifest.resumed),
        "resume_overrides": manifest.resume_overrides(),
        "missing": run.missing,
        "variants": [aggregate_json(v) for v in run.variants],
        "cells": [aggregate_json(c) for c in run.cells],
        "trials": [asdict(t) for t in run.trials],
        "behaviour": behaviour_json(run_behaviour(run)),
        "checks": checks_json(report_checks(run)),
        "scorecards": scorecards_json(run),
        "holdout": sets_json(run),
        "review": review.document(run) if review is not None else None,
        "wordings": wordings_json(run, wording_rows(run)),
    }


def scorecards_json(run: LoadedRun) -> dict[str, Any]:
    """The report document's "scorecards" key: per variant the means and counts, per case its risk flags, and
    every trial with a scorecard: its plan line, lanes, score line, flags and scorecard."""
    trials = []
    for result in run.trials:
        if not isinstance(result.scorecard, dict):
            continue
        entry = {"variant": result.variant, "case_id": result.case_id, "trial": result.trial,
                 "outcome": result.outcome, **trial_score(run, result).json(), "scorecard": result.scorecard}
        trials.append(entry)
    return {"variants": [variant_scores_json(v) for v in run_scores(run)],
            "risk_flags": {case: list(risk_flags(run, case)) for case in run.manifest.config.cases},
            "counts_text": {v.variant: counts_text(v.counts) for v in run_scores(run)}, "trials": trials}


def report_json(run: LoadedRun, review: Review | None = None) -> str:
    """report_document as indented JSON text."""
    return json.dumps(report_document(run, review), indent=2, sort_keys=True) + "\n"


def case_title(run: LoadedRun, case_id: str) -> str:
    """The case's title as the run recorded it, or the id for runs made before runs recorded titles."""
    meta = run.manifest.cases_meta.get(case_id)
    return meta.title if meta is not None and meta.title else case_id


def _policy(run: LoadedRun, case_id: str) -> str:
    meta = run.manifest.cases_meta.get(case_id)
    return "" if meta is None else "blocking, critical" if meta.critical else meta.policy


def render_html(run: LoadedRun, html_path: Path, review: Review | None = None, refresh: int | None = None) -> str:
    """The page of render_pages (what a reader opens first)."""
    return render_pages(run, html_path, review, refresh)[1]


def render_pages(run: LoadedRun, html_path: Path, review: Review | None = None,
                 refresh: int | None = None) -> tuple[Paging, str, dict[str, str]]:
    """A self-contained page (inline style, no script, nothing fetched): the run's notes, summaries, one grid of
    cases by variants whose cells show each trial's outcome, duration and reason, CSS-only filters, the errors
    apart, and one section per trial (shown when its cell is clicked) embedding its prompt, transcript, patch and
    grader log, with links relative to html_path; when trials recorded behaviour, the run's and each variant's totals
    and each cell's medians, and in each trial's section its record (tool calls, tokens, cost); when cases have a
    trajectory or a max_turns, per cell the trials that broke them, and in each trial's section its checks.

    Above INLINE_TRIALS trials the sections are on trial pages beside the page (``runner.report.paging``), each
    embedding an excerpt of every artifact; refresh (seconds) makes every page reload itself while the run is
    incomplete. Returns the paging, the page and the trial pages by name."""
    paging = paging_for(html_path, len(run.trials))
    base = relative_base(run.directory, paging.sheet_base if paging.paged else html_path)
    cap = EXCERPT_CAP if paging.paged else ARTIFACT_CAP
    budget = Budget()
    checks = report_checks(run)
    checked = {(c.variant, c.case_id, c.trial): c for c in checks}
    by_key = {(t.variant, t.case_id, t.trial): t for t in run.trials}
    cells = {(c.variant, c.case_id): c for c in run.cells}
    config = run.manifest.config
    rows: list[dict[str, Any]] = []
    views: list[TrialView] = []
    for ci, case_id in enumerate(config.cases):
        title = case_title(run, case_id)
        groups: list[dict[str, Any]] = []
        outcomes: set[str] = set()
        for vi, variant in enumerate(config.variants):
            trials: list[TrialView | None] = []
            for number in range(1, config.trials + 1):
                result = by_key.get((variant.name, case_id, number))
                view = None if result is None else trial_view(run.directory, base, result, f"t{vi}-{ci}-{number}",
                                                               title, budget,
                                                               checks=checked.get((variant.name, case_id, number)),
                                                               risk_flags=risk_flags(run, case_id),
                                                               page_href=paging.href(len(views)), cap=cap)
                trials.append(view)
                if view is not None:
                    views.append(view)
                    outcomes.add(view.result.outcome)
            groups.append({"cell": cells[(variant.name, case_id)], "trials": trials})
        rows.append({"case_id": case_id, "title": title, "policy": _policy(run, case_id), "groups": groups,
                     "risk_flags": risk_flags(run, case_id),
                     "failed": "fail" in outcomes, "errored": "error" in outcomes})
    refresh = refresh if run.missing else None
    template = environment().get_template("report.html.j2")
    page = template.render(run=run, manifest=run.manifest, config=config, sandbox=sandbox_text(run.manifest.settings),
                           notes=run_notes(run), upstream=upstream_lines(run), rows=rows, views=views,
                           sections=[] if paging.paged else views, paging=paging, refresh=refresh,
                           excerpt_cap=EXCERPT_CAP,
                           k=common_k(run), budget=budget,
                           page_budget=PAGE_BUDGET, errors=[v for v in views if v.result.outcome == "error"],
                           max_k=max((len(v.pass_at_k) for v in run.variants), default=0),
                           behaviour=run_behaviour(run), buckets=BUCKETS, metrics=METRICS,
                           checks=[(c, cell_lines(c)) for c in cell_checks(checks)], scores=run_scores(run),
                           score_names=SCORES, count_names=COUNTS, sets=set_rates(run),
                           review=review.lines(run) if review is not None else [], wordings=wording_rows(run))
    return paging, page, render_sheets(paging, views, f"Hindcast run {run.manifest.run_id}", "grid", refresh)


def write_html(run: LoadedRun, html_path: Path, review: Review | None = None, refresh: int | None = None) -> None:
    """Write the HTML page, and its trial pages beside it, atomically (``runner.report.paging.write_pages``)."""
    paging, page, sheets = render_pages(run, html_path, review, refresh)
    write_pages(paging, page, sheets)
