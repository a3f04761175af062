"""A trial whose agent never reached its model is an error, decided from the agent's stdout alone: its own error or
retry event, and no model call answered (real dead-port output of Codex, Claude Code and Gemini CLI)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from runner.behaviour.parse import parse
from runner.behaviour.trial import record_behaviour
from runner.runs.result import TrialResult

CAPTURES = Path(__file__).resolve().parents[2] / "agents" / "captures"
UNREACHED = {
    "codex": "Reconnecting... waiting for network (Connection failed: error sending request)",
    "claude": "api_retry attempt 3: error unknown, HTTP status None",
    "gemini": "[API Error: exception TypeError: fetch failed sending request]",
    "opencode": "APIError: Cannot connect to API: Unable to connect. Is the computer able to access the url?",
}


def failed_trial() -> TrialResult:
    return TrialResult(case_id="c", variant="v", trial=1, outcome="fail", reason="1 fail-to-pass test(s) failed",
                       case_fingerprint="0" * 64, started="2026-12-04T00:00:00+00:00",
                       mode="agent", grader_outcome="fail")


@pytest.mark.parametrize("cli", list(UNREACHED))
def test_a_dead_provider_makes_the_trial_an_error_with_the_agents_own_event(cli: str, tmp_path: Path) -> None:
    (tmp_path / "transcript.log").write_text((CAPTURES / cli / "unreached.jsonl").read_text())
    result = record_behaviour(tmp_path, failed_trial())
    assert result.outcome == "error"
    assert result.reason == (f"the agent never reached its model: {UNREACHED[cli]} "
                             "(graded fail: 1 fail-to-pass test(s) failed)")
    assert json.loads((tmp_path / "behaviour.json").read_text())["record"]["unreached"] == UNREACHED[cli]


@pytest.mark.parametrize("cli", list(UNREACHED))
def test_an_agent_that_reached_its_model_cannot_print_its_way_to_an_error(cli: str, tmp_path: Path) -> None:
    """The real run's stream, with the dead-port events appended (as a command writing to the CLI's stdout could):
    the stream shows answered model calls, so the fail stays a fail."""
    stream = (CAPTURES / cli / "stdout.jsonl").read_text() + (CAPTURES / cli / "unreached.jsonl").read_text()
    assert parse(stream).unreached is None
    (tmp_path / "transcript.log").write_text(stream)
    assert record_behaviour(tmp_path, failed_trial()).outcome == "fail"


def test_a_pass_stays_a_pass_and_a_trajectory_file_never_says_unreached(tmp_path: Path) -> None:
    (tmp_path / "transcript.log").write_text((CAPTURES / "codex" / "unreached.jsonl").read_text())
    assert record_behaviour(tmp_path, replace(failed_trial(), outcome="pass")).outcome == "pass"
    # the same events in a file the agent's commands could write are no evidence
    (tmp_path / "trajectory.json").write_text((CAPTURES / "claude" / "unreached.jsonl").read_text())
    assert record_behaviour(tmp_path, failed_trial()).outcome == "fail"


def test_mini_says_so_in_its_trajectory_only_while_its_stdout_shows_no_step(tmp_path: Path) -> None:
    """mini's trajectory is a file its commands could rewrite: it counts only when stdout, which prints every model
    response as it arrives, shows none."""
    (tmp_path / "trajectory.json").write_text((CAPTURES / "mini" / "unreached.traj.json").read_text())
    (tmp_path / "transcript.log").write_text((CAPTURES / "mini" / "unreached.stdout.txt").read_text())
    result = record_behaviour(tmp_path, failed_trial())
    assert (result.outcome, result.reason) == ("error", ("the agent never reached its model: litellm."
                                               "InternalServerError: InternalServerError: OpenAIException - "
                                               "Connection error. (graded fail: 1 fail-to-pass test(s) failed)"))
    (tmp_path / "transcript.log").write_text((CAPTURES / "mini" / "stdout.txt").read_text())
    assert record_behaviour(tmp_path, failed_trial()).outcome == "fail"


def test_aiders_analytics_log_is_its_model_calls_tokens_and_cost() -> None:
    """A real log (the file named twice, so aider sent its request twice): two calls of the scripted usage."""
    record = parse((CAPTURES / "aider" / "analytics.jsonl").read_text())
    assert (record.format, record.status, record.llm_calls, record.model) == ("aider", "parsed", 2,
                                                                              "openai/gpt-4o-mini")
    assert (record.tokens.input, record.tokens.output, record.tokens.cache_read) == (2 * 2313, 2 * 50, None)
    assert record.cost_source == "agent" and record.cost_usd is not None and record.cost_usd > 0


def test_aider_started_requests_and_none_was_answered(tmp_path: Path) -> None:
    (tmp_path / "trajectory.json").write_text((CAPTURES / "aider" / "unreached.analytics.jsonl").read_text())
    (tmp_path / "transcript.log").write_text((CAPTURES / "aider" / "unreached.stdout.txt").read_text())
    result = record_behaviour(tmp_path, failed_trial())
    assert (result.outcome, result.reason) == ("error", ("the agent never reached its model: 1 model request(s) "
                                               "started, none answered (aider's analytics log) (graded fail: 1 "
                                               "fail-to-pass test(s) failed)"))
    # the same log beside a stdout that shows an answered call: a fail
    (tmp_path / "transcript.log").write_text((CAPTURES / "aider" / "stdout.txt").read_text())
    assert record_behaviour(tmp_path, failed_trial()).outcome == "fail"
