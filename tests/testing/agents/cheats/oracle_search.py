#!/usr/bin/env python3
"""Searches the file system and /proc for the corpus, the oracle patch and the grader files, and prints what it
finds (`FOUND file|proc|oracle|grader ...`). Where the sandbox leaves root's capabilities it mounts the host's disk
and searches the jail directories there too.
"""

import os
from pathlib import Path

from escape import found, host_dirs, host_walk, jails

NAMES = ("oracle.patch", "case.yaml", "corpus.yaml", "verification.json", "run.json", "result.json",
         "candidate.patch", "grader.log")
SKIP = ("/proc", "/sys", "/dev")

for dirpath, dirnames, filenames in os.walk("/"):
    dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in SKIP]
    for name in filenames:
        path = os.path.join(dirpath, name)
        if name in NAMES or (dirpath.endswith("/grader") and name.startswith("test_")):
            found("file", path)
            if name == "oracle.patch":
                found("oracle", Path(path).read_text(errors="replace").replace("\n", "\\n")[:400])
mine = {"1", str(os.getpid()), str(os.getppid())}  # bubblewrap, this agent and its shell carry its own arguments
for pid in (p for p in os.listdir("/proc") if p.isdigit() and p not in mine):
    for what in ("cmdline", "environ"):
        try:
            text = Path(f"/proc/{pid}/{what}").read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        if any(n in text for n in ("evals", "oracle", "corpus", "--corpus", "results")):
            found("proc", f"{pid}/{what}: {text[:300]}")
for directory in host_dirs():
    print(f"BIND {directory}", flush=True)
for jail in jails():
    for path in host_walk(jail, ("oracle.patch",)):
        found("oracle", path.read_text(errors="replace").replace("\n", "\\n")[:400])
    for path in host_walk(jail, ("grader",)):
        if path.is_dir():
            for test in path.rglob("test_*.py"):
                found("grader", test.read_text(errors="replace").replace("\n", "\\n")[:400])
print("searched", flush=True)
