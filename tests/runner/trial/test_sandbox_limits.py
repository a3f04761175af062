"""Sandboxes share no kernel state and have limits: scripted agents that keep a value in the keyring, write a huge
file, nest directories deeply, fork without end and take all the memory, and what PATH names inside."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from corpus.fsutil import remove_tree
from runner.executors.jobs import Janitor
from runner.runs.result import trial_path
from runner.sandbox.limits import Enforcement, enforcement
from runner.settings import MiB
from tests.testing.trialkit import Bench, agent, variants


def transcript(loaded_dir: Path, variant: str, trial: int = 1) -> str:
    return (trial_path(loaded_dir, variant, "calc-add", trial) / "transcript.log").read_text()


def test_a_value_stored_in_the_keyring_never_reaches_a_later_trial(calc_fast: Bench) -> None:
    keeper = f"test {{trial}} -eq 1 && {agent('cheats/kernel_state', 'store')} || {agent('cheats/kernel_state', 'read')}"
    loaded = calc_fast.run(variants=variants(keeper=keeper, fixer=agent("fix")), trials=2)
    stored, read = transcript(loaded.directory, "keeper", 1), transcript(loaded.directory, "keeper", 2)
    assert stored.splitlines() == [f"store {ring}: -1 errno 38" for ring in ("user", "session", "user-session")]
    assert read.splitlines() == [f"read {ring}: -1 errno 38" for ring in ("user", "session", "user-session")]
    assert [t.outcome for t in loaded.trials if t.variant == "fixer"] == ["pass", "pass"]  # honest agents pass
    isolation = json.loads((loaded.directory / "run.json").read_text())["settings"]["isolation"]
    how = enforcement()
    assert isolation == {"user_namespace": True, "keyring": "seccomp", "memory": how.memory,
                         "processes": how.processes}


def test_a_patch_over_its_limit_fails_the_trial_ungraded(calc_fast: Bench) -> None:
    loaded = calc_fast.run(variants=variants(huge=f"{agent('hog', 'file', '3')} && {agent('fix')}"),
                           patch_limit=1 * MiB)
    [trial] = loaded.trials
    assert trial.outcome == "fail" and "over_limit" in trial.flags
    assert trial.reason == f"the candidate patch is over {MiB} bytes (--patch-limit)"
    folder = trial_path(loaded.directory, "huge", "calc-add", 1)
    assert (folder / "candidate.patch").read_bytes() == b""
    assert (folder / "grader.log").read_text().startswith("[hindcast: not graded: the candidate patch is over")


def test_a_workspace_over_its_limit_fails_and_no_file_outgrows_it(calc_fast: Bench) -> None:
    loaded = calc_fast.run(variants=variants(huge=f"{agent('fix')}; {agent('hog', 'file', '3')}"),
                           workspace_limit=2 * MiB)
    [trial] = loaded.trials
    # The write past RLIMIT_FSIZE killed the agent at 2 MiB; the workspace is then over its limit: a fail.
    assert (trial.outcome, trial.reason) == (
        "fail", f"the agent's workspace is over {2 * MiB} bytes when it ended (--workspace-limit)")
    assert "wrote 3 MiB" not in transcript(loaded.directory, "huge") and trial.agent_exit_code not in (0, None)
    assert (trial_path(loaded.directory, "huge", "calc-add", 1) / "candidate.patch").read_bytes() == b""
    cut = calc_fast.run(variants=variants(huge=f"{agent('hog', 'file', '1')} && {agent('fix')}"),
                        workspace_limit=MiB + 512)
    assert [(t.outcome, t.reason) for t in cut.trials] == [
        ("fail", f"the agent's workspace is over {MiB + 512} bytes when it ended (--workspace-limit)")]


def test_a_deep_nest_is_removed_with_the_scratch_and_what_cannot_be_removed_is_reported(calc_fast: Bench,
                                                                                       tmp_path: Path) -> None:
    loaded = calc_fast.run(variants=variants(nester=f"{agent('hog', 'nest', '1100')} && {agent('fix')}"))
    assert [t.outcome for t in loaded.trials] == ["pass"]
    assert "nested 1100" in transcript(loaded.directory, "nester")
    assert list(calc_fast.scratch.iterdir()) == []  # the workspace, grader files and the nest all gone
    janitor = Janitor()
    kept = tmp_path / "kept"
    (kept / "a" / "b").mkdir(parents=True)
    janitor.discard(kept)
    janitor.discard(Path("/proc/sys/kernel/random"))  # nothing there can be removed
    failures = janitor.close()
    assert not kept.exists() and len(failures) == 1 and failures[0].startswith("/proc/sys/kernel/random: ")
    remove_tree(tmp_path / "missing")  # nothing to remove is fine


def test_a_fork_bomb_and_a_memory_hog_are_bounded(calc_fast: Bench) -> None:
    loaded = calc_fast.run(variants=variants(forker=agent("hog", "forks"), hog=agent("hog", "memory")),
                           process_limit=40, memory_limit=256 * MiB)
    forked = transcript(loaded.directory, "forker")
    assert forked.startswith("fork refused after ") and int(forked.split()[3].rstrip(":")) < 40
    held = [int(line.split()[1]) for line in transcript(loaded.directory, "hog").splitlines()
            if line.startswith("holding ")]
    assert held and max(held) < 256


def test_path_inside_names_only_what_the_sandbox_shows(calc_fast: Bench, monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    tools, home_tools = tmp_path / "host-tools", Path.home() / ".local" / "bin"
    tools.mkdir()
    home_tools.mkdir(parents=True)  # the home directory is never shown, so nor is this
    monkeypatch.setenv("PATH", os.pathsep.join([str(tools), str(home_tools), os.environ["PATH"]]))
    show = "echo \"$PATH\" | tr : '\\n' | while read d; do test -d \"$d\" && echo \"ok $d\" || echo \"gone $d\"; done"
    loaded = calc_fast.run(variants=variants(path=show))
    lines = transcript(loaded.directory, "path").splitlines()
    assert lines and all(line.startswith("ok ") for line in lines), lines
    assert "ok /usr/bin" in lines and f"ok {tools}" in lines  # PATH's directories outside home are bound
    assert not any(str(Path.home()) in line for line in lines)


def test_without_a_cgroup_an_rlimit_bounds_the_memory(calc_fast: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    rlimits = Enforcement("rlimit", "unenforced")
    monkeypatch.setattr("runner.process.enforcement", lambda: rlimits)
    monkeypatch.setattr("runner.sandbox.bwrap.enforcement", lambda: rlimits)
    loaded = calc_fast.run(variants=variants(hog=agent("hog", "memory")), memory_limit=256 * MiB)
    text = transcript(loaded.directory, "hog")
    held = [int(line.split()[1]) for line in text.splitlines() if line.startswith("holding ")]
    assert text.rstrip().endswith("memory refused") and held and max(held) < 256
