"""Benchmark `miner scan` against `git log --no-merges -p` and a naive pydriller traversal, side by side.

Usage: python bench/scan_benchmark.py REPO_PATH [--repeat 3] [--naive-limit 300] [--tmp DIR]
                                       [--memory DIR]

The scan runs as a child process exactly as a user runs it (`miner scan --repo REPO --corpus TMP`, candidates
written into a fresh temp corpus each time), once with the corpus on disk (--tmp, default the system temp dir)
and once in memory (--memory, default /dev/shm where it exists; `--memory ''` skips it). `git log --no-merges -p`
runs over the same history with its output thrown away. The naive traversal walks the same history with
pydriller and reads every modified file's diff and source; it is capped at --naive-limit commits and
extrapolated linearly, which the output says. The runs alternate, and each reports the median of its runs.
Peak memory is printed beside the ratio for both: the largest maximum resident set of any run of the scan and
of `git log -p` (for the scan, Linux reports the largest of its process and its waited-for git children, not
their sum). The CPU of each of a scan's processes (its Python, its forked writer, each git command) is read from
/proc while it runs and printed by role, with the scan's Python CPU over `git log -p`'s: the critical path, which
the wall ratio tends to on a machine where git and the writer have cores of their own. Nothing is cloned.

Both places are measured because the cost of creating the scan's ~3,300 files and directories depends on the
file system's recent history as much as on the scan: on ext4 without a journal a new inode is allocated past
every inode of its group deleted in the last minutes, so a scan right after a large deletion nearby (another
run's cleanup, a test suite's temp files) pays several times more for each. In memory the figure is the scan's
own work; the file-creation probe says what the disk run paid.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCAN = [sys.executable, "-c", "from miner.cli import main; main()", "scan"]


CPU: dict[str, list[float]] = {"scan": [], "git log": []}
"""CPU seconds (user + system, waited-for children included) of each run, by what ran."""


ROLES: dict[str, list[float]] = {}
"""CPU seconds of each process of a scan, by its role (`role_of`), one entry per run."""
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
SAMPLE = 0.02
"""Seconds between two looks at a scan's processes in /proc."""
DISCOVER = 10
"""Every DISCOVER-th look finds the scan's new processes (a git process that lives less than that may be missed)."""


def role_of(pid: int, main: int, cmdline: bytes) -> str:
    """What one process of a scan is: the scan's own Python, its forked writer, or which git command."""
    if pid == main:
        return "scan's Python"
    words = cmdline.split(b"\0")
    if b"git" not in words[0]:
        return "writer (forked Python)"
    for command in (b"diff-tree", b"patch-id", b"cat-file", b"log", b"ls-tree", b"rev-list"):
        if command in words:
            return f"git {command.decode()}"
    return "git, other"


def sample_processes(main: int, seen: dict[int, tuple[str, float]], discover: bool) -> None:
    """Record the CPU so far (user + system, its own) of main and each descendant, by pid, from /proc: those
    already seen, and when discover is set, every process of /proc whose parent is among them (a full look
    costs ~1.7 ms here, the seen ones a tenth of that)."""
    pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()] if discover else [main, *seen]
    stats: dict[int, tuple[int, float]] = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
            stats[pid] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK)
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile: its last figure stands
    family = {main, *seen}
    grown = discover
    while grown:  # children of the family join it, and theirs
        grown = False
        for pid, (parent, _) in stats.items():
            if parent in family and pid not in family:
                family.add(pid)
                grown = True
    for pid in family & stats.keys():
        if pid not in seen:
            try:
                seen[pid] = (role_of(pid, main, Path(f"/proc/{pid}/cmdline").read_bytes()), 0.0)
            except OSError:
                continue
        seen[pid] = (seen[pid][0], stats[pid][1])


