"""How long Ctrl-C takes to stop `runner verify` and `runner run`, side by side in one run.

    python bench/interrupt_benchmark.py [--jobs J] [--scratch DIR] [--tree DIR]

A one-case corpus is built in a fresh directory under --scratch (default: the system temp dir). verify runs it
with `--repeats 2 --jobs J` and a new environment cache, the case's setup making a Python environment (uv venv)
and then hanging: one attempt builds the environment, the others wait for that build, as a real corpus's
attempts do on a cold cache. run runs it with an agent that hangs. Each command is interrupted once its hanging
process runs, with a second Ctrl-C 0.3 s later when it has not stopped (as a user does). Printed: each command's
seconds from the first Ctrl-C to its exit, its exit code (130), verify's time over run's, and the load average.
With --tree the commands are another checkout's (a `git worktree` of another commit, its modules first on the
path), for a side-by-side measure.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from corpus import Setup
from tests.runner.verify.builders import build

RUNNER = [sys.executable, "-c", ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                                  "from runner.cli import main; main()")]


def running(token: str) -> bool:
    """Whether a process of the machine has token on its command line."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                    return True
            except OSError:
                continue
    return False


def interrupt(argv: list[str], token: str, env: dict[str, str], cwd: Path) -> tuple[float, int]:
    """Seconds from the first Ctrl-C to the exit, and the exit code."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    while not running(token):
        if proc.poll() is not None:
            raise SystemExit(f"{argv[3]} ended before its command hung")
        time.sleep(0.05)
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(timeout=0.3)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        code = proc.wait()
    return time.monotonic() - started, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose runner runs (default: this one)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="interrupt-bench-", dir=args.scratch))
    env = {**os.environ, "TMPDIR": str(root), "PYTHONPATH": str(args.tree.resolve())}
    token = f"3000.{secrets.randbelow(10**9):09d}"
    corpus, case = build(root, kind="cases")
    stored = corpus.load(case.id)
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    corpus.write(replace(case, setup=Setup(command=f"sleep {token}", python=python)), stored.files, "cases")
    load = os.getloadavg()[0]
    verify = interrupt([*RUNNER, "verify", "--corpus", str(corpus.root), "--repeats", "2", "--jobs",
                        str(args.jobs), "--env-cache", str(root / "envs")], token, env, args.tree)
    corpus.write(case, stored.files, "cases")
    run = interrupt([*RUNNER, "run", "--corpus", str(corpus.root), "--all", "--trials", str(args.jobs), "--jobs",
                     str(args.jobs), "--no-env-cache", "--agent", f"hang=sleep {token}"], token, env, args.tree)
    print(f"verify: {verify[0]:.2f} s to stop (exit {verify[1]}); run: {run[0]:.2f} s (exit {run[1]}); "
          f"verify / run = {verify[0] / run[0]:.2f}; load {load:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
