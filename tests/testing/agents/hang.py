#!/usr/bin/env python3
"""Fixes the bug, then hangs past any timeout, leaving a grandchild in its group and one in a new session.

argv[1]: a token (a number of seconds such as 3000.12345) every process it leaves carries on its command line.
"""

import subprocess
import sys
import time
from pathlib import Path

Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
in_group = subprocess.Popen(["sleep", sys.argv[1]])
escaped = subprocess.Popen(["sleep", sys.argv[1]], start_new_session=True)
print("working...", flush=True)
while True:
    time.sleep(1)
