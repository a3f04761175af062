"""The demo's scripted agents: the fixer passes every demo case, the no-op fails every one; each prints what it
did in an agent CLI's format (the fixer as Claude Code stream-json with usage and cost, the noop as codex exec
--json), so the demo's report shows behaviour and cost."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from corpus import Corpus
from runner.behaviour.aggregate import run_behaviour
from runner.report.report import render_table
from runner.runs.behaviour_record import read_behaviour
from runner.runs.manifest import Variant
from runner.runs.result import trial_path
from runner.settings import Settings
from runner.trial.plan import RunOptions
from runner.trial.run import run
from tests.testing.isolation import PROJECT_BIN

ROOT = Path(__file__).resolve().parents[3]
CASE = "coupon-double-discount"


def test_demo_agents_on_the_demo_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = tmp_path / "app"
    subprocess.run([sys.executable, str(ROOT / "demo" / "build_app.py"), str(app)], check=True,
                   capture_output=True)
    monkeypatch.setenv("PATH", f"{PROJECT_BIN[0]}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    python = shlex.quote(sys.executable)
    agents = ROOT / "demo" / "agents"
    loaded = run(Corpus.open(ROOT / "demo" / "corpus"), RunOptions(
        all_cases=True, repo=app, results_dir=tmp_path / "results", scratch_root=tmp_path / "scratch",
        settings=Settings(jobs=2, agent_binds=(agents, Path(sys.prefix))),
        variants=(Variant("fixer", f"{python} {agents / 'fixer.py'} {{case_id}}"),
                  Variant("noop", f"{python} {agents / 'noop.py'} {{prompt_file}}"))))
    totals = {v.variant: (v.passes, v.fails, v.errors) for v in loaded.variants}
    cases = len(loaded.manifest.config.cases)
    assert cases >= 5 and totals == {"fixer": (cases, 0, 0), "noop": (0, cases, 0)}
    fixer = read_behaviour(trial_path(loaded.directory, "fixer", CASE, 1))
    assert fixer is not None
    record = fixer["record"]
    assert (record["format"], record["status"], record["cost_source"]) == ("claude", "parsed", "agent")
    assert [(c["raw_name"], c["command"]) for c in record["tool_calls"]] == [
        ("Bash", "git status --short"), ("Read", None), ("Read", None),
        ("Bash", f"git apply {agents / 'fixes' / f'{CASE}.patch'}"), ("Bash", "git diff --stat")]
    assert [c["arguments"]["file_path"].rsplit("/", 1)[1] for c in record["tool_calls"][1:3]] == ["cart.py",
                                                                                                 "pricing.py"]
    assert fixer["metrics"]["shell_edits"] == 1 and record["llm_calls"] == 6
    assert record["final_message"] == f"applied {CASE}.patch"
    noop = read_behaviour(trial_path(loaded.directory, "noop", CASE, 1))
    assert noop is not None
    assert (noop["record"]["format"], noop["record"]["status"], noop["record"]["cost_usd"]) == ("codex", "parsed",
                                                                                              None)
    (command,) = [c["command"] for c in noop["record"]["tool_calls"]]
    assert command.startswith("cat ") and command.endswith("prompt.md")
    assert noop["metrics"]["total_tokens"] > 0
    behaviour = run_behaviour(loaded)
    costs = [t.cost_usd for t in loaded.trials if t.variant == "fixer"]
    assert all(cost is not None and cost > 0 for cost in costs)
    assert behaviour.run.cost_trials == cases and behaviour.run.cost_usd == pytest.approx(sum(costs))  # type: ignore[arg-type]
    assert f"${behaviour.run.cost_usd:.4f}" in render_table(loaded)
