#!/usr/bin/env python3
"""Fixes the calc case the way fix.py does and prints the tool calls it is given as a generic JSONL transcript:
`calls.py 'Bash:{"command": "pytest"}' Edit Read@2` prints one line per argument, `NAME[:JSON arguments][@TURN]`
(lines carry a `turn` only when one is given); `--plain` prints plain text instead."""

import json
import sys
from pathlib import Path

Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
if sys.argv[1:] == ["--plain"]:
    print("fixed add()")
    sys.exit(0)
for spec in sys.argv[1:]:
    spec, _, turn = spec.rpartition("@") if "@" in spec.rsplit("}", 1)[-1] else (spec, "", "")
    name, _, args = spec.partition(":")
    line = {"tool": name, "args": json.loads(args) if args else {}}
    if turn:
        line["turn"] = int(turn)
    print(json.dumps(line), flush=True)
print(json.dumps({"type": "final", "message": "Fixed add()."}))
