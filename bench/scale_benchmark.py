"""Trials on a Ray cluster against the local executor, measured side by side in one run.

    python bench/scale_benchmark.py REPO [--trials N] [--sleep S] [--scratch DIR]

REPO is an existing git checkout (for example a clone of psf/requests); nothing is cloned or fetched. Everything
is written under a temp dir in --scratch (default: the system temp dir), the Ray cluster's files included.

A real local Ray cluster is started there: a head that runs no trial and two worker nodes of one CPU each, every
node with a temp dir of its own (so nothing is shared with the driver). Then, with the same parallelism (2):

1. N trials (default 32: 4 cases over REPO's HEAD~1, fix HEAD, N/4 trials each) of an agent that sleeps S seconds
   (default 2) and a trivial grader (`true`), on the local executor (--jobs 2) and on the cluster. Printed: each
   wall time as a ratio to the ideal N x S / 2 (target for Ray <= 1.3x), and the overhead per trial beyond the
   agent's sleep (pack shipping, workspace, sandbox, grading, result streaming).
2. 16 trials of a real pytest grader on a small repository (the fixing agent of the test suite), local against
   Ray (target: Ray <= 1.3x local).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.trial_benchmark import git, make_corpus
from corpus import Corpus
from runner.executors.packs import build_pack
from runner.executors.ray_executor import connect
from runner.runs.manifest import Variant
from runner.settings import Settings
from runner.trial.plan import RunOptions
from runner.trial.run import run
from tests.testing.casefactory import build_corpus
from tests.testing.raycluster import start_cluster, stop_cluster

WORKERS = 2


def timed(corpus: Corpus, options: RunOptions) -> tuple[float, int]:
    started = time.perf_counter()
    loaded = run(corpus, options)
    elapsed = time.perf_counter() - started
    bad = [t for t in loaded.trials if t.outcome == "error"]
    if bad:
        raise SystemExit(f"a trial ended in error: {bad[0].reason}")
    folders = sum(p.stat().st_size for p in loaded.directory.rglob("*") if p.is_file())
    return elapsed, folders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", type=Path)
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--sleep", type=float, default=2.0)
    parser.add_argument("--scratch", type=Path, default=None)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="hs", dir=args.scratch))  # short: Ray's socket paths live under it
    cluster = start_cluster(scratch / "r", worker_cpus=1, workers=WORKERS)
    try:
        ray = Settings(jobs=WORKERS, executor="ray", ray_address=cluster.address)
        connect(ray)
        cases = 4
        corpus = make_corpus(scratch / "evals", args.repo.resolve(), cases)
        base = RunOptions(all_cases=True, trials=args.trials // cases, variants=(Variant("sleep", f"sleep {args.sleep:g}"),),
                          settings=Settings(jobs=WORKERS), results_dir=scratch / "results",
                          scratch_root=scratch / "tmp", agent_timeout=120)
        head = git(args.repo, "rev-parse", "HEAD")
        pack = build_pack(args.repo.resolve(), (git(args.repo, "rev-parse", "HEAD~1"), head))
        trials = (args.trials // cases) * cases
        ideal = trials * args.sleep / WORKERS
        local, _ = timed(corpus, base)
        remote, streamed = timed(corpus, replace(base, settings=ray))
        print(f"{trials} trials of a {args.sleep:g} s agent, trivial grader, parallelism {WORKERS} "
              f"(Ray: {WORKERS} worker nodes of 1 CPU); ideal {ideal:.1f} s")
        print(f"  local executor --jobs {WORKERS}: {local:6.1f} s  {local / ideal:.2f}x ideal  "
              f"overhead {(local - ideal) * WORKERS / trials:.2f} s/trial")
        print(f"  ray executor:             {remote:6.1f} s  {remote / ideal:.2f}x ideal  "
              f"overhead {(remote - ideal) * WORKERS / trials:.2f} s/trial  (target <= 1.3x ideal)")
        print(f"  shipped: one pack of {len(pack.data) / 1024:.0f} KiB per case (once per node), "
              f"{streamed / trials / 1024:.1f} KiB of trial folder streamed back per trial")
        real = build_corpus(scratch / "real")[0]
        binds = (ROOT / "tests" / "testing" / "agents", Path(sys.prefix))
        grader_options = RunOptions(all_cases=True, trials=16, agent_timeout=120,
                                    variants=(Variant("fixer", f"{sys.executable} {ROOT}/tests/testing/agents/fix.py"),),
                                    results_dir=scratch / "real-results", scratch_root=scratch / "tmp",
                                    settings=Settings(jobs=WORKERS, agent_binds=binds))
        real_local, _ = timed(real, grader_options)
        real_remote, _ = timed(real, replace(grader_options, settings=replace(ray, agent_binds=binds)))
        print(f"16 trials graded by pytest: local {real_local:.1f} s, ray {real_remote:.1f} s: "
              f"ray {real_remote / real_local:.2f}x local (target <= 1.3x)")
    finally:
        import ray

        ray.shutdown()
        stop_cluster(cluster)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