def timed_child(cmd: list[str], cwd: Path | None = None, what: str = "scan") -> tuple[float, int, int]:
    """Run cmd with stdout discarded; return (wall seconds, exit code, peak RSS in KiB); its CPU time goes to
    CPU[what]. A scan's processes are looked at in /proc every SAMPLE seconds; their CPU goes to ROLES (a
    process's last ~20 ms can be missed, its own Python's not: it is read once more after it exits)."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen: dict[int, tuple[str, float]] = {}
    sampled = what == "scan" and Path("/proc/self/task").is_dir()
    looks = 0
    while sampled:
        # WNOWAIT leaves the exited scan a zombie, whose stat still holds its final CPU time.
        if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            sample_processes(proc.pid, seen, discover=False)
            break
        sample_processes(proc.pid, seen, discover=looks % DISCOVER == 0)
        looks += 1
        time.sleep(SAMPLE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    if sampled:
        by_role: dict[str, float] = {}
        for role, cpu in seen.values():
            by_role[role] = by_role.get(role, 0.0) + cpu
        for role, cpu in by_role.items():
            ROLES.setdefault(role, []).append(cpu)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        raise SystemExit(f"{' '.join(cmd[:4])}... failed ({proc.returncode}): {err.strip()}")
    if proc.stderr:
        proc.stderr.close()
    CPU[what].append(usage.ru_utime + usage.ru_stime)
    return elapsed, proc.returncode, usage.ru_maxrss


def run_scan(repo: Path, scratch: Path) -> tuple[float, int, int]:
    """One scan into a fresh corpus under scratch: (seconds, candidates written, peak RSS KiB)."""
    corpus = Path(tempfile.mkdtemp(prefix="run-", dir=scratch)) / "evals"
    seconds, _, rss = timed_child([*SCAN, "--repo", str(repo), "--corpus", str(corpus)])
    candidates = corpus / "candidates"
    written = len([p for p in candidates.iterdir() if not p.name.startswith(".")]) if candidates.is_dir() else 0
    return seconds, written, rss


def run_git_log(repo: Path) -> tuple[float, int]:
    """`git log --no-merges -p` over HEAD's history, output to /dev/null: (seconds, peak RSS KiB)."""
    seconds, _, rss = timed_child(["git", "-C", str(repo), "log", "--no-merges", "-p", "HEAD"], what="git log")
    return seconds, rss


def run_naive(repo: Path, limit: int) -> tuple[float, int, str | None]:
    """pydriller over HEAD's history reading every modified file's diff and source: (seconds, commits, the
    error that stopped it early, if one did: a partial clone lacks objects pydriller asks for)."""
    from pydriller import Repository

    started = time.perf_counter()
    count = 0
    try:
        for commit in Repository(str(repo)).traverse_commits():
            for modified in commit.modified_files:
                _ = modified.diff
                _ = modified.source_code
            count += 1
            if count >= limit:
                break
    except Exception as error:  # noqa: BLE001 (reported with the figure, which then covers fewer commits)
        return time.perf_counter() - started, count, f"{type(error).__name__}: {str(error)[:120]}"
    return time.perf_counter() - started, count, None


