"""The terminal report's cases x variants grid: boxed, a case's title and policy beside its id, or for a run of
thousands of cases one plain line per case."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from runner.report.pages import at as _at
from runner.runs.aggregate import Aggregate
from runner.runs.load import LoadedRun


def cell_text(cell: Aggregate, k: int) -> str:
    """A cell of the grid: passed of scored, the estimators at k, errors and missing trials, a line each."""
    scored = cell.passes + cell.fails
    lines = [f"{cell.passes}/{scored} passed" if scored else "no scored trial"]
    if k:
        lines.append(f"@{k} {_at(cell.pass_at_k, k)}  ^{k} {_at(cell.pass_hat_k, k)}")
    extra = [f"{cell.errors} error{'s' if cell.errors != 1 else ''}" if cell.errors else "",
             f"{cell.missing} missing" if cell.missing else ""]
    if any(extra):
        lines.append(", ".join(e for e in extra if e))
    return "\n".join(lines)


def case_label(run: LoadedRun, case_id: str) -> str:
    """The case id, with its title and policy as the run recorded them (just the id for older runs)."""
    meta = run.manifest.cases_meta.get(case_id)
    if meta is None:
        return case_id
    policy = "blocking, critical" if meta.critical else meta.policy
    risk = f"\nrisk: {', '.join(meta.risk_flags)}" if meta.risk_flags else ""
    held = ", holdout" if meta.holdout else ""
    return f"{case_id} [{policy}{held}]\n{meta.title}{risk}"


GRID_CASES = 200
"""Cases above which the terminal grid is one plain line per case (no boxes, no titles): a boxed grid of
thousands of cases is too long to read and takes seconds to lay out (bench/report_benchmark.py)."""


def boxed_grid(run: LoadedRun, k: int) -> Table:
    """The boxed cases x variants grid, a case's title and policy beside its id."""
    grid = Table(title=None, show_lines=True)
    grid.add_column("case", no_wrap=True)
    names = [v.name for v in run.manifest.config.variants]
    for name in names:
        grid.add_column(name, no_wrap=True)
    cells = {(c.variant, c.case_id): c for c in run.cells}
    for case_id in run.manifest.config.cases:
        grid.add_row(Text(case_label(run, case_id)), *(cell_text(cells[(name, case_id)], k) for name in names))
    return grid


def compact_grid(run: LoadedRun, k: int) -> list[str]:
    """The grid of a run of more than GRID_CASES cases: a header, then per case its id, its policy and each
    variant's cell on one line ("3/5 passed, @5 0.60 ^5 0.00, 1 error"), in aligned columns."""
    names = [v.name for v in run.manifest.config.variants]
    cells = {(c.variant, c.case_id): c for c in run.cells}
    rows = [["case", "policy", *names]]
    for case_id in run.manifest.config.cases:
        meta = run.manifest.cases_meta.get(case_id)
        policy = "" if meta is None else ("blocking, critical" if meta.critical else meta.policy) + (
            ", holdout" if meta.holdout else "")
        rows.append([case_id, policy, *(cell_text(cells[(name, case_id)], k).replace("\n", ", ") for name in names)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)).rstrip() for row in rows]


