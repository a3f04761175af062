"""The tuning set and the holdout set of a run side by side: each variant's pass rate on both."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from runner.report.pages import rate as _rate
from runner.runs.aggregate import Aggregate
from runner.runs.holdout import SetRates


def _set_text(total: Aggregate) -> str:
    scored = total.passes + total.fails
    return f"{total.passes}/{scored} {_rate(total.success_rate)}" if scored else "—"


def sets_table(found: tuple[SetRates, ...]) -> Table:
    """Per variant its pass rate on the tuning set and on the holdout set, side by side."""
    table = Table(box=box.SIMPLE, pad_edge=False)
    for column in ("variant", "tuning cases", "tuning", "holdout cases", "holdout", "holdout - tuning"):
        table.add_column(column, justify="left" if column == "variant" else "right", no_wrap=True)
    for rates in found:
        tuning, holdout = rates.tuning.success_rate, rates.holdout.success_rate
        gap = f"{(holdout - tuning) * 100:+.1f} pp" if tuning is not None and holdout is not None else "—"
        table.add_row(Text(rates.variant), str(rates.tuning.cases_scored), _set_text(rates.tuning),
                      str(rates.holdout.cases_scored), _set_text(rates.holdout), gap)
    return table
