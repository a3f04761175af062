"""`runner run --executor ray` on a real local Ray cluster: the same run directory as the local executor, a lost
worker's trial submitted again, Ctrl-C cancelling the cluster's tasks, and clear errors without a cluster."""

from __future__ import annotations

import json
import os
import secrets
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import Setup
from corpus.cli_support import run_cli
from corpus.errors import ExitCode, UsageError
from runner.cli import cli
from runner.envs.manage import prune_entries
from runner.runs.load import LoadedRun
from runner.runs.manifest import read_manifest
from runner.runs.result import trial_path
from runner.settings import Settings
from runner.verify.verify import VerifyOptions, verify
from tests.testing.httpcase import build_http_corpus
from tests.testing.raycluster import Cluster, start_cluster, stop_cluster, task_worker
from tests.testing.trialkit import (
    RUNNER_FOR_CTRL_C,
    SANDBOX_ARGS,
    Bench,
    agent,
    fixer_and_idle,
    processes_with,
    two_cases,
    variants,
)

pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    import ray

    running = start_cluster(tmp_path_factory.mktemp("r"))
    try:
        yield running
    finally:
        ray.shutdown()
        stop_cluster(running)


AGENTS = fixer_and_idle()
SAME = ("outcome", "reason", "mode", "case_fingerprint", "agent_exit_code", "agent_timed_out", "changed_files",
        "test_edits", "flags", "grader_outcome", "grader_reason", "grader_exit_code", "restored", "transcript_bytes")


def _record(run: LoadedRun) -> dict[tuple[str, str, int], tuple[object, ...]]:
    out = {}
    for result in run.trials:
        folder = trial_path(run.directory, result.variant, result.case_id, result.trial)
        data = json.loads((folder / "result.json").read_text())
        behaviour = json.loads((folder / "behaviour.json").read_text())
        out[(result.variant, result.case_id, result.trial)] = (
            tuple(data.get(k) for k in SAME), (folder / "candidate.patch").read_bytes(),
            (folder / "transcript.log").read_bytes(), behaviour)
    return out


def test_a_ray_run_is_the_local_run(tmp_path: Path, cluster: Cluster) -> None:
    bench = two_cases(tmp_path)
    local = bench.run(variants=variants(**AGENTS), trials=2, jobs=2)
    remote = bench.run(variants=variants(**AGENTS), trials=2, executor="ray",
                       ray_address=cluster.address)
    assert len(remote.trials) == 8 and _record(remote) == _record(local)
    assert [c.key for c in remote.cells if c.passes] == ["fixer::calc-add", "fixer::calc-add-again"]
    # The trials ran on the worker node, from the case's pack: its repository is there, once per case.
    repos = sorted(p.name for p in (cluster.worker_tmp / "hindcast-ray" / "repos").glob("*.git"))
    assert len(repos) == 1  # both cases share their commits, so their packs are one
    # Nothing of the worker's scratch is left over.
    assert not any((cluster.worker_tmp / "hindcast-ray" / "runs").iterdir())


def test_the_workers_of_one_node_share_its_environment_cache(tmp_path: Path, cluster: Cluster) -> None:
    """The node's two worker processes take trials of cases with one environment key at once: one build, every
    trial run, no worker waiting for another; once the trials end, no worker holds the entry."""
    bench = two_cases(tmp_path, setup=Setup(command='echo built >> "$UV_CACHE_DIR/builds"'))
    done: list[LoadedRun] = []
    runner = threading.Thread(target=lambda: done.append(bench.run(
        variants=variants(fixer=agent("fix")), trials=3, env_cache=tmp_path / "envs", executor="ray",
        ray_address=cluster.address)), daemon=True)
    runner.start()
    runner.join(240)  # a worker waiting for the other's exit never ends: the module's cluster ends it
    assert done, "the run did not end: a worker waited for another to let go of the environment"
    [run] = done
    assert [r.outcome for r in run.trials] == ["pass"] * 6
    assert sorted(r.env_cache or "" for r in run.trials) == ["hit"] * 5 + ["miss"]
    assert (tmp_path / "envs" / "downloads" / "uv" / "builds").read_text() == "built\n"
    # Idle workers hold nothing: the node's `runner env prune` can remove the entry between runs.
    pruned = prune_entries(tmp_path / "envs", everything=True)
    assert (len(pruned.removed), pruned.in_use) == (1, ())


