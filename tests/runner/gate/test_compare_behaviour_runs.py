"""`runner compare` on real runs: behaviour medians from the trials' behaviour.json, judged by the directions the
run recorded (or the corpus's with --corpus), and cost and tokens as the transcripts gave them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import Corpus
from corpus.cli_support import run_cli
from runner.cli import cli
from runner.runs.manifest import read_manifest
from tests.testing.trialkit import Bench, agent, variants

DIRECTIONS = "behaviour:\n  directions:\n    tool_calls: higher\n    cost_usd: neutral\n"


@pytest.fixture
def busy_run(calc_fast: Bench) -> tuple[Bench, Path]:
    config = calc_fast.corpus.root / "corpus.yaml"
    config.write_text(config.read_text() + DIRECTIONS)
    bench = Bench(calc_fast.tmp_path, Corpus.open(calc_fast.corpus.root))
    run = bench.run(trials=3, variants=variants(lean=agent("busy", "1", "0.01"), busy=agent("busy", "4", "0.02")))
    return bench, run.directory


def compare(run_dir: Path, *extra: str) -> int:
    return run_cli(cli, "runner", ["compare", "--baseline", str(run_dir), "--baseline-variant", "lean",
                                   "--candidate", str(run_dir), "--candidate-variant", "busy", *extra])


def test_run_records_directions_and_compare_judges_by_them(busy_run: tuple[Bench, Path],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    _, run_dir = busy_run
    assert read_manifest(run_dir).directions == {"tool_calls": "higher", "cost_usd": "neutral"}
    assert compare(run_dir) == 2
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("Behaviour (medians of non-error trials per case; a change counts at 25% or more with the "
                        "metric known in 3 or more trials of each run; information, never a verdict):")
    assert lines[start + 1:] == [
        f"  directions: as run {run_dir.name} recorded them when it started",
        "  shell_commands (lower is better): 1 regress, 0 improve, 0 neutral, 0 unknown",
        "    regress  calc-add: median 1 -> 4 (+300%) over 3 and 3 trials",
        "  repeated_searches (lower is better): 1 regress, 0 improve, 0 neutral, 0 unknown",
        "    regress  calc-add: median 0 -> 3 (from 0) over 3 and 3 trials",
        "  tool_calls (higher is better): 0 regress, 1 improve, 0 neutral, 0 unknown",
        "    improve  calc-add: median 1 -> 4 (+300%) over 3 and 3 trials",
        "  llm_calls (lower is better): 1 regress, 0 improve, 0 neutral, 0 unknown",
        "    regress  calc-add: median 1 -> 4 (+300%) over 3 and 3 trials",
        "  input_tokens (lower is better): 1 regress, 0 improve, 0 neutral, 0 unknown",
        "    regress  calc-add: median 1,110 -> 4,440 (+300%) over 3 and 3 trials",
        "  output_tokens (lower is better): 1 regress, 0 improve, 0 neutral, 0 unknown",
        "    regress  calc-add: median 50 -> 200 (+300%) over 3 and 3 trials",
        "  total_tokens (lower is better): 1 regress, 0 improve, 0 neutral, 0 unknown",
        "    regress  calc-add: median 1,160 -> 4,640 (+300%) over 3 and 3 trials",
        "  18 metric x case pairs: 6 regress, 1 improve, 10 neutral, 1 unknown",
        "",
        # The behaviour lines never change the verdict: the cost rise does, from the transcripts' own cost.
        "WARN: mean cost per trial rose 100.0% ($0.0100 -> $0.0200), above the 20% limit",
        "verdict: WARN (exit 2)"]
    assert lines[lines.index("Summary:") + 5:lines.index("Summary:") + 11] == [
        "  cost: $0.0300 -> $0.0600; per trial $0.0100 -> $0.0200 (+100.0%) over 3/3 trials",
        "  tokens: 3,480 -> 13,920; per trial 1,160 -> 4,640 (+300.0%) over 3/3 trials",
        "  tokens, input: 300 -> 1,200; per trial 100 -> 400 (+300.0%) over 3/3 trials",
        "  tokens, cache_read: 3,000 -> 12,000; per trial 1,000 -> 4,000 (+300.0%) over 3/3 trials",
        "  tokens, cache_write: 30 -> 120; per trial 10 -> 40 (+300.0%) over 3/3 trials",
        "  tokens, output: 150 -> 600; per trial 50 -> 200 (+300.0%) over 3/3 trials"]
    assert compare(run_dir, "--max-cost-increase", "100") == 0  # a rise of exactly the limit is not above it
    assert capsys.readouterr().out.splitlines()[-1] == "verdict: PASS (exit 0)"


def test_corpus_applies_todays_directions(busy_run: tuple[Bench, Path], capsys: pytest.CaptureFixture[str]) -> None:
    bench, run_dir = busy_run
    config = bench.corpus.root / "corpus.yaml"
    config.write_text(config.read_text().replace(DIRECTIONS, "behaviour:\n  directions:\n    llm_calls: neutral\n"
                                                 "    tool_call: lower\n"))
    assert compare(run_dir, "--corpus", str(bench.corpus.root)) == 2
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Behaviour ("))
    assert lines[start + 1:start + 5] == [
        f"  directions: the corpus {bench.corpus.root} as it is today (--corpus)",
        "  not a metric, ignored: tool_call",
        "  shell_commands (lower is better): 1 regress, 0 improve, 0 neutral, 0 unknown",
        "    regress  calc-add: median 1 -> 4 (+300%) over 3 and 3 trials"]
    counted = [line.split()[:3] for line in lines[start + 3:] if line.endswith(" 0 improve, 0 neutral, 0 unknown")]
    assert counted == [[name, "(lower", "is"] for name in (
        "shell_commands", "repeated_searches", "tool_calls", "input_tokens", "output_tokens", "total_tokens",
        "cost_usd")]
    assert "  18 metric x case pairs: 7 regress, 0 improve, 10 neutral, 1 unknown" in lines


def test_json_has_behaviour_and_tokens_by_bucket(busy_run: tuple[Bench, Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, run_dir = busy_run
    assert compare(run_dir, "--json") == 2
    data = json.loads(capsys.readouterr().out)
    summary = data["summary"]
    assert summary["cost_usd"] == [{"total": pytest.approx(0.03), "trials": 3},
                                   {"total": pytest.approx(0.06), "trials": 3}]
    assert summary["cost_change_pct"] == pytest.approx(100.0)
    assert summary["tokens_by_bucket"] == {
        "input": [{"total": 300.0, "trials": 3}, {"total": 1200.0, "trials": 3}],
        "cache_read": [{"total": 3000.0, "trials": 3}, {"total": 12000.0, "trials": 3}],
        "cache_write": [{"total": 30.0, "trials": 3}, {"total": 120.0, "trials": 3}],
        "output": [{"total": 150.0, "trials": 3}, {"total": 600.0, "trials": 3}]}
    behaviour = data["behaviour"]
    assert (behaviour["threshold"], behaviour["min_trials"], behaviour["unknown_directions"]) == (0.25, 3, [])
    assert behaviour["directions"]["tool_calls"] == "higher" and behaviour["directions"]["chain_segments"] == "neutral"
    assert behaviour["directions_source"] == f"as run {run_dir.name} recorded them when it started"
    by_metric = {c["metric"]: c for c in behaviour["changes"]}
    assert by_metric["llm_calls"] == {
        "key": "calc-add", "metric": "llm_calls", "direction": "lower", "change": "regress", "relative": 3.0,
        "baseline": {"min": 1.0, "median": 1.0, "max": 1.0, "trials": 3},
        "candidate": {"min": 4.0, "median": 4.0, "max": 4.0, "trials": 3}}
    assert by_metric["cost_usd"]["change"] == "neutral" and by_metric["cost_usd"]["direction"] == "neutral"
    assert by_metric["repeated_searches"]["relative"] is None  # a rise from 0 is infinite: JSON has no infinity
    assert by_metric["longest_turn_seconds"] == {
        "key": "calc-add", "metric": "longest_turn_seconds", "direction": "lower", "change": "unknown",
        "relative": None, "baseline": None, "candidate": None}
    assert behaviour["tally"]["tool_calls"] == {"regress": 0, "improve": 1, "neutral": 0, "unknown": 0}
