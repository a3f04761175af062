"""--resume runs only what is missing or errored, refuses a changed corpus or configuration, and kill -9 at
any moment leaves a readable run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from corpus.errors import UsageError
from runner.runs.load import load_run
from runner.runs.result import trial_path
from tests.testing.trialkit import SANDBOX_ARGS, Bench, agent, hang_token, processes_with, variants


def test_resume_reruns_missing_and_errored_trials_only(calc_fast: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    command = f"test \"$AGENT_READY\" = yes && {agent('fix')}"
    first = calc_fast.run(trials=3, variants=variants(gated=command))
    assert [t.outcome for t in first.trials] == ["error"] * 3
    monkeypatch.setenv("AGENT_READY", "yes")
    second = calc_fast.run(resume=first.directory)
    assert second.directory == first.directory and [t.outcome for t in second.trials] == ["pass"] * 3
    kept = (trial_path(first.directory, "gated", "calc-add", 1) / "result.json").read_bytes()
    for name in os.listdir(trial_path(first.directory, "gated", "calc-add", 2)):
        os.remove(trial_path(first.directory, "gated", "calc-add", 2) / name)
    os.rmdir(trial_path(first.directory, "gated", "calc-add", 2))
    assert load_run(first.directory).missing == 1
    third = calc_fast.run(resume=first.directory, variants=variants(gated=command), trials=3)
    assert [t.outcome for t in third.trials] == ["pass"] * 3 and third.missing == 0
    assert (trial_path(first.directory, "gated", "calc-add", 1) / "result.json").read_bytes() == kept
    assert [r["trials"] for r in third.manifest.resumed] == [3, 1]


def test_resume_refuses_a_changed_corpus_or_configuration(calc_fast: Bench) -> None:
    first = calc_fast.run(variants=variants(noop=agent("noop")))
    with pytest.raises(UsageError, match="different trials"):
        calc_fast.run(resume=first.directory, trials=2)
    with pytest.raises(UsageError, match="different variants"):
        calc_fast.run(resume=first.directory, variants=variants(noop="true"))
    stored = calc_fast.corpus.load("calc-add")
    calc_fast.corpus.write(replace(stored.case, prompt="Something else.\n"), stored.files)
    with pytest.raises(UsageError, match="the corpus changed since the run was made"):
        calc_fast.run(resume=first.directory)
    with pytest.raises(UsageError, match="not a run directory"):
        calc_fast.run(resume=calc_fast.tmp_path)


def test_kill_9_at_any_moment_leaves_a_readable_resumable_run(calc_fast: Bench) -> None:
    results = calc_fast.results
    argv = [sys.executable, "-c", "from runner.cli import main; main()", "run", "--corpus",
            str(calc_fast.corpus.root), "--all", "--trials", "6", "--jobs", "3", "--results-dir", str(results),
            *SANDBOX_ARGS, "--agent", f"sleepy={agent('sleep', '0.3')}"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not any(results.glob("*/run.json")):
        time.sleep(0.02)
    (run_dir,) = [p for p in results.iterdir() if not p.name.startswith(".")]
    deadline = time.monotonic() + 60
    checks = 0
    while proc.poll() is None and time.monotonic() < deadline:  # read the run while it is being written
        loaded = load_run(run_dir)
        checks += 1
        if len(loaded.trials) >= 2:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.01)
    proc.wait()
    interrupted = load_run(run_dir)
    assert checks > 0 and 2 <= len(interrupted.trials) < 6 and interrupted.missing == 6 - len(interrupted.trials)
    resumed = calc_fast.run(resume=run_dir, agent_timeout=None)
    assert len(resumed.trials) == 6 and {t.outcome for t in resumed.trials} == {"fail"}
    assert not list(run_dir.glob("*/*/.*"))  # no staging left once resumed


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_ctrl_c_stops_every_agent_and_leaves_a_resumable_run(calc_fast: Bench, sandbox: str) -> None:
    token = hang_token()
    argv = [sys.executable, "-c", "from runner.cli import main; main()", "run", "--corpus",
            str(calc_fast.corpus.root), "--all", "--results-dir", str(calc_fast.results), "--sandbox", sandbox,
            *SANDBOX_ARGS, "--agent", f"hang={agent('hang', token)}"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(processes_with(token)) < 2:
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130 and err.strip().endswith("runner: interrupted")
    time.sleep(0.2)
    assert processes_with(token) == []
    (run_dir,) = [p for p in calc_fast.results.iterdir() if not p.name.startswith(".")]
    assert load_run(run_dir).missing == 1 and not list(run_dir.glob("*/*/[0-9]*"))
