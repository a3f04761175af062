"""A trial's behaviour checks as the reports show them, and per variant::case how many trials broke them.

The trajectory check is result.json's ``trajectory`` field, written when the trial was judged. The max_turns
check is not a field of result.json (a breach only shows in the reason, and not at all on an error trial), so it
is decided again from the trial's behaviour.json (whose digest loading checked) by the very function that judged
the trial (``runner.behaviour.trajectory.budget_problem``), against the max_turns the run recorded for the case
when it started. A trial whose case has neither check, or that has no behaviour record, has no checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from runner.behaviour.aggregate import number
from runner.behaviour.trajectory import budget_problem, turns_used
from runner.behaviour.trial import AGENT_MODES
from runner.runs.behaviour_record import Behaviour, Status, read_behaviour
from runner.runs.manifest import CaseMeta
from runner.runs.result import TrialResult, trial_path

TurnsOutcome = Literal["ok", "over_budget", "turns_unreported"]
SHOWN = 5
"""Deviations of one trial the terminal lists; --json and --html list every one result.json keeps."""


@dataclass(frozen=True)
class DeviationRow:
    """One deviation of a trial's trajectory check, as result.json keeps it."""

    kind: str
    """missing_step, unexpected_call, extra_call, forbidden_tool, too_many_calls, unreadable or incomplete."""
    message: str
    """One line for a person."""
    step: int | None
    """The 1-based step it concerns."""
    call: int | None
    """The 1-based tool call it concerns."""


@dataclass(frozen=True)
class TrajectoryCheck:
    """A trial's trajectory check."""

    passed: bool
    """No deviation."""
    deviations: tuple[DeviationRow, ...]
    """The deviations result.json lists, in the order found."""
    more: int
    """Deviations found beyond those listed."""

    @property
    def forbidden(self) -> tuple[str, ...]:
        """The listed forbidden tool calls."""
        return tuple(d.message for d in self.deviations if d.kind == "forbidden_tool")

    @property
    def ceilings(self) -> tuple[str, ...]:
        """The listed per-tool ceilings exceeded."""
        return tuple(d.message for d in self.deviations if d.kind == "too_many_calls")

    def summary(self) -> str:
        """``ok``, or ``2 deviations (1 forbidden tool call, 1 ceiling exceeded)``: the kinds counted among the
        listed deviations."""
        if self.passed:
            return "ok"
        total = len(self.deviations) + self.more
        parts = [f"{len(self.forbidden)} forbidden tool call{'s' if len(self.forbidden) != 1 else ''}"
                 if self.forbidden else "",
                 f"{len(self.ceilings)} ceiling{'s' if len(self.ceilings) != 1 else ''} exceeded"
                 if self.ceilings else ""]
        shown = ", ".join(p for p in parts if p)
        if self.more:
            shown += f"{'; ' if shown else ''}{self.more} beyond the {len(self.deviations)} listed"
        return f"{total} deviation{'s' if total != 1 else ''}" + (f" ({shown})" if shown else "")


@dataclass(frozen=True)
class TurnsCheck:
    """A trial's max_turns check."""

    budget: int
    """The case's max_turns when the run started."""
    used: int | None
    """The turns the budget counts; None when the transcript reports none."""
    counted: str
    """What used counts: model calls, agent turns, or turns (when unknown)."""
    outcome: TurnsOutcome
    """ok, over_budget or turns_unreported."""
    detail: str
    """Why, in words: ``3 model calls, max_turns 2``."""

    def summary(self) -> str:
        """``over_budget (3 model calls, max_turns 2)``."""
        return f"{self.outcome} ({self.detail})"


@dataclass(frozen=True)
class TrialChecks:
    """One trial's behaviour checks."""

    variant: str
    """The variant."""
    case_id: str
    """The case."""
    trial: int
    """The 1-based trial number."""
    outcome: str
    """The trial's outcome."""
    trajectory: TrajectoryCheck | None
    """The trajectory check; None when the case had no trajectory."""
    turns: TurnsCheck | None
    """The max_turns check; None when the case had no max_turns."""

    @property
    def key(self) -> str:
        """variant::case."""
        return f"{self.variant}::{self.case_id}"

    @property
    def deviated(self) -> bool:
        """The trajectory check found a deviation."""
        return self.trajectory is not None and not self.trajectory.passed

    def summary(self) -> str:
        """``trajectory ok; max_turns over_budget (3 model calls, max_turns 2)``: the checks the case has."""
        parts = [f"trajectory {self.trajectory.summary()}" if self.trajectory is not None else "",
                 f"max_turns {self.turns.summary()}" if self.turns is not None else ""]
        return "; ".join(p for p in parts if p)


