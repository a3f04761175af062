#!/usr/bin/env python3
"""An honest agent that would like a package index (argv[1], a URL) but works without one: it says whether the
index answered, then fixes add()."""

import sys
import urllib.request
from pathlib import Path

try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as response:
        print(f"REACHED {response.status}", flush=True)
except OSError as exc:
    print(f"UNREACHABLE {exc}", flush=True)
Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
print("fixed add()", flush=True)
