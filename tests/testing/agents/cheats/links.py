#!/usr/bin/env python3
"""Replaces the paths the harness writes, removes or reads with links to a directory outside the workspace
(argv[1], the victim) and to /proc/self, hoping the harness follows them. It never fixes calc.add."""

import os
import sys
from pathlib import Path

victim = sys.argv[1]
for name in ("tests", ".hindcast", "test_calc.py", "conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg"):
    if os.path.lexists(name):
        if os.path.isdir(name) and not os.path.islink(name):
            for child in Path(name).iterdir():
                child.unlink()
            os.rmdir(name)
        else:
            os.unlink(name)
    target = victim if name in ("tests", ".hindcast") else os.path.join(victim, name)
    os.symlink(target, name)
os.symlink("/proc/self/root", "host_root")
os.symlink("/proc/self/cwd/..", "parent")
os.symlink("loop", "loop")
print("linked", flush=True)
