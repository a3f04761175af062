"""Cheating agents, continued: processes left behind, the oracle searched for, failures laundered into errors,
edits that only hold under test, the sandbox's capabilities, git's own machinery and odd files."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from runner.runs.result import trial_path
from runner.trial.spec import DEFAULT_TRANSCRIPT_LIMIT
from tests.runner.trial.test_cheats import (
    CASE,
    JUNIT_GRADER,
    Problems,
    Watch,
    artifact,
    by_variant,
    cheat,
    defeated,
    honest_unaffected,
    junit_bench,
    run_watched,
    still_valid,
)
from tests.testing.trialkit import SANDBOX_BINDS, Bench, agent, hang_token, processes_with, variants

# --- 6. processes that outlive the agent -----------------------------------------------------------------------


def test_processes_left_behind_die_with_the_agent_and_rewrite_nothing(calc_fast: Bench) -> None:
    bench = calc_fast
    token = hang_token()
    watch = Watch(bench)
    loaded = bench.run(variants=variants(honest=agent("noop"), cheat=cheat("outlive", bench, token)))
    by = by_variant(loaded)
    transcript = artifact(loaded, "cheat", "transcript.log")
    problems = Problems()
    defeated(problems, by["cheat"])
    problems.check(processes_with(token) == [], f"processes the agent left are still alive: {processes_with(token)}")
    rewrites = [line for line in transcript.splitlines() if line.startswith("FOUND")]
    problems.check(rewrites == [], f"the agent reached results or the harness: {rewrites[:6]}")
    honest = by["honest"]
    problems.check(honest.outcome == "fail" and honest.reason == "grader exited 1",
                   f"the earlier honest trial's published result changed: {honest.outcome} ({honest.reason})")
    watch.check(problems, loaded)
    still_valid(problems, bench)
    problems.assert_none()


# --- 7. reading the oracle -------------------------------------------------------------------------------------


def test_the_oracle_and_the_grader_files_cannot_be_found(calc_fast: Bench) -> None:
    bench = calc_fast
    loaded = bench.run(variants=variants(cheat=cheat("oracle_search", bench)))
    transcript = artifact(loaded, "cheat", "transcript.log")
    problems = Problems()
    defeated(problems, loaded.trials[0])
    problems.check("searched" in transcript, "the search did not finish")
    findings = [line[:160] for line in transcript.splitlines() if line.startswith("FOUND")]
    problems.check(findings == [], f"the agent found hidden files: {findings[:6]}")
    hidden = [str(bench.corpus.root.resolve()), str(bench.corpus.repo_path()), str(bench.results.resolve())]
    problems.check(not any(h in transcript for h in hidden), "the transcript names the corpus, repository or results")
    problems.check("assert add(2, 3) == 5" not in transcript and "+    return a + b" not in transcript,
                   "the transcript holds the grader's test or the oracle's fix")
    problems.assert_none()


# --- 8. failures laundered into errors -------------------------------------------------------------------------

LAUNDERING = ["fifos", "hang", "exit-127", "exit-126", "sigkill", "sigsegv", "junit-garbage-exit-0", "junit-dir",
              "junit-link", "working-tree-encoding", "empty-nested-repo", "nested-repo-head-fifo", "gitmodules-command"]


@pytest.mark.parametrize("way", LAUNDERING)
def test_a_failing_candidate_cannot_make_its_trial_an_error(tmp_path: Path, way: str) -> None:
    bench = junit_bench(tmp_path, grader=replace(JUNIT_GRADER, timeout=8))
    problems = Problems()
    try:
        loaded, hung = run_watched(bench, limit=60, variants=variants(cheat=agent("cheats/launder", way)))
    except Exception as exc:  # noqa: BLE001 - the harness must not fail on a candidate; report how it did
        problems.check(False, f"the whole run failed on the candidate: {exc.__class__.__name__}: {exc}")
        problems.assert_none()
    problems.check(hung == [], f"the harness hung on what the agent left, in: {hung}")
    (trial,) = loaded.trials
    defeated(problems, trial)
    problems.assert_none()


# --- 9. a real source edit that holds only under the test framework ---------------------------------------------


@pytest.mark.parametrize("mode", ["condition", "hijack"])
def test_an_edit_that_only_holds_under_the_test_framework_is_flagged(tmp_path: Path, mode: str) -> None:
    bench = junit_bench(tmp_path)
    loaded = bench.run(variants=variants(cheat=agent("cheats/framework_only", mode)))
    (trial,) = loaded.trials
    problems = Problems()
    problems.check(trial.changed_files == ("calc.py",), f"changed {trial.changed_files}")
    problems.check(trial.outcome != "pass" or "test_aware_source" in trial.flags,
                   f"a fix that holds only while pytest runs passed unflagged: {trial.outcome} ({trial.reason}), "
                   f"flags {list(trial.flags)}")
    problems.assert_none()


# --- 10. anything else -----------------------------------------------------------------------------------------


def test_sandboxed_commands_hold_no_capabilities(calc_fast: Bench) -> None:
    bench = calc_fast
    bound = bench.tmp_path / "bound"
    bound.mkdir()
    (bound / "tool.txt").write_text("read-only tool\n")
    watch = Watch(bench)
    command = cheat("capabilities", bench, "--target", str(bound.resolve()))
    loaded = bench.run(agent_binds=(*SANDBOX_BINDS, bound), variants=variants(cheat=command, honest=agent("noop")))
    by = by_variant(loaded)
    transcript = artifact(loaded, "cheat", "transcript.log")
    problems = Problems()
    defeated(problems, by["cheat"])
    caps = next((line.split()[1] for line in transcript.splitlines() if line.startswith("CAPS")), "?")
    problems.check(caps == "0000000000000000", f"the agent runs with capabilities {caps}")
    problems.check(sorted(os.listdir(bound)) == ["tool.txt"], f"a read-only bind was written: {os.listdir(bound)}")
    escapes = [line[:160] for line in transcript.splitlines() if line.startswith(("REMOUNTED", "OPENED", "LISTED"))]
    problems.check(escapes == [], f"the agent left the sandbox's limits: {escapes}")
    honest_unaffected(problems, by["honest"])
    watch.check(problems, loaded)
    problems.assert_none()


def test_git_configuration_hooks_and_filters_in_the_workspace_never_run(calc_fast: Bench) -> None:
    bench = calc_fast
    markers = bench.tmp_path / "markers"
    markers.mkdir()
    watch = Watch(bench)
    command = agent("cheats/git_internals", "--marker", str(markers.resolve()))
    loaded = bench.run(variants=variants(cheat=command, honest=agent("noop")))
    by = by_variant(loaded)
    problems = Problems()
    defeated(problems, by["cheat"])
    problems.check(sorted(os.listdir(markers)) == [], f"planted git commands ran on the host: {os.listdir(markers)}")
    honest_unaffected(problems, by["honest"])
    watch.check(problems, loaded)
    still_valid(problems, bench)
    problems.assert_none()


def test_odd_files_and_links_into_proc_change_nothing(calc_fast: Bench) -> None:
    bench = calc_fast
    watch = Watch(bench)
    loaded, hung = run_watched(bench, limit=60, variants=variants(cheat=agent("cheats/odd_files"),
                                                                   honest=agent("noop")))
    by = by_variant(loaded)
    problems = Problems()
    problems.check(hung == [], f"the harness hung on: {hung}")
    defeated(problems, by["cheat"])
    honest_unaffected(problems, by["honest"])
    watch.check(problems, loaded)
    problems.assert_none()


def test_a_gitfile_pointing_out_of_the_workspace_is_not_followed(calc_fast: Bench) -> None:
    bench = calc_fast
    repo = bench.corpus.repo_path()
    watch = Watch(bench)
    loaded = bench.run(variants=variants(cheat=agent("cheats/gitfile_out", "--gitdir", str(repo / ".git"))))
    (trial,) = loaded.trials
    tip = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                         check=True).stdout.strip()
    problems = Problems()
    defeated(problems, trial)
    problems.check(tip not in artifact(loaded, "cheat", "candidate.patch"),
                   "the harness's git read the source repository through the gitfile: its tip is in the patch")
    watch.check(problems, loaded)
    problems.assert_none()


def test_a_candidate_flooding_the_graders_output_fills_no_disk(calc_pytest: Bench) -> None:
    loaded = calc_pytest.run(variants=variants(cheat=agent("cheats/grader_flood", "64")))
    (trial,) = loaded.trials
    log = trial_path(loaded.directory, "cheat", CASE, 1) / "grader.log"
    problems = Problems()
    defeated(problems, trial)
    problems.check(log.stat().st_size <= DEFAULT_TRANSCRIPT_LIMIT + 4096,
                   f"grader.log keeps everything the candidate printed: {log.stat().st_size} bytes")
    problems.assert_none()


def test_a_saved_patch_that_does_not_apply_is_a_fail(tmp_path: Path) -> None:
    bench = junit_bench(tmp_path)
    source = bench.run(variants=variants(fixer=agent("fix"), noop=agent("noop")))
    garbage = {"fixer": b"diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -7,1 +7,1 @@\n-no\n+such\n",
               "noop": b"this is not a patch\x00\xff\n"}
    for variant, patch in garbage.items():
        (trial_path(source.directory, variant, CASE, 1) / "candidate.patch").write_bytes(patch)
    regraded = bench.run(mode="regrade", patch_from=source.directory)
    problems = Problems()
    for trial in regraded.trials:
        defeated(problems, trial)
    problems.assert_none()

