"""The behaviour checks as pure functions over records: the fail-closed edges real trials rarely reach (a cut
transcript, an error trial) and the argument matching rules."""

from __future__ import annotations

from dataclasses import replace

from corpus.model import Case, Grader, Step, Trajectory
from runner.behaviour.trajectory import budget_problem, check_trajectory, step_matches, turns_used
from runner.behaviour.trial import judge_behaviour
from runner.runs.behaviour_record import Behaviour, ToolCall
from runner.runs.result import TrialResult

BASH = ToolCall("shell", "Bash", {"command": "bash -lc 'pytest -q'", "timeout": 60}, "pytest -q")
EDIT = ToolCall("edit", "str_replace_editor", {"path": "calc.py", "count": 2})
RECORD = Behaviour("claude", "parsed", llm_calls=3, agent_turns=9, tool_calls=(BASH, EDIT))
CASE = Case("c", "t", "p", "a" * 40, "b" * 40, Grader("true"))
RESULT = TrialResult("c", "v", 1, "pass", "grader passed", "f" * 64, "2026-01-01T00:00:00+00:00",
                     grader_outcome="pass")


def test_arguments_match_by_mode() -> None:
    assert step_matches(Step("bash", {"command": "pytest -q"}), BASH)  # the unwrapped command, any-case name
    assert step_matches(Step("shell", {"command": r"^pytest\b"}, "regex"), BASH)
    assert not step_matches(Step("shell", {"command": r"^bash"}, "regex"), BASH)
    assert step_matches(Step("edit", {"count": 2}, "regex"), EDIT)  # a non-text value compares equal
    assert not step_matches(Step("edit", {"path": "calc.py"}, "exact"), EDIT)
    assert step_matches(Step("edit", {"path": "calc.py", "count": 2}, "exact"), EDIT)
    assert not step_matches(Step("edit", {"missing": None}), EDIT)


def test_turns_are_model_calls_else_agent_turns() -> None:
    assert turns_used(RECORD) == (3, "model calls")
    assert turns_used(replace(RECORD, llm_calls=None)) == (9, "agent turns")
    assert budget_problem(8, replace(RECORD, llm_calls=None)) == "over_budget: 9 agent turns, max_turns 8"
    assert budget_problem(3, RECORD) is None
    assert budget_problem(3, RECORD, complete=False) == (
        "turns_unreported: the transcript was cut at its size limit, so 3 model calls is only a lower bound; "
        "max_turns 3")


def test_a_cut_transcript_cannot_pass_a_trajectory() -> None:
    trajectory = Trajectory((Step("shell"),))
    assert check_trajectory(trajectory, RECORD).passed
    cut = check_trajectory(trajectory, RECORD, complete=False)
    assert [d.kind for d in cut.deviations] == ["incomplete"]
    # a deviation already seen is reported as itself
    assert [d.kind for d in check_trajectory(Trajectory(forbidden_tools=("edit",)), RECORD,
                                             complete=False).deviations] == ["forbidden_tool"]


def test_error_trials_fail_on_a_breach_and_stay_errors_when_nothing_can_be_said() -> None:
    errored = replace(RESULT, outcome="error", reason="agent exited 1", grader_outcome=None)
    over = judge_behaviour(replace(CASE, max_turns=2), RECORD, errored)
    assert over.outcome == "fail"
    assert over.reason == "over_budget: 3 model calls, max_turns 2 (graded error: agent exited 1)"
    plain = Behaviour("none", "none", "plain text: no machine-readable transcript")
    case = replace(CASE, max_turns=2, trajectory=Trajectory(forbidden_tools=("web_fetch",)))
    kept = judge_behaviour(case, plain, errored)
    assert (kept.outcome, kept.reason) == ("error", "agent exited 1")
    assert kept.trajectory is not None and kept.trajectory["deviations"][0]["kind"] == "unreadable"
    failed = judge_behaviour(case, plain, RESULT)
    assert failed.outcome == "fail" and failed.reason.startswith("turns_unreported: ")
    assert failed.grader_outcome == "pass"


def test_result_json_lists_fifty_deviations_and_counts_the_rest() -> None:
    record = replace(RECORD, tool_calls=(EDIT,) * 60)
    check = check_trajectory(Trajectory(forbidden_tools=("edit",)), record).to_json()
    assert len(check["deviations"]) == 50 and check["more"] == 10 and check["passed"] is False


def test_a_trajectory_without_steps_checks_only_its_tools() -> None:
    assert check_trajectory(Trajectory(mode="strict", max_calls={"shell": 1}), RECORD).passed
    over = check_trajectory(Trajectory(mode="strict", max_calls={"shell": 0}), RECORD)
    assert [d.message for d in over.deviations] == ["1 calls of shell, at most 0"]