def test_a_trial_whose_worker_dies_is_submitted_again(tmp_path: Path, cluster: Cluster,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    bench = two_cases(tmp_path)
    token = f"2.{secrets.randbelow(10**9):09d}"
    killed: list[int] = []

    def kill_the_first_worker() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            for pid in processes_with(token):
                worker = task_worker(pid)
                if worker is not None:
                    os.kill(worker, signal.SIGKILL)
                    killed.append(worker)
                    return
            time.sleep(0.1)

    killer = threading.Thread(target=kill_the_first_worker)
    killer.start()
    run = bench.run(variants=variants(slow=f"sleep {token} && {agent('fix')}"), case_ids=("calc-add",),
                    all_cases=False, trials=1, executor="ray", ray_address=cluster.address, retries=1)
    killer.join()
    assert killed, "the agent never started on the cluster"
    [result] = run.trials
    assert (result.outcome, result.reason) == ("pass", "grader exited 0")
    assert "slow::calc-add #1: lost (" in capsys.readouterr().err


def test_a_trial_lost_more_often_than_retried_is_an_error_not_a_fail(tmp_path: Path, cluster: Cluster) -> None:
    bench = two_cases(tmp_path)
    token = f"4.{secrets.randbelow(10**9):09d}"
    stop = threading.Event()

    def kill_every_worker() -> None:
        while not stop.is_set():
            for pid in processes_with(token):
                if (worker := task_worker(pid)) is not None:
                    os.kill(worker, signal.SIGKILL)
            time.sleep(0.1)

    killer = threading.Thread(target=kill_every_worker)
    killer.start()
    try:
        run = bench.run(variants=variants(slow=f"sleep {token} && {agent('fix')}"), case_ids=("calc-add",),
                        all_cases=False, trials=1, executor="ray",
                        ray_address=cluster.address, retries=1)
    finally:
        stop.set()
        killer.join()
    [result] = run.trials
    assert result.outcome == "error"
    assert result.reason.startswith("infrastructure: the trial could not be run in 2 attempts on the Ray cluster")


def test_ctrl_c_cancels_the_cluster_tasks_and_leaves_the_run_resumable(tmp_path: Path, cluster: Cluster) -> None:
    bench = two_cases(tmp_path)
    token = f"3000.{secrets.randbelow(10**9):09d}"
    proc = subprocess.Popen(
        [*RUNNER_FOR_CTRL_C, "run", "--corpus", str(bench.corpus.root), "--all",
         "--agent", f"hang=sleep {token}", "--results-dir", str(bench.results), "--executor", "ray",
         "--ray-address", cluster.address, *SANDBOX_ARGS],
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(processes_with(token)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert len(processes_with(token)) >= 2, "the agents never started on the cluster"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert "the run stays resumable: runner run --resume" in err and "--executor ray" in err
    deadline = time.monotonic() + 30
    while processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_with(token) == []
    [run_dir] = [p for p in bench.results.iterdir() if p.is_dir()]
    assert read_manifest(run_dir).digests == {}
    assert not any(run_dir.glob("hang/*/*/result.json"))


def test_jobs_no_node_can_take_are_said_to_wait_and_ctrl_c_stops_them(tmp_path: Path, cluster: Cluster) -> None:
    """--trial-cpus more than any node has: Ray would keep the tasks waiting for a node that never joins, silently;
    the driver says what they wait for, and Ctrl-C still stops the run."""
    bench = two_cases(tmp_path)
    proc = subprocess.Popen(
        [*RUNNER_FOR_CTRL_C, "run", "--corpus", str(bench.corpus.root), "--all", "--agent", "idle=true",
         "--results-dir", str(bench.results), "--executor", "ray", "--ray-address", cluster.address,
         "--trial-cpus", "64", *SANDBOX_ARGS],
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines: list[str] = []
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not any(line.startswith("waiting:") for line in lines):
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    [waiting] = [line for line in lines if line.startswith("waiting:")]
    assert waiting.startswith("waiting: no node of the Ray cluster can take a job: each asks for --trial-cpus 64, "
                              "the 2 live node(s) have at most 2 CPUs; "), waiting
    assert proc.returncode == ExitCode.INTERRUPTED, "".join(lines) + err


def test_without_a_cluster_or_with_regrade_nothing_is_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = two_cases(tmp_path)
    code = run_cli(cli, "runner", ["run", "--corpus", str(bench.corpus.root), "--all", "--agent", "idle=true",
                                   "--results-dir", str(bench.results), "--executor", "ray", "--ray-address",
                                   "127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == ExitCode.BAD_INPUT
    assert "runner: error: --ray-address 127.0.0.1:1: no Ray cluster answers there" in err
    assert not bench.results.exists() or not any(bench.results.iterdir())
    source = bench.run(variants=variants(idle=agent("noop")), trials=1, all_cases=True)
    with pytest.raises(UsageError, match="--executor ray: regrade grades the saved patches"):
        bench.run(mode="regrade", patch_from=source.directory, executor="ray", ray_address="x:1")
    code = run_cli(cli, "runner", ["run", "--corpus", str(bench.corpus.root), "--all", "--agent", "idle=true",
                                   "--trial-memory", "4G"])
    assert code == ExitCode.BAD_INPUT and "--trial-memory is for --executor ray" in capsys.readouterr().err


def test_without_ray_installed_the_error_says_how_to_get_it(tmp_path: Path) -> None:
    bench = two_cases(tmp_path)
    code = ("import sys; sys.modules['ray'] = None; from runner.cli import main; main()")
    proc = subprocess.run([sys.executable, "-c", code, "run", "--corpus", str(bench.corpus.root), "--all",
                           "--agent", "idle=true", "--executor", "ray", "--results-dir", str(bench.results)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == ExitCode.BAD_INPUT
    assert proc.stderr.strip().endswith("--executor ray needs Ray on this machine and on the cluster: "
                                        f"uv pip install --python {shlex.quote(sys.executable)} 'ray>=2.9'")
    assert "Traceback" not in proc.stderr


def test_verify_on_the_cluster_proves_the_cases_and_brings_the_logs_back(tmp_path: Path, cluster: Cluster) -> None:
    corpus, _ = build_http_corpus(tmp_path)
    options = VerifyOptions(settings=Settings(executor="ray", ray_address=cluster.address), repeats=2)
    [verdict] = verify(corpus, options).verdicts
    assert (verdict.verdict, verdict.reason) == ("VALID", "")
    assert sorted((a.side, a.outcome) for a in verdict.attempts) == [("baseline", "fail"), ("baseline", "fail"),
                                                                    ("oracle", "pass"), ("oracle", "pass")]
    # With the case's HTTP fixture served on the worker, its grader offline there too.
    run = Bench(tmp_path, corpus).run(variants=variants(fixer=agent("http_agent", "{prompt_file}")), trials=1,
                                      agent_network="none", executor="ray", ray_address=cluster.address)
    [result] = run.trials
    assert (result.outcome, result.reason) == ("pass", "grader exited 0")
    log = json.loads((trial_path(run.directory, "fixer", "http-notify", 1) / "http.json").read_text())
    assert [(r["phase"], r["path"]) for r in log["requests"]] == [
        ("agent", "/v1/users/42"), ("grader", "/v1/users/42"), ("grader", "/v1/events")]
    # An unexpected attempt's logs are kept in the corpus, as a local verify keeps them.
    stored = corpus.load("http-notify")
    corpus.write(replace(stored.case, grader=replace(stored.case.grader, command="exit 0")), stored.files)
    [broken] = verify(corpus, options).verdicts
    assert broken.verdict == "INVALID" and broken.logs is not None
    assert (Path(broken.logs) / "baseline-1" / "grader.log").is_file()
