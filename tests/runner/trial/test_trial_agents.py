"""Scripted agents stand in for coding agents; each gets the outcome it deserves."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from corpus import Setup
from runner.runs.result import trial_path
from runner.trial.agent import agent_environment
from runner.trial.spec import DEFAULT_TRANSCRIPT_LIMIT
from tests.testing.trialkit import Bench, agent, graded_quickly, hang_token, processes_with, variants


def artifact(bench: Bench, run_dir: Path, variant: str, name: str, trial: int = 1) -> str:
    return (trial_path(run_dir, variant, "calc-add", trial) / name).read_text(errors="replace")


def test_every_scripted_agent_gets_its_outcome(calc_pytest: Bench) -> None:
    loaded = calc_pytest.run(jobs=2, variants=variants(
        fixer=agent("fix"), noop=agent("noop"), crash=agent("crash"), edits=agent("edits_tests"),
        conftest=agent("conftest_skip"), fake=agent("fake_output"), snoop=agent("snoop"), flood=agent("flood")))
    by = {t.variant: t for t in loaded.trials}
    run_dir = loaded.directory
    assert {v: t.outcome for v, t in by.items()} == {
        "fixer": "pass", "noop": "fail", "crash": "error", "edits": "fail", "conftest": "fail", "fake": "fail",
        "snoop": "fail", "flood": "fail"}

    fixer = by["fixer"]
    assert fixer.changed_files == ("README.md", "calc.py", "data.bin") and fixer.flags == ()
    patch = artifact(calc_pytest, run_dir, "fixer", "candidate.patch")
    assert "GIT binary patch" in patch and "deleted file mode" in patch and "+    return a + b" in patch

    assert by["noop"].changed_files == () and artifact(calc_pytest, run_dir, "noop", "candidate.patch") == ""

    crash = by["crash"]
    assert crash.reason.startswith("agent exited 1") and "the agent fell over" in crash.reason
    assert crash.grader_outcome is None and "not graded" in artifact(calc_pytest, run_dir, "crash", "grader.log")
    assert "calc.py" in crash.changed_files  # the evidence is kept even for an error
    crash_total = next(v for v in loaded.variants if v.variant == "crash")
    assert (crash_total.errors, crash_total.success_rate, crash_total.pass_at_k) == (1, None, {})

    edits = by["edits"]
    assert "edited_tests" in edits.flags and edits.test_edits == ("test_calc.py",)
    assert "assert True" in artifact(calc_pytest, run_dir, "edits", "candidate.patch")

    conftest = by["conftest"]
    assert "added_test_config" in conftest.flags
    assert {(r["path"], r["action"], r["cause"]) for r in conftest.restored} == {
        ("conftest.py", "removed", "added"), ("pytest.ini", "removed", "added")}
    assert conftest.changed_files == ("conftest.py", "pytest.ini")

    assert "2 passed" in artifact(calc_pytest, run_dir, "fake", "transcript.log")
    assert by["fake"].grader_exit_code == 1

    flood = by["flood"]
    transcript = trial_path(run_dir, "flood", "calc-add", 1) / "transcript.log"
    assert flood.transcript_bytes == 100 * 1024 * 1024 and "transcript_truncated" in flood.flags
    assert DEFAULT_TRANSCRIPT_LIMIT < transcript.stat().st_size < DEFAULT_TRANSCRIPT_LIMIT + 200
    assert "output truncated after" in transcript.read_text()[-200:]


def test_snooping_agent_finds_only_the_base(calc_pytest: Bench) -> None:
    loaded = calc_pytest.run(variants=variants(snoop=agent("snoop")))
    lines = dict(line.split(" ", 1) for line in
                 artifact(calc_pytest, loaded.directory, "snoop", "transcript.log").splitlines())
    log = json.loads(lines["LOG"]).splitlines()
    assert len(log) == 1 and log[0].endswith(" base")
    assert len(json.loads(lines["REVS"]).split()) == 1
    assert json.loads(lines["REFS"]).count("\n") == 1
    repo = calc_pytest.corpus.repo_path()
    objects = json.loads(lines["OBJECTS"])
    for rev in ("HEAD", "HEAD~1", "HEAD~1:test_calc.py", "HEAD~2"):  # later commits and the fix's test
        sha = subprocess.run(["git", "rev-parse", rev], cwd=repo, capture_output=True, text=True, check=True)
        assert sha.stdout.strip() not in objects
    environment = json.loads(lines["ENV"])
    hidden = [str(calc_pytest.corpus.root.resolve()), str(repo), str(calc_pytest.results.resolve()),
              str(loaded.directory)]
    leaks = {k: v for k, v in environment.items() if any(h in v for h in hidden)}
    assert leaks == {}


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_hanging_agent_is_killed_with_every_grandchild(calc_fast: Bench, sandbox: str) -> None:
    token = hang_token()
    seen: list[int] = []

    def watch(done: threading.Event) -> None:
        while not done.is_set():
            seen.extend(processes_with(token))
            time.sleep(0.05)

    done = threading.Event()
    watcher = threading.Thread(target=watch, args=(done,))
    watcher.start()
    try:
        loaded = calc_fast.run(agent_timeout=2, sandbox=sandbox, variants=variants(hang=agent("hang", token)))
    finally:
        done.set()
        watcher.join()
    (trial,) = loaded.trials
    assert trial.outcome == "fail" and trial.agent_timed_out and trial.agent_exit_code is None, trial.reason
    assert trial.reason.startswith("agent timed out after 2s") and trial.grader_outcome == "pass"
    assert trial.changed_files == ("calc.py",)
    assert len(set(seen)) >= 2 and processes_with(token) == []  # both grandchildren ran, none outlived it


def test_agent_that_cannot_start_is_an_error(calc_fast: Bench) -> None:
    # A relative program is looked up in the trial's workspace, so only the trial can find it missing.
    loaded = calc_fast.run(variants=variants(missing="./no-such-agent-xyz {workspace}", fixer=agent("fix")))
    by = {t.variant: t for t in loaded.trials}
    assert by["missing"].outcome == "error"
    assert by["missing"].reason.startswith("agent command could not start (exit 127)")
    assert by["fixer"].outcome == "pass"


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_placeholders_are_shell_quoted_and_the_prompt_lives_outside(calc_fast: Bench, sandbox: str) -> None:
    command = ("printf '<%s>\\n' {workspace} {prompt_file} {case_id} {trial} '{other}' \"$PWD\"; cat {prompt_file}; "
               "echo changed >> {prompt_file} 2>/dev/null || echo read-only")
    loaded = calc_fast.run(scratch_root=calc_fast.tmp_path / "scratch dir", trials=2, sandbox=sandbox,
                            variants=variants(echo=command))
    text = artifact(calc_fast, loaded.directory, "echo", "transcript.log", trial=2)
    values = [line[1:-1] for line in text.splitlines() if line.startswith("<")]
    workspace, prompt_file, case_id, trial, other, cwd = values
    if sandbox == "bwrap":  # the paths the agent sees, the same in every trial
        assert (workspace, prompt_file, cwd) == ("/workspace", "/task/prompt.md", "/workspace")
        assert text.rstrip().endswith("read-only")
    else:
        assert Path(workspace).name == "workspace" and " " in workspace and cwd == workspace
    assert not Path(prompt_file).is_relative_to(workspace) and case_id == "calc-add" and trial == "2"
    assert other == "{other}" and "Adding two numbers gives the wrong answer." in text
    assert artifact(calc_fast, loaded.directory, "echo", "prompt.md", trial=2).startswith("Adding two numbers")
    assert not any((calc_fast.tmp_path / "scratch dir").iterdir())  # scratch is removed after each trial


def test_setup_artifacts_stay_out_of_the_patch(tmp_path: Path) -> None:
    bench = graded_quickly(tmp_path, setup=Setup(command="mkdir -p build && echo x > build/out.txt && echo y > made.txt"))
    loaded = bench.run(variants=variants(fixer=agent("fix"), noop=agent("noop")))
    by = {t.variant: t for t in loaded.trials}
    assert by["fixer"].changed_files == ("README.md", "calc.py", "data.bin") and by["fixer"].outcome == "pass"
    assert by["noop"].changed_files == ()


def test_agent_that_commits_and_deletes_git_still_yields_its_patch(calc_fast: Bench) -> None:
    command = (f"{agent('fix')} && git add -A && git -c user.name=a -c user.email=a@b commit -qm mine "
               "&& rm -rf .git")
    loaded = calc_fast.run(variants=variants(rude=command))
    (trial,) = loaded.trials
    assert trial.outcome == "pass" and trial.changed_files == ("README.md", "calc.py", "data.bin")


def test_keep_leaves_the_workspace_for_debugging(calc_fast: Bench) -> None:
    loaded = calc_fast.run(keep=True, variants=variants(fixer=agent("fix")))
    (trial,) = loaded.trials
    assert trial.kept is not None
    workspace = Path(trial.kept) / "workspace"
    assert (workspace / "calc.py").read_text().endswith("a + b\n") and (workspace / "test_calc.py").exists()
    assert os.path.commonpath([trial.kept, str(calc_fast.scratch)]) == str(calc_fast.scratch)


def test_agent_environment_keeps_no_mention_of_hidden_paths() -> None:
    hidden = ("/work/proj", "/work/proj/evals", "/data/results")
    env = {"PATH": "/work/proj/.venv/bin:/usr/bin:/work/proj-tools/bin", "OLDPWD": "/work/proj/evals",
           "CONFIG": "--out=/data/results/x", "HOME": "/home/u", "OTHER": "/work/projects", "ONLY": "/work/proj"}
    assert agent_environment(env, hidden, "HINDCAST_TRIAL_MARK=abc") == {
        "PATH": "/usr/bin:/work/proj-tools/bin", "HOME": "/home/u", "OTHER": "/work/projects",
        "HINDCAST_TRIAL_MARK": "abc"}
