"""A case's pass rate by wording: for each case whose trials were drawn among several wordings, each variant's
trials under each wording, computed from the trials (never stored)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from runner.report.pages import rate
from runner.runs.aggregate import Aggregate, cell_aggregate
from runner.runs.load import LoadedRun
from runner.runs.result import TrialResult


@dataclass(frozen=True)
class WordingRow:
    """One wording of one case: each variant's trials given it."""

    case_id: str
    """The case."""
    wording: str
    """The wording's id (`prompt` for the case's own prompt)."""
    cells: tuple[Aggregate, ...]
    """Per variant, in the run's order, the aggregate of the trials given this wording."""


def wording_rows(run: LoadedRun) -> tuple[WordingRow, ...]:
    """One row per wording of every case the run drew wordings for (its recorded wordings, then any other a
    trial names), in the run's case order; () when no case had more than one."""
    config = run.manifest.config
    rows: list[WordingRow] = []
    by_case: dict[str, list[TrialResult]] = {}
    for trial in run.trials:
        by_case.setdefault(trial.case_id, []).append(trial)
    for case_id in config.cases:
        meta = run.manifest.cases_meta.get(case_id)
        trials = by_case.get(case_id, [])
        recorded = meta.wordings if meta is not None else ()
        ids = tuple(dict.fromkeys([*recorded, *(t.wording for t in trials if t.wording is not None)]))
        if len(ids) < 2:
            continue
        for wording in ids:
            cells = tuple(cell_aggregate(v.name, case_id, [t for t in trials
                                                           if t.variant == v.name and t.wording == wording])
                          for v in config.variants)
            rows.append(WordingRow(case_id, wording, cells))
    return tuple(rows)


def spread(rows: tuple[WordingRow, ...], case_id: str, index: int) -> float | None:
    """The widest gap between two wordings' success rates of one case for the variant at index (None with fewer
    than two wordings scored)."""
    rates = [r.cells[index].success_rate for r in rows if r.case_id == case_id]
    known = [value for value in rates if value is not None]
    return max(known) - min(known) if len(known) > 1 else None


def _cell(cell: Aggregate) -> str:
    errors = f", {cell.errors} err" if cell.errors else ""
    return f"{cell.passes}/{cell.scored} {rate(cell.success_rate)}{errors}" if cell.trials else "—"


def wordings_table(run: LoadedRun, rows: tuple[WordingRow, ...]) -> Table:
    """Per case and wording, each variant's passes over scored trials and the rate; the case's first row says the
    widest gap between its wordings."""
    names = [v.name for v in run.manifest.config.variants]
    table = Table(box=box.SIMPLE, pad_edge=False)
    for column in ("case", "wording", *names):
        table.add_column(column, justify="left" if column in ("case", "wording") else "right", no_wrap=True)
    shown: set[str] = set()
    for row in rows:
        label = "" if row.case_id in shown else row.case_id
        shown.add(row.case_id)
        table.add_row(Text(label), Text(row.wording), *(_cell(cell) for cell in row.cells))
    return table


def gap_lines(run: LoadedRun, rows: tuple[WordingRow, ...]) -> list[str]:
    """One line per case and variant whose rates differ between wordings: how far apart they are."""
    lines = []
    for case_id in dict.fromkeys(r.case_id for r in rows):
        for index, variant in enumerate(run.manifest.config.variants):
            gap = spread(rows, case_id, index)
            if gap:
                lines.append(f"wording gap {variant.name}::{case_id}: {gap:.0%} between its best and worst wording")
    return lines


def wordings_json(run: LoadedRun, rows: tuple[WordingRow, ...]) -> list[dict[str, Any]]:
    """The report document's "wordings": per case, wording and variant the counts and the rate."""
    return [{"case_id": row.case_id, "wording": row.wording, "variant": cell.variant, "trials": cell.trials,
             "passes": cell.passes, "fails": cell.fails, "errors": cell.errors, "success_rate": cell.success_rate}
            for row in rows for cell in row.cells]
