"""behaviour.json: every agent trial reads its transcript into a behaviour record beside result.json, whose digest
vouches for it; cost and tokens come from it."""

from __future__ import annotations

import json

import pytest

from corpus.errors import UsageError
from runner.behaviour.trial import BEHAVIOUR_FILE
from runner.runs.load import load_run
from runner.runs.result import trial_path
from runner.trial.plan import with_transcript_formats
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
    with pytest.raises(UsageError, match="does not match the digest its result.json recorded; the run cannot be "
                                         "trusted"):
        load_run(run.directory)
    path.unlink()
    with pytest.raises(UsageError, match="recorded in result.json but missing"):
        load_run(run.directory)
