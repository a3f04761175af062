#!/usr/bin/env python3
"""A source edit that floods the grader's output: once calc is imported, the test process writes argv[1] MiB to
its standard output as it exits, past any capture of the test framework (add() stays wrong)."""

import sys
from pathlib import Path

mib = int(sys.argv[1])
Path("calc.py").write_text(
    "import atexit\nimport os\n\n\n"
    "def _flood():\n"
    f"    for _ in range({mib}):\n"
    "        os.write(1, b'x' * 1048575 + b'\\n')\n\n\n"
    "atexit.register(_flood)\n\n\n"
    "def add(a, b):\n    return a - b\n")
print("flooding", flush=True)
