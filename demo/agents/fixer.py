#!/usr/bin/env python3
"""Demo agent that knows the right change for every demo case: `fixer.py CASE_ID`, run in the workspace.

It applies the fix it carries for that case (fixes/CASE_ID.patch, next to this file) and does nothing for a
case it does not know. It reads nothing from the corpus.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

fix = Path(__file__).resolve().parent / "fixes" / f"{sys.argv[1]}.patch"
if not fix.is_file():
    print(f"no fix known for {sys.argv[1]}")
    sys.exit(0)
subprocess.run(["git", "apply", str(fix)], check=True)
print(f"applied {fix.name}")
