"""behaviour.json: every agent trial reads its transcript into a behaviour record beside result.json, whose digest
vouches for it; cost and tokens come from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.errors import UsageError
from runner.runs.behaviour_record import BEHAVIOUR_FILE
from runner.runs.load import load_run
from runner.runs.result import trial_path
from runner.trial.plan import with_trajectory_files, with_transcript_formats
from tests.testing.trialkit import Bench, agent, variants


def test_agent_trials_record_behaviour_and_cost(calc_fast: Bench) -> None:
    run = calc_fast.run(variants=with_transcript_formats(
        variants(claude=agent("stream", "claude"), codex=agent("stream", "codex"), plain=agent("fix"),
                 cut=agent("stream", "claude", "cut")), ("plain=none",)))
    by_variant = {t.variant: t for t in run.trials}
    assert {v: t.outcome for v, t in by_variant.items()} == {"claude": "pass", "codex": "pass", "plain": "pass",
                                                             "cut": "pass"}
    claude = by_variant["claude"]
    assert (claude.cost_usd, claude.tokens) == (0.0125, 278)
    assert claude.behaviour is not None and (claude.behaviour["format"], claude.behaviour["status"]) == (
        "claude", "parsed")
    doc = json.loads((trial_path(run.directory, "claude", claude.case_id, 1) / BEHAVIOUR_FILE).read_text())
    assert doc["record"]["session_id"] == "s-claude" and doc["record"]["llm_calls"] == 2
    assert [c["command"] for c in doc["record"]["tool_calls"]] == ["grep -n add calc.py", None]
    assert doc["metrics"]["shell_commands"] == 1 and doc["metrics"]["tool_edits"] == 1
    codex = by_variant["codex"]
    assert (codex.cost_usd, codex.tokens, codex.behaviour["format"]) == (None, 1280, "codex")  # type: ignore[index]
    plain = by_variant["plain"]
    assert plain.behaviour is not None and plain.behaviour["status"] == "none" and plain.tokens is None
    cut = by_variant["cut"]
    assert cut.behaviour is not None and cut.behaviour["status"] == "partial"
    assert (cut.cost_usd, cut.tokens) == (None, 278)  # the last snapshot of each message; no cost without a result


def test_modes_without_an_agent_have_no_behaviour(calc_fast: Bench) -> None:
    run = calc_fast.run(mode="oracle")
    (trial,) = run.trials
    assert trial.behaviour is None
    assert not (trial_path(run.directory, "oracle", trial.case_id, 1) / BEHAVIOUR_FILE).exists()


def test_a_changed_behaviour_file_makes_the_run_untrusted(calc_fast: Bench) -> None:
    run = calc_fast.run(variants=variants(claude=agent("stream", "claude")))
    (trial,) = run.trials
    path = trial_path(run.directory, "claude", trial.case_id, 1) / BEHAVIOUR_FILE
    data = json.loads(path.read_text())
    data["record"]["cost_usd"] = 0.0
    path.write_text(json.dumps(data))
    with pytest.raises(UsageError, match=r"does not match the digest its result.json recorded; the run cannot be "
                                         "trusted"):
        load_run(run.directory)
    path.unlink()
    with pytest.raises(UsageError, match=r"recorded in result.json but missing"):
        load_run(run.directory)


def test_a_trajectory_file_left_in_the_workspace_is_read_instead_of_the_transcript(calc_fast: Bench) -> None:
    line = '{"tool": "bash", "args": {"command": "rg -n add"}, "exit_code": 0}'
    command = f"printf '%s\\n' '{line}' > .traj.jsonl && {agent('fix')}"
    missing = agent("fix")
    run = calc_fast.run(variants=with_trajectory_files(variants(left=command, gone=missing),
                                                       ("left=.traj.jsonl", "gone=.traj.jsonl")))
    by_variant = {t.variant: t for t in run.trials}
    left = by_variant["left"]
    folder = trial_path(run.directory, "left", left.case_id, 1)
    assert (folder / "trajectory.json").read_text() == line + "\n"
    doc = json.loads((folder / BEHAVIOUR_FILE).read_text())
    assert doc["record"]["format"] == "generic" and [c["command"] for c in doc["record"]["tool_calls"]] == ["rg -n add"]
    gone = by_variant["gone"]
    assert "trajectory_missing" in gone.flags and gone.behaviour is not None and gone.behaviour["status"] == "none"


def test_a_price_table_prices_tokens_when_the_agent_reports_no_cost(calc_fast: Bench, tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("claude-test: {input: 1.0, output: 2.0, cache_read: 0.1, cache_write: 1.25}\n")
    run = calc_fast.run(variants=variants(cut=agent("stream", "claude", "cut"), paid=agent("stream", "claude")),
                        prices=prices)
    by_variant = {t.variant: t for t in run.trials}
    # 13 input, 210 cache read, 5 cache write, 50 output tokens at USD per million
    assert by_variant["cut"].cost_usd == pytest.approx((13 * 1.0 + 210 * 0.1 + 5 * 1.25 + 50 * 2.0) / 1e6)
    doc = json.loads((trial_path(run.directory, "cut", by_variant["cut"].case_id, 1) / BEHAVIOUR_FILE).read_text())
    assert doc["record"]["cost_source"] == "price_table"
    assert by_variant["paid"].cost_usd == 0.0125  # the agent's own figure wins
