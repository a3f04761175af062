"""Trial overhead, measured side by side in one run.

    python bench/trial_benchmark.py REPO [--trials N] [--rounds R] [--scratch DIR]

REPO is an existing git checkout (for example a clone of psf/requests); nothing is cloned or fetched. A corpus
with cases over REPO's HEAD~1 (fix HEAD) is made in a temp dir under --scratch (default: the system temp dir),
graded by `true`; the archives, workspaces and results are written there too.

1. Harness time per trial with a no-op agent (`true`) and a trivial grader (`true`), as a ratio to a plain
   `git archive HEAD~1 | tar -x` of the same tree (target <= 4x). Every trial runs agent and grader in the
   bubblewrap sandbox and grades the patch in a fresh workspace; the same run with `--sandbox none` is shown
   beside it. Measured two ways: N trials of one case (the case's template is built once and reused, the usual
   run) and one trial of each of N cases (a template per trial, the worst case). Each round times N archives
   and the runs back to back; medians over rounds. The CPU per trial of the first way (the harness's own, user
   and system, and its child processes': bwrap, the shells, git) is printed beside it: on a machine busy with
   other work it moves far less than the wall time.
2. Wall time of 16 trials of an agent that sleeps 2 s, with --jobs 8, as a ratio to 2 s (target <= 2.5; two
   waves of 8 make 2.0 the floor); the median of three runs.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from corpus import Case, CaseFiles, Corpus, Grader
from runner.runs.manifest import Variant
from runner.settings import Settings
from runner.trial.plan import RunOptions
from runner.trial.run import run


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def make_corpus(root: Path, repo: Path, cases: int) -> Corpus:
    base, fix = git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")
    corpus = Corpus.init(root, "bench", repo=str(repo))
    for number in range(cases):
        case = Case(id=f"case-{number:02d}", title="benchmark", prompt="Nothing to do.\n", base_commit=base,
                    fix_commit=fix, grader=Grader(command="true", timeout=60))
        corpus.write(case, CaseFiles.of(b"", {}))
    return corpus


def time_archive(repo: Path, scratch: Path) -> float:
    dest = Path(tempfile.mkdtemp(dir=scratch))
    started = time.perf_counter()
    subprocess.run(f"git archive HEAD~1 | tar -x -C {dest}", shell=True, cwd=repo, check=True)
    elapsed = time.perf_counter() - started
    shutil.rmtree(dest)
    return elapsed


def cpu_seconds() -> tuple[float, float]:
    """CPU seconds so far of this process and of its waited-for children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def time_run(corpus: Corpus, scratch: Path, options: RunOptions, cpu: list[tuple[float, float]] | None = None) -> float:
    started, before = time.perf_counter(), cpu_seconds()
    loaded = run(corpus, options)
    elapsed = time.perf_counter() - started
    if cpu is not None:
        after = cpu_seconds()
        cpu.append((after[0] - before[0], after[1] - before[1]))
    outcomes = {t.outcome for t in loaded.trials}
    if outcomes != {"pass"}:
        raise SystemExit(f"benchmark trials did not all pass: {[t.reason for t in loaded.trials][:3]}")
    shutil.rmtree(loaded.directory)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="an existing git checkout, e.g. a clone of psf/requests")
    parser.add_argument("--trials", type=int, default=10, help="trials per round (default 10)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--scratch", type=Path, default=None, help="where to write (default: system temp dir)")
    args = parser.parse_args()
    repo = args.repo.resolve()
    n = args.trials
    files = git(repo, "ls-tree", "-r", "--name-only", "HEAD~1").count("\n") + 1
    size = sum(int(line.split()[3]) for line in git(repo, "ls-tree", "-r", "-l", "HEAD~1").splitlines()
               if line.split()[3] != "-")
    with tempfile.TemporaryDirectory(prefix="hindcast-bench-", dir=args.scratch) as tmp:
        scratch = Path(tmp)
        one_case = make_corpus(scratch / "one", repo, 1)
        many_cases = make_corpus(scratch / "many", repo, n)
        common = {"results_dir": scratch / "results", "scratch_root": scratch / "work"}
        noop = (Variant("noop", "true"),)
        archive, amortized, unconfined, per_case = [], [], [], []
        cpu: list[tuple[float, float]] = []
        for _ in range(args.rounds):
            archive.append(statistics.median(time_archive(repo, scratch) for _ in range(n)))
            amortized.append(time_run(one_case, scratch, RunOptions(all_cases=True, trials=n, variants=noop,
                                                                    **common), cpu) / n)
            unconfined.append(time_run(one_case, scratch, RunOptions(all_cases=True, trials=n, variants=noop,
                                                                     settings=Settings(sandbox="none"), **common)) / n)
            per_case.append(time_run(many_cases, scratch, RunOptions(all_cases=True, variants=noop, **common)) / n)
        sleepy_runs = [time_run(one_case, scratch, RunOptions(all_cases=True, trials=16, settings=Settings(jobs=8),
                                                              variants=(Variant("sleep", "sleep 2"),), **common))
                       for _ in range(3)]
        sleepy = statistics.median(sleepy_runs)
    a, t1, tn = statistics.median(archive), statistics.median(amortized), statistics.median(per_case)
    ratios_1 = statistics.median(t / x for t, x in zip(amortized, archive, strict=True))
    ratios_n = statistics.median(t / x for t, x in zip(per_case, archive, strict=True))
    ratios_u = statistics.median(t / x for t, x in zip(unconfined, archive, strict=True))
    tu = statistics.median(unconfined)
    print(f"repository {repo} at HEAD~1 {git(repo, 'rev-parse', '--short', 'HEAD~1')}: "
          f"{files} files, {size / 1e6:.1f} MB; {n} trials x {args.rounds} rounds; scratch {scratch.parent}")
    print(f"  git archive | tar -x                          {a * 1000:7.1f} ms")
    print(f"  harness per trial, {n} trials of one case      {t1 * 1000:7.1f} ms   {ratios_1:4.2f}x archive "
          f"(target <= 4x; sandboxed setup, agent and grader, fresh grading workspace)")
    own, children = (statistics.median(c[i] for c in cpu) / n for i in (0, 1))
    print(f"  CPU per trial of those: harness {own * 1000:.1f} ms, child processes {children * 1000:.1f} ms")
    print(f"  the same with --sandbox none                  {tu * 1000:7.1f} ms   {ratios_u:4.2f}x archive")
    print(f"  harness per trial, 1 trial of each of {n} cases {tn * 1000:7.1f} ms   {ratios_n:4.2f}x archive")
    print(f"  16 trials of a 2 s agent, --jobs 8            {sleepy:7.2f} s    {sleepy / 2:4.2f}x 2 s "
          f"(target <= 2.5; runs {', '.join(f'{r:.2f}' for r in sleepy_runs)} s)")


if __name__ == "__main__":
    main()
