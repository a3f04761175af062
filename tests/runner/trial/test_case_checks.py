"""A case's behaviour checks decide real trials: max_turns fails a trial over budget or without a turn count, and
a trajectory deviation fails it; the grader's own outcome stays recorded."""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from pathlib import Path

from corpus.model import Step, Trajectory
from runner.runs.load import LoadedRun
from runner.runs.manifest import read_manifest
from runner.runs.result import TrialResult
from runner.trial.plan import with_transcript_formats
from tests.testing.trialkit import agent, graded_quickly, variants


def calls(*specs: str) -> str:
    """The calls agent printing these tool calls (NAME[:JSON][@TURN])."""
    return agent("calls", *(shlex.quote(spec) for spec in specs))


def by_cell(run: LoadedRun) -> dict[tuple[str, str], TrialResult]:
    return {(t.variant, t.case_id): t for t in run.trials}


def test_max_turns_fails_over_budget_and_unreported_turns(tmp_path: Path) -> None:
    bench = graded_quickly(tmp_path, max_turns=2)
    run = bench.run(variants=with_transcript_formats(variants(
        within=calls("Read@1", "Edit@2"), over=calls("Read@1", "Bash@2", "Edit@3"),
        plain=calls("--plain"), unturned=calls("Read", "Edit"), claude=agent("stream", "claude"),
        codex=agent("stream", "codex")), ("plain=none",)))
    got = {variant: t for (variant, _), t in by_cell(run).items()}
    assert got["within"].outcome == "pass" and got["within"].grader_outcome == "pass"
    over = got["over"]
    assert (over.outcome, over.grader_outcome) == ("fail", "pass")
    assert over.reason.startswith("over_budget: 3 model calls, max_turns 2 (graded pass: ")
    for name in ("plain", "unturned"):
        assert got[name].outcome == "fail" and got[name].grader_outcome == "pass"
        assert got[name].reason.startswith("turns_unreported: the transcript reports no turn count ("), name
    assert "plain text" in got["plain"].reason and "generic transcript does not count turns" in \
        got["unturned"].reason
    # Claude's stream counts model calls (2, within); Codex's only its own turns (1): the budget counts those.
    assert got["claude"].outcome == "pass" and got["codex"].outcome == "pass"
    assert got["within"].trajectory is None  # no trajectory on the case: no verdict recorded
    meta = read_manifest(run.directory).cases_meta["calc-add"]
    assert (meta.max_turns, meta.bait, meta.trajectory) == (2, None, None)


def test_max_turns_counts_agent_turns_when_model_calls_are_unknown(tmp_path: Path) -> None:
    bench = graded_quickly(tmp_path, max_turns=1)
    run = bench.run(variants=variants(codex=agent("stream", "codex"), claude=agent("stream", "claude")))
    got = {variant: t for (variant, _), t in by_cell(run).items()}
    assert got["codex"].outcome == "pass"
    assert got["claude"].outcome == "fail" and got["claude"].reason.startswith("over_budget: 2 model calls, "
                                                                               "max_turns 1 (graded pass")


STEPS = (Step("Read", {"file_path": "calc.py"}), Step("shell", {"command": "pytest"}, "regex"),
         Step("Edit", {"file_path": "calc.py"}, "exact"))
