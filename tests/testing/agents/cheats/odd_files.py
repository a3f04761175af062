#!/usr/bin/env python3
"""Leaves odd things in the workspace: links into /proc/self and a loop, files and folders without any permission,
a name with a newline, a test file turned executable, .git renamed. It never fixes calc.add."""

import os
from pathlib import Path

os.symlink("/proc/self/root", "host_root")
os.symlink("/proc/self/environ", "environ")
os.symlink("loop", "loop")
os.makedirs("locked/inner", exist_ok=True)
Path("locked/inner/secret.py").write_text("x = 1\n")
Path("new\nline.py").write_text("y = 2\n")
Path("unreadable.py").write_text("z = 3\n")
os.chmod("unreadable.py", 0)
os.chmod("locked/inner", 0)
os.chmod("locked", 0)
os.chmod("test_calc.py", 0o755)
os.rename(".git", ".git-moved")
print("odd", flush=True)
