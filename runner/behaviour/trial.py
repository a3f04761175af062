"""A trial's behaviour: its record read from the trajectory file or transcript, priced, judged against the case's
behaviour checks, and written as behaviour.json (``runner.runs.behaviour_record``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from corpus.model import Case
from runner.behaviour.formats.registry import REGISTRY
from runner.behaviour.metrics import trial_metrics
from runner.behaviour.parse import FORMATS, parse
from runner.behaviour.prices import PriceTable, priced
from runner.behaviour.sources import SESSION_FILE, TRAJECTORY_FILE, TRANSCRIPT_FILE, source_text
from runner.behaviour.trajectory import budget_problem, check_trajectory
from runner.runs.behaviour_record import Behaviour, write_behaviour
from runner.runs.result import TrialResult

AGENT_MODES = ("agent", "regrade")
"""Modes whose transcript is an agent's (a regrade copies its source trial's)."""


def read_record(folder: Path, result: TrialResult, transcript_format: str = "auto",
                prices: PriceTable | None = None, model: str | None = None) -> Behaviour:
    """The behaviour record of folder's trajectory.json when the agent left one, else of its transcript.log
    (partial when the transcript was cut at its size limit), completed from the session file beside it (a
    preset's, its format's ``session`` reader), priced from the table when the agent reported no cost. A record
    that names no model gets model, the one the preset was given (opencode's stream names none)."""
    if transcript_format not in FORMATS:
        raise ValueError(f"unknown transcript format {transcript_format!r}")
    record = parse(source_text(folder), transcript_format)
    from_file = (folder / TRAJECTORY_FILE).is_file()
    reader = next((known for known in REGISTRY if known.name == record.format), None)
    if from_file and record.unreached is not None:
        # a file the agent's commands could rewrite says the model was unreached only when stdout shows no answer
        stdout = folder / TRANSCRIPT_FILE
        quiet = reader is not None and reader.answered is not None and stdout.is_file() and not reader.answered(
            stdout.read_text(encoding="utf-8", errors="replace"))
        record = record if quiet else replace(record, unreached=None)
    session = folder / SESSION_FILE
    if reader is not None and reader.session is not None and session.is_file() and record.status != "unparsed":
        record = reader.session(record, session.read_text(encoding="utf-8", errors="replace"))
    if "transcript_truncated" in result.flags and record.status == "parsed" and not from_file:
        record = replace(record, status="partial", reason="the transcript was cut at its size limit")
    if record.model is None and model is not None and record.status != "unparsed":
        record = replace(record, model=model)
    return priced(record, prices) if prices else record


def judge_behaviour(case: Case, record: Behaviour, result: TrialResult) -> TrialResult:
    """The result with the case's behaviour checks applied: max_turns, then trajectory (its verdict in the
    ``trajectory`` field). A broken check makes the trial a fail, its reason first; the grader's outcome stays in
    grader_outcome. A breach the record shows fails even an error trial (an agent cannot turn its own breach
    into an error); a record that cannot say (no turn count, an unreadable or cut transcript) fails a pass or a
    fail, and leaves an error an error."""
    complete = "transcript_truncated" not in result.flags
    problems: list[tuple[str, bool]] = []
    trajectory = None
    if case.max_turns is not None:
        problem = budget_problem(case.max_turns, record, complete=complete)
        if problem is not None:
            problems.append((problem, problem.startswith("over_budget")))
    if case.trajectory is not None:
        check = check_trajectory(case.trajectory, record, complete=complete)
        trajectory = check.to_json()
        if not check.passed:
            first = check.deviations[0]
            problems.append((f"trajectory: {first.kind}: {first.message}",
                             first.kind not in ("unreadable", "incomplete")))
    result = replace(result, trajectory=trajectory)
    deciding = [text for text, shown in problems if shown or result.outcome != "error"]
    if not deciding:
        return result
    return replace(result, outcome="fail", reason=f"{deciding[0]} (graded {result.outcome}: {result.reason})")


def unreached_error(record: Behaviour, result: TrialResult) -> TrialResult:
    """A trial that is not a pass and whose agent never reached its model is an error, its reason the agent's own
    error or retry event. The record says so from the agent's stdout stream, or from a trajectory file only when
    stdout shows no model call answered (``read_record``), and only when it shows no model call answered: a
    model that answered once has its answer on stdout before any command it asked for ran, so no agent can turn
    its fail into an error this way."""
    if record.unreached is None or result.outcome == "pass":
        return result
    return replace(result, outcome="error", reason=f"the agent never reached its model: {record.unreached[:300]} "
                                                  f"(graded {result.outcome}: {result.reason})")


def record_behaviour(folder: Path, result: TrialResult, transcript_format: str = "auto",
                     case: Case | None = None, prices: PriceTable | None = None,
                     model: str | None = None) -> TrialResult:
    """Read folder's trajectory.json or transcript.log, decide the case's behaviour checks (when a case is given),
    write behaviour.json, and return the result with its digest. Modes without an agent: unchanged."""
    if result.mode not in AGENT_MODES:
        return result
    record = read_record(folder, result, transcript_format, prices, model)
    result = unreached_error(record, result)
    if case is not None:
        result = judge_behaviour(case, record, result)
    return write_behaviour(folder, result, record, trial_metrics(record))