AGENTS = {
    "inorder": calls('Read:{"file_path": "calc.py"}', """Bash:{"command": "bash -lc 'python -m pytest -q'"}""",
                     'Edit:{"file_path": "calc.py"}'),
    "shuffled": calls('Edit:{"file_path": "calc.py"}', 'Read:{"file_path": "calc.py", "limit": 5}',
                      'Bash:{"command": "python -m pytest -q"}'),
    "extra": calls('Read:{"file_path": "calc.py"}', 'Grep:{"pattern": "add"}', 'Bash:{"command": "pytest"}',
                   'Edit:{"file_path": "calc.py"}'),
    "short": calls('Read:{"file_path": "calc.py"}'),
    "wrongargs": calls('Read:{"file_path": "calc.py"}', 'Bash:{"command": "make test"}',
                       'Edit:{"file_path": "calc.py", "replace_all": true}'),
    "plain": calls("--plain"),
}
EXPECTED = {  # mode -> agent -> the deviation kinds, in order ([] passes)
    "strict": {"inorder": [], "shuffled": ["unexpected_call", "unexpected_call", "unexpected_call"],
               "extra": ["unexpected_call", "unexpected_call", "extra_call"],
               "short": ["missing_step", "missing_step"], "wrongargs": ["unexpected_call", "unexpected_call"],
               "plain": ["unreadable"]},
    "unordered": {"inorder": [], "shuffled": [], "extra": ["extra_call"], "short": ["missing_step", "missing_step"],
                  "wrongargs": ["missing_step", "missing_step", "extra_call", "extra_call"], "plain": ["unreadable"]},
    "superset": {"inorder": [], "shuffled": ["missing_step"], "extra": [], "short": ["missing_step", "missing_step"],
                 "wrongargs": ["missing_step", "missing_step"], "plain": ["unreadable"]},
    "subset": {"inorder": [], "shuffled": [], "extra": ["extra_call"], "short": [],
               "wrongargs": ["extra_call", "extra_call"], "plain": ["unreadable"]},
    "guarded": {"inorder": ["too_many_calls"], "shuffled": ["too_many_calls"],
                "extra": ["forbidden_tool", "too_many_calls"], "short": [], "wrongargs": ["too_many_calls"],
                "plain": ["unreadable"]},
}


def test_trajectories_in_every_mode_decide_real_trials(tmp_path: Path) -> None:
    bench = graded_quickly(tmp_path, trajectory=Trajectory(STEPS, "strict"))
    stored = bench.corpus.load("calc-add")
    files = stored.files
    for mode in ("unordered", "superset", "subset"):
        bench.corpus.write(replace(stored.case, id=f"calc-{mode}", trajectory=Trajectory(STEPS, mode)), files)
    guarded = Trajectory(forbidden_tools=("search",), max_calls={"Read": 1, "shell": 0})
    bench.corpus.write(replace(stored.case, id="calc-guarded", trajectory=guarded), files)
    run = bench.run(variants=with_transcript_formats(variants(**AGENTS), ("plain=none",)))
    cells = by_cell(run)
    for mode, expected in EXPECTED.items():
        case_id = "calc-add" if mode == "strict" else f"calc-{mode}"
        for name, kinds in expected.items():
            trial = cells[(name, case_id)]
            assert trial.trajectory is not None
            assert [d["kind"] for d in trial.trajectory["deviations"]] == kinds, (mode, name, trial.trajectory)
            assert trial.trajectory["passed"] is (not kinds)
            assert trial.grader_outcome == "pass"
            assert trial.outcome == ("fail" if kinds else "pass"), (mode, name)
            if kinds:
                first = trial.trajectory["deviations"][0]
                assert trial.reason.startswith(f"trajectory: {first['kind']}: {first['message']} (graded pass")
    strict_shuffled = cells[("shuffled", "calc-add")].trajectory
    assert strict_shuffled is not None and strict_shuffled["deviations"][0] == {
        "kind": "unexpected_call", "step": 1, "call": 1,
        "message": "call 1 Edit(file_path='calc.py') is not step 1 (Read subset file_path='calc.py')"}
    extra = cells[("extra", "calc-guarded")].trajectory
    assert extra is not None and [d["message"] for d in extra["deviations"]] == [
        "call 2 Grep(pattern='add') uses forbidden tool search", "1 calls of shell, at most 0"]
    # behaviour.json keeps the record the verdict was made from; run.json the trajectory as the run started
    doc = json.loads((run.directory / "extra" / "calc-guarded" / "1" / "behaviour.json").read_text())
    assert [c["raw_name"] for c in doc["record"]["tool_calls"]] == ["Read", "Grep", "Bash", "Edit"]
    assert read_manifest(run.directory).cases_meta["calc-guarded"].trajectory == guarded
