"""What recording trial digests in run.json costs the run's main thread, per trial, side by side in one run.

    python bench/digest_benchmark.py [--trials 1000 10000] [--dir DIR]

For each size N, a run directory of N published trials (result.json as `runner run` writes them) is made under
DIR (default: the system temp dir). The run's completion loop is replayed: `DigestLedger.record` for every
trial, once rewriting run.json after every trial (interval 0) and once with the run's interval
(`WRITE_INTERVAL`), with the final flush counted. Printed per N: the mean and the last 10% of records (run.json
at its largest) in ms per trial, and `load_run`, which audits every trial against run.json.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.runs.digests import WRITE_INTERVAL, DigestLedger
from runner.runs.load import load_run
from runner.runs.manifest import RunConfig, RunManifest, Variant, read_manifest, write_manifest
from runner.runs.result import RESULT_FILE, Durations, TrialResult, trial_path

TRIALS_PER_CASE = 10


def make_run(root: Path, trials: int) -> tuple[Path, list[TrialResult]]:
    """A run of trials/10 cases x 10 trials, every trial published and none recorded."""
    cases = tuple(f"case-{number:05d}" for number in range(trials // TRIALS_PER_CASE))
    config = RunConfig("agent", TRIALS_PER_CASE, (Variant("default", "agent {workspace}"),), cases, 1800.0)
    run_dir = root / f"run-{trials}"
    run_dir.mkdir()
    write_manifest(run_dir, RunManifest("20260101T000000Z-beef", "2026-01-01T00:00:00+00:00", "d" * 64,
                                        {"fingerprint": "r" * 64}, config))
    results = []
    for case_id in cases:
        for number in range(1, TRIALS_PER_CASE + 1):
            result = TrialResult(case_id, "default", number, "fail", "grader: 1 test failed", "c" * 64,
                                 "2026-01-01T00:00:00+00:00", Durations(1.0, 20.0, 2.0, 23.0),
                                 agent_exit_code=0, grader_outcome="fail", grader_reason="1 test failed",
                                 grader_exit_code=1, changed_files=("src/app.py", "src/util.py"))
            folder = trial_path(run_dir, "default", case_id, number)
            folder.mkdir(parents=True)
            (folder / RESULT_FILE).write_text(result.to_json(), encoding="utf-8")
            results.append(result)
    return run_dir, results


def replay(run_dir: Path, results: list[TrialResult], interval: float) -> tuple[float, float]:
    """Mean ms per trial over all records (final flush included), and over the last tenth."""
    write_manifest(run_dir, replace(read_manifest(run_dir), digests={}))
    ledger = DigestLedger(run_dir, interval=interval)
    times = []
    for result in results:
        started = time.perf_counter()
        ledger.record(result)
        times.append(time.perf_counter() - started)
    started = time.perf_counter()
    ledger.flush()
    times[-1] += time.perf_counter() - started
    tail = times[-max(1, len(times) // 10):]
    return statistics.fmean(times) * 1000, statistics.fmean(tail) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hindcast-digest-bench-", dir=args.dir))
    try:
        print(f"{'trials':>7}  {'every trial: mean':>17}  {'last 10%':>8}  "
              f"{f'every {WRITE_INTERVAL:g} s: mean':>17}  {'last 10%':>8}  {'load_run':>8}  run.json")
        for trials in args.trials:
            run_dir, results = make_run(root, trials)
            each = replay(run_dir, results, 0.0)
            batched = replay(run_dir, results, WRITE_INTERVAL)
            started = time.perf_counter()
            load_run(run_dir)
            loaded = time.perf_counter() - started
            size = (run_dir / "run.json").stat().st_size
            print(f"{trials:>7}  {each[0]:>14.3f} ms  {each[1]:>5.3f} ms  {batched[0]:>14.3f} ms  "
                  f"{batched[1]:>5.3f} ms  {loaded:>6.2f} s  {size / 1024:.0f} KiB")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
