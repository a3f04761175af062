"""The report's behaviour figures: the JSON document's "behaviour" key and the terminal's behaviour table, over
`runner.behaviour.aggregate`."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from runner.behaviour.aggregate import STATUSES, CellBehaviour, RunBehaviour, Totals
from runner.behaviour.metrics import Spread
from runner.report.artifacts import seconds
from runner.report.checks import CellChecks, cell_lines


def spread_json(value: Spread | None) -> dict[str, float] | None:
    """A spread as {min, median, max, trials}; None stays None."""
    if value is None:
        return None
    return {"min": value.minimum, "median": value.median, "max": value.maximum, "trials": value.trials}


def cell_json(cell: CellBehaviour) -> dict[str, Any]:
    """One cell's behaviour as JSON-able data."""
    return {"key": cell.key, "variant": cell.variant, "case_id": cell.case_id, "trials": cell.trials,
            "metrics": {name: spread_json(s) for name, s in cell.metrics.items()},
            "duration_seconds": spread_json(cell.durations), "calls_by_tool": cell.calls_by_tool,
            "statuses": cell.statuses, "status_shares": {s: cell.share(s) for s in STATUSES}}


def behaviour_json(behaviour: RunBehaviour) -> dict[str, Any]:
    """The report document's "behaviour" key: every cell's spreads, and the totals per variant and of the run."""
    return {"cells": [cell_json(c) for c in behaviour.cells],
            "variants": {name: asdict(t) for name, t in behaviour.variants.items()},
            "totals": asdict(behaviour.run)}


def count(value: float | None) -> str:
    """A count or a median of counts for a person: 3, 2.5, or a dash when unknown."""
    if value is None:
        return "—"
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def tokens(value: float | None) -> str:
    """A token count, short: 950, 12.3k, 4.56M, or a dash when unknown."""
    if value is None:
        return "—"
    if value < 10_000:
        return count(value)
    return f"{value / 1000:.1f}k" if value < 1_000_000 else f"{value / 1_000_000:.2f}M"


def dollars(value: float | None) -> str:
    """A cost in US dollars: $0.0125, $3.40, or a dash when unknown."""
    if value is None:
        return "—"
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


def median(value: Spread | None, show: Any = count) -> str:
    """A spread's median as the terminal shows it."""
    return "—" if value is None else str(show(value.median))


def records_text(statuses: dict[str, int]) -> str:
    """How many trials had each record status: "3 parsed", "2 parsed, 1 partial", or a dash for none."""
    parts = [f"{n} {status}" for status, n in statuses.items() if n]
    return ", ".join(parts) or "—"


def _cost_total(total: Totals) -> str:
    if total.cost_usd is None:
        return "—"
    return dollars(total.cost_usd) + ("" if total.cost_trials == total.trials else
                                      f" ({total.cost_trials} of {total.trials})")


def _row(table: Table, *cells: str, end_section: bool = False) -> None:
    table.add_row(*(Text(c) for c in cells), end_section=end_section)  # Text: names are never read as markup


COLUMNS = ("variant", "case", "records", "time", "model calls", "tool calls", "shell", "tokens", "cost")
"""The terminal's behaviour table."""


def behaviour_table(behaviour: RunBehaviour) -> Table:
    """Per variant, one line per case with the medians over its non-error trials, then the variant's totals."""
    table = Table(box=box.SIMPLE, pad_edge=False)
    for column in COLUMNS:
        table.add_column(column, justify="left" if column in ("variant", "case", "records") else "right",
                         no_wrap=column != "case", min_width=len(column), max_width=40 if column == "case" else None)
    for name, total in behaviour.variants.items():
        for cell in (c for c in behaviour.cells if c.variant == name):
            m = cell.metrics
            _row(table, name, cell.case_id, records_text(cell.statuses) if cell.trials else "no scored trial", median(cell.durations, seconds),
                 median(m["llm_calls"]), median(m["tool_calls"]), median(m["shell_commands"]),
                 median(m["total_tokens"], tokens), median(m["cost_usd"], dollars))
        _row(table, name, "total", f"{total.records} of {total.trials}", seconds(total.duration_seconds) or "—",
             count(total.llm_calls), count(total.tool_calls), "", tokens(total.total_tokens), _cost_total(total),
             end_section=True)
    return table


def _known(value: float | None, what: str) -> str:
    return f"{what} unknown" if value is None else f"{count(value)} {what}"


def totals_line(total: Totals) -> str:
    """The run's totals in one line."""
    buckets = ", ".join(f"{bucket.replace('_', ' ')} {tokens(n)}" for bucket, n in total.tokens.items()
                        if n is not None)
    token_text = "tokens unknown" if total.total_tokens is None else f"{tokens(total.total_tokens)} tokens ({buckets})"
    cost = "cost unknown" if total.cost_usd is None else f"cost {dollars(total.cost_usd)}"
    return (f"run total: {total.trials} trial(s), {seconds(total.duration_seconds) or 'time unknown'}, "
            f"{_known(total.llm_calls, 'model calls')}, {_known(total.tool_calls, 'tool calls')}, {token_text}, "
            f"{cost} ({total.cost_trials} of {total.trials} trials had a cost)")


def checks_table(cells: tuple[CellChecks, ...]) -> Table:
    """Per variant::case with a check, how many of its trials deviated from the trajectory or broke max_turns."""
    table = Table(box=box.SIMPLE, pad_edge=False)
    for column in ("variant", "case", "trajectory", "max_turns"):
        table.add_column(column, no_wrap=column != "case", max_width=40 if column == "case" else None)
    for cell in cells:
        _row(table, cell.variant, cell.case_id, *cell_lines(cell))
    return table
