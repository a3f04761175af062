"""Verify with a cold environment cache and a warm one, side by side in one run.

    python bench/verify_benchmark.py REPO [--candidates N] [--jobs J] [--scratch DIR] [--corpus DIR]

REPO is an existing git checkout of a real project (for example a clone of psf/requests); nothing is cloned.
`miner scan` proposes candidates into a fresh corpus under --scratch (default: the system temp dir), with
the setup it infers from each base commit; no setup is given by hand. (--corpus reuses a corpus already
scanned.) The N best-scored candidates are verified twice with the same new `--env-cache` directory:
first cold (every environment is built: an interpreter made by uv and the inferred setup command), then warm
(every environment is reused). Both runs are `runner verify --candidates --json` child processes exactly as
a user runs them; the verdicts must agree.

Printed: both wall times and their ratio (target: warm <= 1/4 of cold), the share of each run's attempt time
spent in setup (the attempts' `setup_duration` over their `duration`; target: under 10% of a warm verify), the
cache entries built, and how the cold run's attempts resolved (as of the fix's date, or today's).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from corpus import Corpus

MINER = [sys.executable, "-c", "from miner.cli import main; main()"]
RUNNER = [sys.executable, "-c", "from runner.cli import main; main()"]


def best_candidates(corpus: Path, count: int) -> list[str]:
    """Ids of the best-scored candidates (score, then the newest fix)."""
    stored = Corpus.open(corpus).load_all("candidates")
    cases = sorted((s.case for s in stored), key=lambda c: (c.mined.authored or "") if c.mined else "", reverse=True)
    cases.sort(key=lambda c: -(c.mined.score if c.mined else 0.0))  # stable: the newest first within a score
    return [case.id for case in cases[:count]]


def verify(corpus: Path, ids: list[str], cache: Path, jobs: int, scratch: Path) -> tuple[float, dict]:
    """One `runner verify --candidates --json` over ids: (wall seconds, its JSON document)."""
    cmd = [*RUNNER, "verify", "--corpus", str(corpus), "--candidates", "--jobs", str(jobs), "--json",
           "--env-cache", str(cache), *(arg for case_id in ids for arg in ("--case", case_id))]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                          env={**os.environ, "TMPDIR": str(scratch)})
    elapsed = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"runner verify failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    return elapsed, json.loads(proc.stdout)


def setup_share(document: dict) -> tuple[float, float]:
    """(setup seconds, attempt seconds) summed over every attempt."""
    attempts = [a for v in document["verdicts"] for a in v["attempts"]]
    return sum(a.get("setup_duration", 0.0) for a in attempts), sum(a["duration"] for a in attempts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="an existing git checkout of a real project")
    parser.add_argument("--candidates", type=int, default=8, help="best candidates to verify (default 8)")
    parser.add_argument("--jobs", type=int, default=2, help="verify --jobs (default 2)")
    parser.add_argument("--scratch", type=Path, default=None, help="where to write (default: system temp dir)")
    parser.add_argument("--corpus", type=Path, default=None, help="an already scanned corpus to reuse")
    args = parser.parse_args()
    repo = args.repo.resolve()
    with tempfile.TemporaryDirectory(prefix="hindcast-verify-bench-", dir=args.scratch) as tmp:
        scratch = Path(tmp)
        corpus = args.corpus.resolve() if args.corpus else scratch / "corpus"
        if args.corpus is None:
            started = time.perf_counter()
            subprocess.run([*MINER, "scan", "--repo", str(repo), "--corpus", str(corpus), "--full"],
                           check=True, stdout=subprocess.DEVNULL)
            print(f"scan of {repo}: {time.perf_counter() - started:.1f} s")
        ids = best_candidates(corpus, args.candidates)
        if not ids:
            raise SystemExit(f"{corpus}: no candidates to verify")
        cache = scratch / "env-cache"
        work = scratch / "work"
        work.mkdir()
        cold, cold_doc = verify(corpus, ids, cache, args.jobs, work)
        warm, warm_doc = verify(corpus, ids, cache, args.jobs, work)
        entries = len([p for p in (cache / "entries").iterdir() if p.is_dir()]) if cache.is_dir() else 0
        shutil.rmtree(cache, ignore_errors=True)
    verdicts = {v["case_id"]: v["verdict"] for v in cold_doc["verdicts"]}
    warm_verdicts = {v["case_id"]: v["verdict"] for v in warm_doc["verdicts"]}
    counts = Counter(verdicts.values())
    cold_setup, cold_total = setup_share(cold_doc)
    warm_setup, warm_total = setup_share(warm_doc)
    print(f"{len(ids)} best candidates of {repo.name}, --jobs {args.jobs}: "
          + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
          + f"; {entries} cache entr{'y' if entries == 1 else 'ies'}")
    print(f"  cold cache   {cold:7.1f} s   setup {cold_setup / max(cold_total, 1e-9):5.1%} of attempt time")
    print(f"  warm cache   {warm:7.1f} s   setup {warm_setup / max(warm_total, 1e-9):5.1%} of attempt time "
          f"(target < 10%)")
    print(f"  warm / cold  {warm / cold:7.3f}     (target <= 0.25)")
    resolved = Counter(a.get("resolution", "").split(";")[0].split(" (")[0].split(" 20")[0] or "nothing with uv"
                       for v in cold_doc["verdicts"] for a in v["attempts"])
    print("  resolution   " + ", ".join(f"{n} {k}" for k, n in sorted(resolved.items())))
    if verdicts != warm_verdicts:
        changed = [k for k in verdicts if verdicts[k] != warm_verdicts.get(k)]
        print(f"  verdicts differ between the runs: {', '.join(changed)}")
    for v in cold_doc["verdicts"]:
        print(f"    {v['verdict']:<7} {v['case_id']}  {v['reason'][:100]}")


if __name__ == "__main__":
    main()
