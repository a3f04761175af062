#!/usr/bin/env python3
"""Fixes the bug, then hangs past any timeout, leaving a grandchild in its group and one in a new session.

argv[1]: a file outside the workspace where the grandchildren's pids are written.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
in_group = subprocess.Popen(["sleep", "300"])
escaped = subprocess.Popen(["sleep", "301"], start_new_session=True)
Path(sys.argv[1]).write_text(f"{in_group.pid} {escaped.pid} {os.getpid()}\n")
print("working...", flush=True)
while True:
    time.sleep(1)
