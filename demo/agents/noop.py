#!/usr/bin/env python3
"""Demo agent that reads the task and changes nothing."""

from __future__ import annotations

import sys
from pathlib import Path

task = Path(sys.argv[1]).read_text() if len(sys.argv) > 1 else ""
print(f"read {len(task)} characters of task; changing nothing")
