"""A run written by hand whose trials have transcripts read into behaviour.json the way trials record them, so
the behaviour spreads and totals have values that differ from trial to trial."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from runner.behaviour.trial import record_behaviour
from runner.runs.result import Durations, TrialResult, trial_path
from tests.testing.runbuilder import record_digests
from tests.testing.trialkit import make_run

EVIL = "echo '<script>alert(2)</script>' > notes.txt"
"""A command an agent may run: it must reach the page as text."""


def generic(calls: list[str], usage: dict[str, int] | None, cost: float | None) -> str:
    """A generic-JSONL transcript: one shell call per command, then the trial's usage and cost when given."""
    lines = [{"tool": "bash", "args": {"command": c}, "exit_code": 0} for c in calls]
    if usage is not None or cost is not None:
        lines.append({"type": "usage", **(usage or {}), **({"cost_usd": cost} if cost is not None else {})})
    lines.append({"type": "final", "message": "done"})
    return "".join(json.dumps(line) + "\n" for line in lines)


TRIALS = [
    # (outcome, commands, usage, cost, seconds)
    ("pass", ["ls"], {"input": 100, "cache_read": 1000, "output": 10}, 0.01, 10.0),
    ("fail", ["ls", "cat a.py", "grep -n x a.py", EVIL], {"input": 300, "cache_read": 3000, "output": 30}, None,
     30.0),
    ("pass", ["ls", "curl -s https://example.com"], None, 0.03, 20.0),
    ("error", ["ls"] * 7, {"input": 5, "output": 1}, 0.5, 100.0),
]
"""The cells' four trials: the error one counts in the totals, never in the spreads."""


def behaviour_run(root: Path) -> Path:
    """Variant agent on case cart with TRIALS, and variant old on case cart with no behaviour.json at all."""
    run_dir = make_run(root, {("agent", "cart"): [t[0] for t in TRIALS], ("old", "cart"): ["pass"] * 4}, trials=4)
    for number, (_, commands, usage, cost, seconds) in enumerate(TRIALS, start=1):
        folder = trial_path(run_dir, "agent", "cart", number)
        (folder / "transcript.log").write_text(generic(commands, usage, cost))
        result = TrialResult.from_json((folder / "result.json").read_text(), folder / "result.json")
        result = record_behaviour(folder, replace(result, durations=Durations(total=seconds)))
        (folder / "result.json").write_text(result.to_json())
    return record_digests(run_dir)