def _int(value: object) -> int | None:
    n = number(value)
    return None if n is None else int(n)


def trajectory_check(data: Mapping[str, Any] | None) -> TrajectoryCheck | None:
    """result.json's ``trajectory`` field as a check; None when the trial has none."""
    if not isinstance(data, Mapping):
        return None
    found = data.get("deviations")
    rows = tuple(DeviationRow(str(d.get("kind")), str(d.get("message")), _int(d.get("step")), _int(d.get("call")))
                 for d in (found if isinstance(found, list) else ()) if isinstance(d, dict))
    return TrajectoryCheck(data.get("passed") is True, rows, _int(data.get("more")) or 0)


def _record(document: Mapping[str, Any]) -> Behaviour:
    """The fields of behaviour.json's record the turn budget reads."""
    record = document.get("record")
    record = record if isinstance(record, dict) else {}
    status = record.get("status") if record.get("status") in ("parsed", "partial", "unparsed", "none") \
        else "unparsed"
    return Behaviour(format=str(record.get("format") or "none"), status=cast(Status, status),
                     reason=str(record.get("reason") or ""), llm_calls=_int(record.get("llm_calls")),
                     agent_turns=_int(record.get("agent_turns")))


def turns_check(max_turns: int, document: Mapping[str, Any], result: TrialResult) -> TurnsCheck:
    """The max_turns check of a trial from its behaviour.json, decided as the trial was."""
    record = _record(document)
    used, counted = turns_used(record)
    problem = budget_problem(max_turns, record, complete="transcript_truncated" not in result.flags)
    if problem is None:
        return TurnsCheck(max_turns, used, counted, "ok", f"{used} {counted}, max_turns {max_turns}")
    outcome, _, detail = problem.partition(": ")
    return TurnsCheck(max_turns, used, counted, cast(TurnsOutcome, outcome), detail)


def trial_checks(folder: Path, result: TrialResult, meta: CaseMeta | None) -> TrialChecks | None:
    """One trial's checks from its result.json and behaviour.json in folder; None when it has none."""
    trajectory = trajectory_check(result.trajectory)
    turns = None
    if meta is not None and meta.max_turns is not None and result.mode in AGENT_MODES and result.behaviour:
        document = read_behaviour(folder)
        if document is not None:
            turns = turns_check(meta.max_turns, document, result)
    if trajectory is None and turns is None:
        return None
    return TrialChecks(result.variant, result.case_id, result.trial, result.outcome, trajectory, turns)


def run_checks(directory: Path, trials: Sequence[TrialResult], cases_meta: Mapping[str, CaseMeta]) -> \
        tuple[TrialChecks, ...]:
    """The checks of every trial that has any, in the trials' order."""
    turns = {case_id for case_id, meta in cases_meta.items() if meta.max_turns is not None}
    found = (trial_checks(trial_path(directory, t.variant, t.case_id, t.trial), t, cases_meta.get(t.case_id))
             for t in trials if t.trajectory is not None or t.case_id in turns)  # the others have no check
    return tuple(c for c in found if c is not None)


@dataclass(frozen=True)
class CellChecks:
    """One variant::case: how many of its checked trials broke each check."""

    variant: str
    """The variant."""
    case_id: str
    """The case."""
    trajectory: int
    """Trials with a trajectory check (0: the case has no trajectory)."""
    deviated: int
    """Of those, trials with a deviation."""
    forbidden: int
    """Of those, trials that called a forbidden tool."""
    ceilings: int
    """Of those, trials over a per-tool ceiling."""
    turns: int
    """Trials with a max_turns check (0: the case has no max_turns)."""
    over_budget: int
    """Of those, trials over the budget."""
    turns_unreported: int
    """Of those, trials whose transcript could not say."""

    @property
    def key(self) -> str:
        """variant::case."""
        return f"{self.variant}::{self.case_id}"


