"""Behaviour over a run: per variant::case the spread of every metric over its non-error trials, and per variant
and per run the totals of what the trials spent (duration, model and tool calls, tokens by bucket, cost).

Everything is read from each trial's behaviour.json (whose digest `load_run` has checked) and result.json. A
figure no trial knew stays None, never 0.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from runner.behaviour.metrics import COUNTED, TIMED, Spread, spread
from runner.runs.behaviour_record import read_behaviour
from runner.runs.load import LoadedRun
from runner.runs.result import TrialResult

METRICS = (*COUNTED, *TIMED)
"""Every metric a cell spreads, in report order."""
STATUSES = ("parsed", "partial", "unparsed", "none", "absent")
"""A trial's record status; absent: the trial has no behaviour.json (no agent ran, or a result written before
trials recorded behaviour)."""
BUCKETS = ("input", "cache_read", "cache_write", "output", "reasoning")
"""The token buckets of a record, in report order."""


def number(value: object) -> float | None:
    """A JSON value as a number (int or float, never a bool); None otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


@dataclass(frozen=True)
class TrialBehaviour:
    """One trial's behaviour.json as the aggregates read it."""

    result: TrialResult
    """The trial's result.json."""
    status: str
    """The record's status (one of STATUSES)."""
    metrics: dict[str, float | None]
    """Every metric of METRICS; None where the record cannot say (all None when absent)."""
    calls_by_tool: dict[str, int]
    """Tool calls by the agent's own tool name."""
    tokens: dict[str, int | None]
    """Tokens by bucket (BUCKETS); None where the record does not say."""


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def trial_behaviour(run: LoadedRun, result: TrialResult) -> TrialBehaviour:
    """Read one trial's behaviour.json; a trial without one (or with one that is not an object) is absent."""
    data = read_behaviour(os.path.join(run.directory, result.variant, result.case_id, str(result.trial)))
    if data is None:
        return TrialBehaviour(result, "absent", dict.fromkeys(METRICS), {}, dict.fromkeys(BUCKETS))
    record = _dict(data.get("record"))
    status = record.get("status")
    metrics = _dict(data.get("metrics"))
    tokens = _dict(record.get("tokens"))
    calls = {str(name): int(n) for name, value in _dict(data.get("calls_by_tool")).items()
             if (n := number(value)) is not None}
    return TrialBehaviour(result, status if status in STATUSES[:-1] else "unparsed",
                          {name: number(metrics.get(name)) for name in METRICS}, calls,
                          {bucket: None if (n := number(tokens.get(bucket))) is None else int(n)
                           for bucket in BUCKETS})


@dataclass(frozen=True)
class CellBehaviour:
    """One variant::case: the spread of every metric over its non-error trials."""

    variant: str
    """The variant."""
    case_id: str
    """The case."""
    trials: int
    """Non-error trials (what the spreads are over; a metric's Spread.trials says how many had it)."""
    metrics: dict[str, Spread | None]
    """Every metric of METRICS; None when no non-error trial knew it."""
    durations: Spread | None
    """Trial wall time (durations.total) over the non-error trials."""
    calls_by_tool: dict[str, int]
    """Tool calls by the agent's own tool name, summed over the non-error trials."""
    statuses: dict[str, int]
    """How many non-error trials had a record of each status (every key of STATUSES)."""

    @property
    def key(self) -> str:
        """variant::case."""
        return f"{self.variant}::{self.case_id}"

    def share(self, status: str) -> float | None:
        """The share of the non-error trials whose record had that status; None without a non-error trial."""
        return self.statuses[status] / self.trials if self.trials else None


@dataclass(frozen=True)
class Totals:
    """What a set of trials spent, summed over every recorded trial (an error trial's spend is spend too)."""

    trials: int
    """Recorded trials summed over."""
    duration_seconds: float | None
    """Sum of the trials' durations.total; None when no trial recorded one."""
    llm_calls: int | None
    """Model calls; None when no trial's record counted them."""
    tool_calls: int | None
    """Tool calls; None when no trial had a readable record."""
    tokens: dict[str, int | None] = field(default_factory=lambda: dict.fromkeys(BUCKETS))
    """Tokens by bucket (BUCKETS); a bucket is None when no trial's record gave it."""
    total_tokens: int | None = None
    """input + cache_read + cache_write + output summed over the trials that had any; None when none did."""
    cost_usd: float | None = None
    """Cost in US dollars (result.json's cost_usd); None when no trial had one."""
    cost_trials: int = 0
    """Trials that had a cost (the rest are not in cost_usd)."""
    records: int = 0
    """Trials with a readable record (parsed or partial)."""


def _sum(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _int(value: float | None) -> int | None:
    return None if value is None else int(value)


def totals(trials: Sequence[TrialBehaviour]) -> Totals:
    """The totals of a set of trials."""
    costs = [t.result.cost_usd for t in trials if number(t.result.cost_usd) is not None]
    return Totals(
        trials=len(trials),
        duration_seconds=_sum(t.result.durations.total for t in trials),
        llm_calls=_int(_sum(t.metrics["llm_calls"] for t in trials)),
        tool_calls=_int(_sum(t.metrics["tool_calls"] for t in trials)),
        tokens={bucket: _int(_sum(t.tokens[bucket] for t in trials)) for bucket in BUCKETS},
        total_tokens=_int(_sum(t.metrics["total_tokens"] for t in trials)),
        cost_usd=_sum(costs),
        cost_trials=len(costs),
        records=sum(1 for t in trials if t.status in ("parsed", "partial")),
    )


def cell_behaviour(variant: str, case_id: str, trials: Sequence[TrialBehaviour]) -> CellBehaviour:
    """The spreads of one cell over its non-error trials."""
    scored = [t for t in trials if t.result.outcome != "error"]
    calls: Counter[str] = Counter()
    for t in scored:
        calls.update(t.calls_by_tool)
    statuses = Counter(t.status for t in scored)
    return CellBehaviour(variant, case_id, len(scored),
                         {name: spread([t.metrics[name] for t in scored]) for name in METRICS},
                         spread([t.result.durations.total for t in scored]), dict(sorted(calls.items())),
                         {status: statuses[status] for status in STATUSES})


@dataclass(frozen=True)
class RunBehaviour:
    """A run's behaviour: every cell's spreads, every variant's totals and the run's."""

    cells: tuple[CellBehaviour, ...]
    """One per variant::case, in the run's variant then case order."""
    variants: dict[str, Totals]
    """Totals per variant, in the run's variant order."""
    run: Totals
    """Totals over every recorded trial of the run."""
    trials: tuple[TrialBehaviour, ...]
    """Every recorded trial's behaviour, in the run's trial order."""

    @property
    def recorded(self) -> bool:
        """Whether any trial has a behaviour.json."""
        return any(t.status != "absent" for t in self.trials)


def run_behaviour(run: LoadedRun) -> RunBehaviour:
    """Read every recorded trial's behaviour.json and aggregate them per cell, per variant and over the run."""
    trials = tuple(trial_behaviour(run, t) for t in run.trials)
    by_cell: dict[tuple[str, str], list[TrialBehaviour]] = {}
    for t in trials:
        by_cell.setdefault((t.result.variant, t.result.case_id), []).append(t)
    config = run.manifest.config
    cells = tuple(cell_behaviour(v.name, case_id, by_cell.get((v.name, case_id), []))
                  for v in config.variants for case_id in config.cases)
    variants = {v.name: totals([t for t in trials if t.result.variant == v.name]) for v in config.variants}
    return RunBehaviour(cells, variants, totals(trials), trials)
