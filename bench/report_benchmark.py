"""`runner import`, `report` and `compare` on a large imported run, timed as a user runs them.

    python bench/report_benchmark.py [--cases 4000] [--trials 5] [--scratch DIR] [--profile] [--repeat N]

Everything is written under a temp dir in --scratch (default: the system temp dir) and removed at the end. Two
JSONL files of CASES x TRIALS rows (fixed seed: a baseline and a candidate that passes a little less often; every
row with a reason, a cost, tokens, a title and a three-step trajectory, so each trial folder holds result.json
and transcript.log) are imported as two runs with the `runner` console script; then `runner report`, `runner
report --html`, `runner compare` and `runner compare --html` run on them. Printed: each command's wall and CPU
time (the best of --repeat runs; default 1) beside its target (import 10 s, report and compare 3 s), and the size of
each page and of the files beside it.

--profile also runs each step in this process under cProfile and prints its ten most expensive functions
(cumulative, in CPU seconds): load_run (digest audit, result.json parsing, aggregates), the digest audit alone, the import, the
terminal and HTML reports, the comparison and its page.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUNNER = Path(sys.executable).parent / "runner"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The commands' environment: bytecode cached as on a user's machine (the first run writes it)."""
TARGETS = {"import": 10.0, "report": 3.0, "report --html": 3.0, "compare": 3.0, "compare --html": 3.0}
"""Seconds each command may take on 20,000 trials."""


def write_rows(path: Path, cases: int, trials: int, pass_rate: float, seed: int) -> None:
    """CASES x TRIALS JSONL rows, the same for the same seed."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for c in range(cases):
            case_id = f"case-{c:05d}"
            for t in range(1, trials + 1):
                passed = rng.random() < pass_rate
                row = {"case_id": case_id, "trial": t, "passed": passed, "critical": c % 97 == 0,
                       "cost_usd": round(rng.uniform(0.01, 0.4), 4), "tokens": rng.randrange(2_000, 90_000),
                       "title": f"Fix {case_id}: the parser drops a trailing field",
                       "reason": "graded pass" if passed else f"fail-to-pass test did not pass: tests/test_{c}.py::test_t",
                       "trajectory": [{"tool": "read", "args": {"path": f"src/m{c}.py"}},
                                      {"tool": "edit", "args": {"path": f"src/m{c}.py", "old": "a", "new": "b"}},
                                      {"tool": "bash", "args": {"command": "pytest -q"}}]}
                out.write(json.dumps(row) + "\n")


def timed(args: list[str], repeat: int) -> tuple[float, float]:
    """The best wall time and CPU time (user + system) of running the `runner` console script with args (exit
    codes 0, 1 and 4 allowed: compare's WARN and BLOCK)."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([str(RUNNER), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              check=False, env=ENV)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1, 4):
            raise SystemExit(f"runner {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
        best = min(best, elapsed)
        best_cpu = min(best_cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best, best_cpu


def tree_size(path: Path) -> tuple[int, int]:
    """(files, bytes) under path; (0, 0) when it does not exist."""
    if not path.exists():
        return 0, 0
    files = [p for p in path.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def profile(label: str, call: Callable[[], object]) -> object:
    """Run call under cProfile and print its ten most expensive functions, cumulative."""
    profiler = cProfile.Profile(time.process_time)  # CPU time: the machine is shared
    started = time.process_time()
    value = profiler.runcall(call)
    elapsed = time.process_time() - started
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(12)
    lines = [line for line in text.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    print(f"\n--- profile: {label} ({elapsed:.2f} s of CPU under the profiler)")
    print("\n".join(lines[start:]))
    return value


def profile_steps(scratch: Path, baseline: Path, candidate: Path) -> None:
    """Each step in this process under cProfile."""
    from runner.gate.gate import CompareOptions, evaluate
    from runner.gate.pairing import load_trials, policy_for
    from runner.gate.quarantine import Quarantine
    from runner.report.compare_html import render_compare_html
    from runner.report.report import render_html, render_table
    from runner.runs.digests import audit_run
    from runner.runs.interop import import_rows
    from runner.runs.load import load_run
    from runner.runs.manifest import read_manifest

    profile("import (rows read, 44,000 files written)",
            lambda: import_rows(scratch / "base.jsonl", scratch / "profiled-import"))
    profile("digest audit", lambda: audit_run(baseline, read_manifest(baseline)).check())
    run = profile("load_run", lambda: load_run(baseline))
    profile("terminal report", lambda: render_table(run))  # type: ignore[arg-type]
    profile("HTML report", lambda: render_html(run, scratch / "profiled.html"))  # type: ignore[arg-type]

    def compared() -> object:
        base, cand = load_trials(baseline), load_trials(candidate)
        cases, source = policy_for(None, cand, base)
        return evaluate(base, cand, cases, Quarantine(), CompareOptions(), policy_source=source)

    report = profile("compare: both runs loaded and evaluated", compared)
    profile("compare HTML", lambda: render_compare_html(report, scratch / "profiled-compare.html"))  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=4000)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--scratch", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="report-bench-", dir=args.scratch))
    try:
        write_rows(scratch / "base.jsonl", args.cases, args.trials, 0.7, seed=1)
        write_rows(scratch / "cand.jsonl", args.cases, args.trials, 0.68, seed=2)
        baseline, candidate = scratch / "baseline", scratch / "candidate"
        times = {"import": timed(["import", str(scratch / "base.jsonl"), "--out", str(baseline)], 1)}
        timed(["import", str(scratch / "cand.jsonl"), "--out", str(candidate)], 1)
        files, size = tree_size(baseline)
        page, compare_page = scratch / "report.html", scratch / "compare.html"
        times["report"] = timed(["report", str(baseline)], args.repeat)
        times["report --html"] = timed(["report", str(baseline), "--html", str(page)], args.repeat)
        compare = ["compare", "--baseline", str(baseline), "--candidate", str(candidate)]
        times["compare"] = timed(compare, args.repeat)
        times["compare --html"] = timed([*compare, "--html", str(compare_page)], args.repeat)
        trials = args.cases * args.trials
        print(f"{args.cases} cases x {args.trials} trials = {trials} trials per run; the baseline run holds "
              f"{files} files, {size / 1e6:.1f} MB")
        for name, (seconds, cpu) in times.items():
            target = TARGETS[name]
            print(f"  runner {name:<15} {seconds:6.2f} s wall ({cpu:5.2f} s CPU)   target {target:4.1f} s   "
                  f"ratio {seconds / target:.2f}")
        for label, path in (("report page", page), ("compare page", compare_page)):
            beside = path.with_name(path.stem + "_files")
            extra_files, extra = tree_size(beside)
            print(f"  {label:<13} {path.stat().st_size / 1e6:6.2f} MB, beside it {extra_files} files, "
                  f"{extra / 1e6:.2f} MB")
        if args.profile:
            profile_steps(scratch, baseline, candidate)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