def cell_checks(checks: Sequence[TrialChecks]) -> tuple[CellChecks, ...]:
    """Per variant::case with a checked trial (in first-seen order), the counts of its trials."""
    cells: dict[tuple[str, str], list[TrialChecks]] = {}
    for c in checks:
        cells.setdefault((c.variant, c.case_id), []).append(c)
    out = []
    for (variant, case_id), group in cells.items():
        paths = [c.trajectory for c in group if c.trajectory is not None]
        turns = [c.turns for c in group if c.turns is not None]
        out.append(CellChecks(variant, case_id, len(paths), sum(1 for t in paths if not t.passed),
                              sum(1 for t in paths if t.forbidden), sum(1 for t in paths if t.ceilings),
                              len(turns), sum(1 for t in turns if t.outcome == "over_budget"),
                              sum(1 for t in turns if t.outcome == "turns_unreported")))
    return tuple(out)


def trial_checks_json(checks: TrialChecks) -> dict[str, Any]:
    """One trial's checks as JSON-able data."""
    path, turns = checks.trajectory, checks.turns
    return {"variant": checks.variant, "case_id": checks.case_id, "trial": checks.trial, "outcome": checks.outcome,
            "deviated": checks.deviated,
            "trajectory": None if path is None else {
                "passed": path.passed, "more": path.more, "forbidden": list(path.forbidden),
                "ceilings": list(path.ceilings),
                "deviations": [{"kind": d.kind, "message": d.message, "step": d.step, "call": d.call}
                               for d in path.deviations]},
            "max_turns": None if turns is None else {
                "budget": turns.budget, "used": turns.used, "counted": turns.counted, "verdict": turns.outcome,
                "detail": turns.detail}}


def cell_checks_json(cell: CellChecks) -> dict[str, Any]:
    """One cell's counts as JSON-able data (a check the case does not have is null)."""
    return {"key": cell.key, "variant": cell.variant, "case_id": cell.case_id,
            "trajectory": None if not cell.trajectory else {
                "trials": cell.trajectory, "deviated": cell.deviated, "forbidden_tool": cell.forbidden,
                "too_many_calls": cell.ceilings},
            "max_turns": None if not cell.turns else {
                "trials": cell.turns, "over_budget": cell.over_budget, "turns_unreported": cell.turns_unreported}}


def checks_json(checks: Sequence[TrialChecks]) -> dict[str, Any]:
    """The report document's "checks" key: per cell the counts, and every checked trial's checks."""
    return {"cells": [cell_checks_json(c) for c in cell_checks(checks)],
            "trials": [trial_checks_json(c) for c in checks]}


def cell_lines(cell: CellChecks) -> tuple[str, str]:
    """A cell's trajectory and max_turns counts in words, or a dash for a check the case does not have."""
    kinds = ", ".join(part for part in (f"{cell.forbidden} called a forbidden tool" if cell.forbidden else "",
                                        f"{cell.ceilings} over a ceiling" if cell.ceilings else "") if part)
    trajectory = "—" if not cell.trajectory else (f"{cell.deviated} of {cell.trajectory} deviated"
                                                  + (f" ({kinds})" if kinds else ""))
    turns = "—" if not cell.turns else (f"{cell.over_budget} of {cell.turns} over budget"
                                        + (f", {cell.turns_unreported} unreported" if cell.turns_unreported
                                           else ""))
    return trajectory, turns


def trial_lines(checks: TrialChecks, shown: int = SHOWN) -> list[str]:
    """The terminal's lines for one trial: its checks, then its deviations (``shown`` of them) indented."""
    lines = [f"{checks.key} #{checks.trial} ({checks.outcome}): {checks.summary()}"]
    path = checks.trajectory
    if path is not None:
        lines += [f"  {d.kind}: {d.message}" for d in path.deviations[:shown]]
        left = len(path.deviations) - shown + path.more
        if left > 0:
            listed = "every one" if not path.more else f"the first {len(path.deviations)}, as result.json keeps them"
            lines.append(f"  and {left} more deviation{'s' if left != 1 else ''} (--json and --html list {listed})")
    return lines