def creation_cost(scratch: Path, count: int = 300) -> float:
    """Milliseconds to create one small file in a new directory under scratch (the file system's state).

    On ext4 without a journal, every new inode is allocated past the group's recently deleted inodes (the
    kernel's `recently_deleted`, minutes after a deletion), so creating files right after a big deletion
    nearby costs several times more than usual; this probe shows what the runs below paid.
    """
    probe = scratch / "probe"
    probe.mkdir()
    started = time.perf_counter()
    for index in range(count):
        fd = os.open(probe / f"f{index}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, b"x" * 512)
        os.close(fd)
    return (time.perf_counter() - started) * 1000 / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, help="repository to scan (not cloned, not modified)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the scan and of git log (median kept)")
    parser.add_argument("--naive-limit", type=int, default=300,
                        help="commits the naive traversal reads before extrapolating (0 = all)")
    parser.add_argument("--tmp", type=Path, help="where the temp corpora go (default: the system temp dir)")
    parser.add_argument("--memory", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir() else None,
                        help="a memory file system for the in-memory runs (default /dev/shm; '' to skip them)")
    args = parser.parse_args()
    memory = args.memory if args.memory and str(args.memory) not in ("", ".") else None
    repo = args.repo.resolve()
    total = int(subprocess.run(["git", "-C", str(repo), "rev-list", "--count", "HEAD"], capture_output=True,
                               check=True, text=True).stdout)
    no_merges = int(subprocess.run(["git", "-C", str(repo), "rev-list", "--count", "--no-merges", "HEAD"],
                                   capture_output=True, check=True, text=True).stdout)
    run_git_log(repo)  # warm the page cache once so no one run pays for it
    CPU["git log"].clear()
    # Bytecode compiled once, as `pip install` does: a run must not pay for compiling our sources (which every
    # run would under PYTHONDONTWRITEBYTECODE, set in some environments).
    root = Path(__file__).resolve().parent.parent
    for package in ("corpus", "miner"):
        compileall.compile_dir(root / package, quiet=1)
    scans, in_memory, logs, rss, log_rss, written = [], [], [], 0, 0, 0
    # Corpora are removed only after the last run: a deletion's deferred file-system work must not land
    # inside the next measured scan.
    scratch = Path(tempfile.mkdtemp(prefix="hindcast-bench-", dir=args.tmp))
    held = Path(tempfile.mkdtemp(prefix="hindcast-bench-", dir=memory)) if memory else None
    try:
        probe_ms = creation_cost(scratch)
        for _ in range(args.repeat):
            seconds, written, peak = run_scan(repo, scratch)
            scans.append(seconds)
            rss = max(rss, peak)
            seconds, peak = run_git_log(repo)
            logs.append(seconds)
            log_rss = max(log_rss, peak)
            if held is not None:
                seconds, _, peak = run_scan(repo, held)
                in_memory.append(seconds)
                rss = max(rss, peak)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if held is not None:
            shutil.rmtree(held, ignore_errors=True)
    naive_seconds, naive_commits, naive_error = run_naive(repo, args.naive_limit or total)
    naive_total = naive_seconds * total / max(naive_commits, 1)
    scan_s, log_s = statistics.median(scans), statistics.median(logs)
    print(f"repository:      {repo} ({total} commits on HEAD, {no_merges} without merges), {os.cpu_count()} cpus")
    print(f"miner scan:      {scan_s:7.3f} s  median of {args.repeat} {sorted(round(s, 3) for s in scans)}, "
          f"{written} candidates written under {args.tmp or tempfile.gettempdir()}")
    if in_memory:
        print(f"  in memory:     {statistics.median(in_memory):7.3f} s  median of {args.repeat} "
              f"{sorted(round(s, 3) for s in in_memory)}, candidates written under {memory}")
    print(f"git log -p:      {log_s:7.3f} s  median of {args.repeat} {sorted(round(s, 3) for s in logs)} "
          f"(git log --no-merges -p HEAD > /dev/null)")
    extrapolated = naive_commits < total
    note = (f"measured {naive_seconds:.2f} s over {naive_commits} commits, extrapolated to {total}"
            if extrapolated else f"all {total} commits measured")
    print(f"naive pydriller: {naive_total:7.1f} s  ({note})")
    if naive_error:
        print(f"                 (stopped after {naive_commits} commits by pydriller: {naive_error})")
    print(f"ratio scan / git log -p:       {scan_s / log_s:.2f}  (target <= 1.1), corpus under "
          f"{args.tmp or tempfile.gettempdir()}")
    if in_memory:
        print(f"                               {statistics.median(in_memory) / log_s:.2f}  corpus in memory "
              f"({memory})")
    print(f"peak memory:                   scan {rss / 1024:.0f} MiB, git log -p {log_rss / 1024:.0f} MiB "
          f"(scan / git log -p {rss / max(log_rss, 1):.2f}; target: scan <= 200 MiB on pytest)")
    scan_cpu, log_cpu = statistics.median(CPU["scan"]), statistics.median(CPU["git log"])
    print(f"cpu time:                      scan {scan_cpu:.1f} s, git log -p {log_cpu:.1f} s (medians, user + system "
          f"git children included: {scan_cpu / log_cpu:.2f}; the total work, which the wall ratio follows when "
          f"other processes hold the cores)")
    if ROLES:
        python = statistics.median(ROLES.get("scan's Python", [0.0]))
        parts = ", ".join(f"{role} {statistics.median(cpus):.1f} s" for role, cpus in
                          sorted(ROLES.items(), key=lambda item: -statistics.median(item[1])))
        print(f"cpu by process:                {parts} (medians over the scans, from /proc)")
        print(f"critical path:                 scan's Python / git log -p cpu {python / log_cpu:.2f}  (the wall ratio "
              f"tends to this where git and the writer have cores of their own, to the total above where they "
              f"share them; {os.cpu_count()} cpus here)")
    print(f"ratio scan / naive pydriller:  {scan_s / naive_total:.4f}  ({naive_total / scan_s:.0f}x faster"
          f"{', naive extrapolated' if extrapolated else ''})")
    print(f"file creation:   {probe_ms:.3f} ms per file under {args.tmp or tempfile.gettempdir()} before the runs "
          f"(the scan creates ~6 files and directories per candidate)")


if __name__ == "__main__":
    main()
