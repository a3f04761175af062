"""Verify with a cold environment cache and a warm one, side by side in one run.

    python bench/verify_benchmark.py REPO [--candidates N] [--since YYYY-MM-DD] [--jobs J] [--scratch DIR]
                                          [--corpus DIR] [--truth FILE] [--keep]

REPO is an existing git checkout of a real project (for example a clone of psf/requests); nothing is cloned.
`miner scan` proposes candidates into a fresh corpus under --scratch (default: the system temp dir), with
the setup it infers from each base commit; no setup is given by hand. (--corpus reuses a corpus already
scanned.) The N best-scored candidates are verified twice with the same new `--env-cache` directory:
first cold (every environment is built: an interpreter made by uv and the inferred setup command), then warm
(every environment is reused). Both runs are `runner verify --candidates --json` child processes exactly as
a user runs them; the verdicts must agree. With --since the candidates are verify's own selection,
`--top N --since DATE` (the N best-scored fixes authored on or after DATE), as a user picks the recent ones.

Cold is a new cache directory: no entries, no resolution decisions and empty download caches (uv's and pip's
live in the cache directory), so every package is fetched from the index again. Python interpreters uv has
installed (outside the cache) stay, as on any machine that ran uv before. With --downloads-kept a third run
follows the warm one with the entries and resolution decisions removed but the download caches kept: a cold
verify that needs no download, which tells building apart from fetching.

Printed: both wall times and their ratio (target: cold <= 2x warm, setup nearly free), the share of each run's
attempt time spent in setup (the attempts' `setup_duration` over their `duration`), the cache entries built, how
the cold run's attempts resolved (as of the fix's date, or today's), and with --truth the VALID rate against a
truth checked by hand: a JSON object mapping each candidate id to {"valid": true|false, "reason": "one line"}
(target: every truly good candidate VALID, none falsely VALID). A candidate missing from the truth is named.
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


def verify(corpus: Path, selection: list[str], cache: Path, jobs: int, scratch: Path) -> tuple[float, dict]:
    """One `runner verify --candidates --json` of the selection (its arguments): (wall seconds, its JSON)."""
    cmd = [*RUNNER, "verify", "--corpus", str(corpus), "--candidates", "--jobs", str(jobs), "--json",
           "--env-cache", str(cache), *selection]
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


def truth_lines(truth_file: Path, verdicts: dict[str, str]) -> list[str]:
    """The VALID rate against a hand-checked truth: truly good ones VALID, falsely VALID ones, each wrong one."""
    truth = json.loads(truth_file.read_text())
    good = [k for k in verdicts if k in truth and truth[k]["valid"]]
    bad = [k for k in verdicts if k in truth and not truth[k]["valid"]]
    hits = [k for k in good if verdicts[k] == "VALID"]
    false_valid = [k for k in bad if verdicts[k] == "VALID"]
    lines = [(f"  truth        {len(hits)} of {len(good)} truly good VALID (target: all), "
              f"{len(false_valid)} of {len(bad)} not good falsely VALID (target: 0)")]
    lines += [f"    wrong: {k} {verdicts[k]}, truly {'good' if truth[k]['valid'] else 'not'}: {truth[k]['reason']}"
              for k in verdicts if k in truth and (verdicts[k] == "VALID") != truth[k]["valid"]]
    lines += [f"    no truth for {k}" for k in verdicts if k not in truth]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="an existing git checkout of a real project")
    parser.add_argument("--candidates", type=int, default=8, help="best candidates to verify (default 8)")
    parser.add_argument("--jobs", type=int, default=2, help="verify --jobs (default 2)")
    parser.add_argument("--scratch", type=Path, default=None, help="where to write (default: system temp dir)")
    parser.add_argument("--corpus", type=Path, default=None, help="an already scanned corpus to reuse")
    parser.add_argument("--since", default=None, metavar="YYYY-MM-DD",
                        help="verify's --top N --since DATE selection instead of the N best of all history")
    parser.add_argument("--truth", type=Path, default=None, help="hand-checked truth (JSON): the VALID rate")
    parser.add_argument("--downloads-kept", action="store_true",
                        help="a third run: entries and resolutions removed, download caches kept")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory (its path is printed)")
    args = parser.parse_args()
    repo = args.repo.resolve()
    if args.truth is not None:
        json.loads(args.truth.read_text())  # a bad truth file fails before the long runs
    tmp = tempfile.mkdtemp(prefix="hindcast-verify-bench-", dir=args.scratch)
    try:
        scratch = Path(tmp)
        corpus = args.corpus.resolve() if args.corpus else scratch / "corpus"
        if args.corpus is None:
            started = time.perf_counter()
            subprocess.run([*MINER, "scan", "--repo", str(repo), "--corpus", str(corpus), "--full"],
                           check=True, stdout=subprocess.DEVNULL)
            print(f"scan of {repo}: {time.perf_counter() - started:.1f} s")
        if args.since is None:
            ids = best_candidates(corpus, args.candidates)
            if not ids:
                raise SystemExit(f"{corpus}: no candidates to verify")
            selection = [arg for case_id in ids for arg in ("--case", case_id)]
        else:
            selection = ["--top", str(args.candidates), "--since", args.since]
        cache = scratch / "env-cache"
        work = scratch / "work"
        work.mkdir()
        cold, cold_doc = verify(corpus, selection, cache, args.jobs, work)
        warm, warm_doc = verify(corpus, selection, cache, args.jobs, work)
        entries = len([p for p in (cache / "entries").iterdir() if p.is_dir()]) if cache.is_dir() else 0
        (scratch / "cold.json").write_text(json.dumps(cold_doc, indent=1))
        (scratch / "warm.json").write_text(json.dumps(warm_doc, indent=1))
        kept: tuple[float, dict] | None = None
        if args.downloads_kept:
            for sub in ("entries", "resolutions", "locks"):
                shutil.rmtree(cache / sub, ignore_errors=True)
            kept = verify(corpus, selection, cache, args.jobs, work)
            (scratch / "downloads-kept.json").write_text(json.dumps(kept[1], indent=1))
    finally:
        if args.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    ids = [v["case_id"] for v in cold_doc["verdicts"]]
    if not ids:
        raise SystemExit(f"{corpus}: no candidates to verify")
    verdicts = {v["case_id"]: v["verdict"] for v in cold_doc["verdicts"]}
    warm_verdicts = {v["case_id"]: v["verdict"] for v in warm_doc["verdicts"]}
    counts = Counter(verdicts.values())
    cold_setup, cold_total = setup_share(cold_doc)
    warm_setup, warm_total = setup_share(warm_doc)
    since = f" authored since {args.since}" if args.since else ""
    print(f"{len(ids)} best candidates{since} of {repo.name}, --jobs {args.jobs}, "
          f"load average {os.getloadavg()[0]:.1f} at the end: "
          + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
          + f"; {entries} cache entr{'y' if entries == 1 else 'ies'}")
    print(f"  cold cache   {cold:7.1f} s   setup {cold_setup / max(cold_total, 1e-9):5.1%} of attempt time")
    print(f"  warm cache   {warm:7.1f} s   setup {warm_setup / max(warm_total, 1e-9):5.1%} of attempt time")
    print(f"  cold / warm  {cold / warm:7.2f}     (target <= 2)")
    if kept is not None:
        kept_setup, kept_total = setup_share(kept[1])
        print(f"  downloads kept {kept[0]:5.1f} s   setup {kept_setup / max(kept_total, 1e-9):5.1%} of attempt time, "
              f"{kept[0] / warm:.2f}x warm (entries and resolutions removed)")
    resolved = Counter(a.get("resolution", "").split(";")[0].split(" (")[0].split(" 20")[0] or "nothing with uv"
                       for v in cold_doc["verdicts"] for a in v["attempts"])
    print("  resolution   " + ", ".join(f"{n} {k}" for k, n in sorted(resolved.items())))
    if verdicts != warm_verdicts:
        changed = [k for k in verdicts if verdicts[k] != warm_verdicts.get(k)]
        print(f"  verdicts differ between the runs: {', '.join(changed)}")
    if args.truth is not None:
        print("\n".join(truth_lines(args.truth, verdicts)))
    for v in cold_doc["verdicts"]:
        print(f"    {v['verdict']:<7} {v['case_id']}  {v['reason'][:100]}")


if __name__ == "__main__":
    main()
