"""Behaviour metrics of a trial from its record, and their spread over trials."""

from __future__ import annotations

import json

from runner.behaviour.metrics import COUNTED, TIMED, spread, trial_metrics
from runner.behaviour.parse import parse


def test_metrics_of_a_codex_stream() -> None:
    commands = [
        "bash -lc 'rg -n add src'",
        "bash -lc 'cd src && PYTHONPATH=. python -m pytest -q | tail -5'",
        "bash -lc 'rg -n add src'",
        "bash -lc \"sed -i 's/-/+/' src/calc.py\"",
        "bash -lc 'curl -s https://pypi.org/simple/ > /dev/null; pip install attrs'",
    ]
    events = [{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"}]
    for number, command in enumerate(commands):
        events.append({"type": "item.completed", "item": {"id": f"c{number}", "type": "command_execution",
                                                           "command": command, "exit_code": 0,
                                                           "status": "completed"}})
        if number == 2:
            events.append({"type": "item.completed", "item": {"id": "m", "type": "agent_message", "text": "hm"}})
    events += [{"type": "item.completed", "item": {"id": "f", "type": "file_change", "changes": [],
                                                    "status": "completed"}},
               {"type": "item.completed", "item": {"id": "w", "type": "web_search", "query": "x"}},
               {"type": "turn.completed", "usage": {"input_tokens": 1000, "cached_input_tokens": 600,
                                                    "output_tokens": 40}}]
    metrics = trial_metrics(parse("".join(json.dumps(e) + "\n" for e in events)))
    assert metrics.values == {
        "shell_commands": 5, "env_assignments": 1, "chain_segments": 8, "max_chain_segments": 3,
        "network_commands": 1, "web_fetches": 0, "web_searches": 1, "shell_edits": 1, "tool_edits": 1,
        "repeated_searches": 1, "longest_tool_streak": 4, "tool_calls": 7, "llm_calls": None,
        "input_tokens": 1000, "output_tokens": 40, "total_tokens": 1040, "longest_turn_seconds": None,
        "cost_usd": None}
    assert metrics.calls_by_tool == {"command_execution": 5, "file_change": 1, "web_search": 1}


def test_an_unparsed_transcript_has_no_metric_at_all() -> None:
    metrics = trial_metrics(parse("not json\n", "codex"))
    assert set(metrics.values) == {*COUNTED, *TIMED} and set(metrics.values.values()) == {None}
    assert metrics.calls_by_tool == {}


def test_spread_ignores_unknown_values() -> None:
    s = spread([3, None, 1, 10])
    assert s is not None and (s.minimum, s.median, s.maximum, s.trials) == (1, 3, 10, 3)
    assert spread([None, None]) is None
