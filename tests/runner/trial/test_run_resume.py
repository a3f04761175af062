"""--resume runs only what is missing or errored, refuses a changed corpus or configuration, and kill -9 at
any moment leaves a readable run."""

from __future__ import annotations

import hashlib
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

from corpus.errors import UsageError
from runner.runs.digests import audit_run
from runner.runs.load import load_run
from runner.runs.manifest import read_manifest, write_manifest
from runner.runs.result import trial_path
from tests.testing.trialkit import (
    RUNNER_FOR_CTRL_C,
    SANDBOX_ARGS,
    Bench,
    agent,
    hang_token,
    processes_with,
    variants,
)


def test_resume_reruns_errored_and_unrecorded_trials_only(calc_fast: Bench,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # The agent fails (an error) until AGENT_READY is set, and also when its own trial folder is already there:
    # a resume removes the folder of every trial it runs again before running it. Unsandboxed, to see the folder.
    own_folder = shlex.quote(str(calc_fast.results)) + "/*/gated/calc-add/{trial}"
    command = f"test \"$AGENT_READY\" = yes && ! ls -d {own_folder} >/dev/null 2>&1 && {agent('fix')}"
    first = calc_fast.run(trials=3, variants=variants(gated=command), sandbox="none")
    assert [t.outcome for t in first.trials] == ["error"] * 3
    monkeypatch.setenv("AGENT_READY", "yes")
    second = calc_fast.run(resume=first.directory, sandbox="none")
    assert second.directory == first.directory and [t.outcome for t in second.trials] == ["pass"] * 3
    run_dir = first.directory
    folders = [trial_path(run_dir, "gated", "calc-add", t) for t in (1, 2, 3)]
    assert read_manifest(run_dir).digests == {
        f"gated/calc-add/{t}": hashlib.sha256((folders[t - 1] / "result.json").read_bytes()).hexdigest()
        for t in (1, 2, 3)}
    kept = (folders[0] / "result.json").read_bytes()
    # What a run killed between publishing trial 2 and recording it leaves: the folder, without its digest.
    manifest = read_manifest(run_dir)
    write_manifest(run_dir, replace(manifest, digests={k: v for k, v in manifest.digests.items()
                                                       if k != "gated/calc-add/2"}))
    with pytest.raises(UsageError, match=r"trial gated/calc-add/2: on disk but not recorded in run.json"):
        load_run(run_dir)
    third = calc_fast.run(resume=run_dir, variants=variants(gated=command), trials=3, sandbox="none")
    assert [t.outcome for t in third.trials] == ["pass"] * 3 and third.missing == 0
    assert (folders[0] / "result.json").read_bytes() == kept
    assert [r["trials"] for r in third.manifest.resumed] == [3, 1]
    assert set(third.manifest.digests) == {"gated/calc-add/1", "gated/calc-add/2", "gated/calc-add/3"}


def test_resume_refuses_a_run_whose_recorded_trials_changed_or_went(calc_fast: Bench) -> None:
    run_dir = calc_fast.run(trials=2, variants=variants(noop=agent("noop"))).directory
    result = trial_path(run_dir, "noop", "calc-add", 1) / "result.json"
    original = result.read_text()
    result.write_text(original.replace('"outcome": "fail"', '"outcome": "pass"'))
    with pytest.raises(UsageError, match=f"^{run_dir}: trial noop/calc-add/1: result.json does not match"):
        calc_fast.run(resume=run_dir)
    result.write_text(original)
    shutil.rmtree(trial_path(run_dir, "noop", "calc-add", 2))
    with pytest.raises(UsageError, match=f"^{run_dir}: trial noop/calc-add/2: recorded in run.json, but its "
                                         "result.json is gone"):
        calc_fast.run(resume=run_dir)
    assert len(read_manifest(run_dir).resumed) == 0  # refused before anything was written


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
    argv = [*RUNNER_FOR_CTRL_C, "run", "--corpus",
            str(calc_fast.corpus.root), "--all", "--trials", "6", "--jobs", "3", "--results-dir", str(results),
            *SANDBOX_ARGS, "--agent", f"sleepy={agent('sleep', '0.3')}"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not any(p for p in results.glob("*/run.json") if not p.parent.name.startswith(".")):  # published
        time.sleep(0.02)
    (run_dir,) = [p for p in results.iterdir() if not p.name.startswith(".")]
    deadline = time.monotonic() + 60
    checks = 0
    while proc.poll() is None and time.monotonic() < deadline:  # read the run while it is being written
        readable(run_dir)
        checks += 1
        if len(published(run_dir)) >= 2:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.01)
    proc.wait()
    readable(run_dir)
    audit = audit_run(run_dir, read_manifest(run_dir))
    states = [a.state for a in audit.trials]
    assert checks > 0 and 2 <= len(published(run_dir)) < 6 and not audit.problems(resuming=True)
    assert states.count("recorded") + states.count("unrecorded") == len(published(run_dir))
    resumed = calc_fast.run(resume=run_dir, agent_timeout=None)
    assert len(resumed.trials) == 6 and {t.outcome for t in resumed.trials} == {"fail"}
    assert len(resumed.manifest.digests) == 6
    assert not list(run_dir.glob("*/*/.*"))  # no staging left once resumed


def published(run_dir: Path) -> list[Path]:
    return list(run_dir.glob("*/*/[0-9]*/result.json"))


def readable(run_dir: Path) -> None:
    """Either the run reads whole, or the only thing wrong is a published trial not yet recorded."""
    try:
        load_run(run_dir)
    except UsageError as exc:
        assert "on disk but not recorded in run.json" in str(exc) and f"--resume {run_dir}" in str(exc)


@pytest.mark.parametrize(("sandbox", "signum"), [("bwrap", signal.SIGINT), ("none", signal.SIGINT),
                                                ("bwrap", signal.SIGTERM)])
def test_ctrl_c_stops_every_agent_and_leaves_a_resumable_run(calc_fast: Bench, sandbox: str, signum: int) -> None:
    token = hang_token()
    argv = [*RUNNER_FOR_CTRL_C, "run", "--corpus",
            str(calc_fast.corpus.root), "--all", "--results-dir", str(calc_fast.results), "--sandbox", sandbox,
            *SANDBOX_ARGS, "--agent", f"hang={agent('hang', token)}"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(processes_with(token)) < 2:
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=20)
    (run_dir,) = [p for p in calc_fast.results.iterdir() if not p.name.startswith(".")]
    last = err.strip().splitlines()[-1]
    assert proc.returncode == 130 and last.startswith("runner: interrupted; the run stays resumable: runner run ")
    resume = shlex.split(last.split(": ", 2)[2])
    assert resume[2:4] == ["--resume", str(run_dir.absolute())]
    assert ("--sandbox" in resume) == (sandbox == "none")
    time.sleep(0.2)
    assert processes_with(token) == []
    assert load_run(run_dir).missing == 1 and not list(run_dir.glob("*/*/[0-9]*"))
