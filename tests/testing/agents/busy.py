#!/usr/bin/env python3
"""Fixes the calc case the way fix.py does and prints a Claude Code stream of CALLS shell calls costing COST
dollars: `busy.py CALLS COST`. Each call is one model message of 100 uncached input, 1000 cache-read, 10
cache-write and 50 output tokens; the result line totals them."""

import json
import sys
from pathlib import Path

calls, cost = int(sys.argv[1]), float(sys.argv[2])
Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
usage = {"input_tokens": 100, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 10, "output_tokens": 50}
events: list[dict[str, object]] = [
    {"type": "system", "subtype": "init", "session_id": "s-busy", "model": "claude-test", "tools": ["Bash"]}]
for n in range(1, calls + 1):
    events.append({"type": "assistant", "parent_tool_use_id": None, "message": {
        "id": f"msg_{n}", "content": [{"type": "tool_use", "id": f"tu_{n}", "name": "Bash",
                                       "input": {"command": f"grep -n add calc.py # {n}"}}], "usage": usage}})
    events.append({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": f"tu_{n}", "content": "1"}]}})
events.append({"type": "result", "subtype": "success", "num_turns": calls + 1, "result": "Fixed add().",
               "session_id": "s-busy", "total_cost_usd": cost,
               "usage": {key: value * calls for key, value in usage.items()}})
for event in events:
    print(json.dumps(event), flush=True)
