"""Behaviour over a run: per variant::case the spread of every metric over its non-error trials, and the totals
per variant and of the run; a figure no trial knew stays None."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.behaviour.aggregate import BUCKETS, METRICS, run_behaviour
from runner.behaviour.metrics import Spread
from runner.runs.load import load_run
from runner.trial.plan import with_transcript_formats
from tests.runner.report.behaviourkit import behaviour_run
from tests.testing.trialkit import Bench, agent, variants


def test_real_trials_spread_and_total_what_their_streams_say(calc_fast: Bench) -> None:
    run = calc_fast.run(trials=2, variants=with_transcript_formats(
        variants(claude=agent("stream", "claude"), codex=agent("stream", "codex"), plain=agent("fix"),
                 crash=agent("crash")), ("plain=none",)))
    behaviour = run_behaviour(load_run(run.directory))
    cells = {c.variant: c for c in behaviour.cells}
    claude = cells["claude"]
    assert claude.key == "claude::calc-add" and claude.trials == 2
    assert claude.metrics["tool_calls"] == Spread(2, 2, 2, 2) and claude.metrics["llm_calls"] == Spread(2, 2, 2, 2)
    assert claude.metrics["total_tokens"] == Spread(278, 278, 278, 2)
    assert claude.metrics["cost_usd"] == Spread(0.0125, 0.0125, 0.0125, 2)
    assert claude.metrics["shell_commands"] == Spread(1, 1, 1, 2) and claude.metrics["longest_turn_seconds"] is None
    assert claude.calls_by_tool == {"Bash": 2, "Edit": 2}
    assert claude.statuses == {"parsed": 2, "partial": 0, "unparsed": 0, "none": 0, "absent": 0}
    assert claude.share("parsed") == 1.0
    assert cells["codex"].metrics["llm_calls"] is None and cells["codex"].metrics["cost_usd"] is None
    assert cells["codex"].metrics["total_tokens"] == Spread(1280, 1280, 1280, 2)
    plain = cells["plain"]
    assert plain.statuses["none"] == 2 and plain.share("none") == 1.0
    assert all(plain.metrics[name] is None for name in METRICS)  # plain text: unknown, never 0
    crash = cells["crash"]  # both trials ended in error: nothing to spread, and no share to give
    assert crash.trials == 0 and crash.durations is None and crash.share("parsed") is None
    assert all(s is None for s in crash.metrics.values())

    totals = behaviour.variants["claude"]
    assert (totals.trials, totals.records, totals.llm_calls, totals.tool_calls) == (2, 2, 4, 4)
    assert totals.tokens == {"input": 26, "cache_read": 420, "cache_write": 10, "output": 100, "reasoning": None}
    assert totals.total_tokens == 556 and totals.cost_usd == pytest.approx(0.025) and totals.cost_trials == 2
    codex = behaviour.variants["codex"]
    assert codex.llm_calls is None and codex.cost_usd is None and codex.cost_trials == 0
    assert codex.tokens == {"input": 400, "cache_read": 2000, "cache_write": None, "output": 160, "reasoning": None}
    plain_totals = behaviour.variants["plain"]
    assert plain_totals.tool_calls is None and plain_totals.total_tokens is None and plain_totals.records == 0
    assert behaviour.variants["crash"].trials == 2  # error trials count in the totals
    whole = behaviour.run
    assert (whole.trials, whole.records, whole.llm_calls, whole.tool_calls) == (8, 4, 4, 8)
    assert whole.total_tokens == 556 + 2560 and whole.cost_trials == 2
    assert whole.duration_seconds == pytest.approx(sum(t.durations.total or 0 for t in run.trials))


def test_spreads_skip_error_trials_and_totals_keep_them(tmp_path: Path) -> None:
    behaviour = run_behaviour(load_run(behaviour_run(tmp_path / "run")))
    agent_cell, old_cell = behaviour.cells
    assert agent_cell.trials == 3  # the error trial's 7 commands are in no spread
    assert agent_cell.metrics["tool_calls"] == Spread(1, 2, 4, 3)
    assert agent_cell.metrics["network_commands"] == Spread(0, 0, 1, 3)
    assert agent_cell.metrics["shell_edits"] == Spread(0, 0, 1, 3)  # the redirection to notes.txt
    assert agent_cell.metrics["total_tokens"] == Spread(1110, 2220, 3330, 2)  # one trial said nothing of tokens
    assert agent_cell.metrics["cost_usd"] == Spread(0.01, 0.02, 0.03, 2)
    assert agent_cell.metrics["llm_calls"] is None  # no trial's transcript counted model calls
    assert agent_cell.durations == Spread(10.0, 20.0, 30.0, 3)
    assert agent_cell.calls_by_tool == {"bash": 7}
    totals = behaviour.variants["agent"]
    assert (totals.trials, totals.records, totals.tool_calls, totals.duration_seconds) == (4, 4, 14, 160.0)
    assert totals.tokens == {"input": 405, "cache_read": 4000, "cache_write": None, "output": 41, "reasoning": None}
    assert totals.total_tokens == 4446 and totals.cost_usd == pytest.approx(0.54) and totals.cost_trials == 3
    assert old_cell.statuses["absent"] == 4 and all(s is None for s in old_cell.metrics.values())
    old = behaviour.variants["old"]
    assert (old.records, old.tool_calls, old.llm_calls, old.cost_usd, old.duration_seconds) == (0, None, None,
                                                                                                 None, None)
    assert old.tokens == dict.fromkeys(BUCKETS) and old.total_tokens is None
    assert behaviour.recorded and behaviour.run.tool_calls == 14 and behaviour.run.trials == 8
