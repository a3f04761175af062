#!/usr/bin/env python3
"""Demo agent that knows the right change for every demo case: `fixer.py CASE_ID`, run in the workspace.

It applies the fix it carries for that case (fixes/CASE_ID.patch, next to this file) and does nothing for a
case it does not know. It reads nothing from the corpus. What it did is printed as Claude Code's stream-json
(`claude -p --output-format stream-json --verbose`): an init line, one assistant message per model call with its
tool calls and their results, and a result line with the usage and the cost, so a report shows its behaviour.
Token counts are derived from the sizes of what it read and wrote, the cost from list prices: the same figures
for the same case on every run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

PRICES = {"input_tokens": 3.0, "cache_read_input_tokens": 0.30, "cache_creation_input_tokens": 3.75,
          "output_tokens": 15.0}
"""US dollars per million tokens of each kind."""

case_id = sys.argv[1]
fix = Path(__file__).resolve().parent / "fixes" / f"{case_id}.patch"
session = str(uuid.uuid5(uuid.NAMESPACE_URL, f"hindcast-demo-fixer/{case_id}"))
totals = dict.fromkeys(PRICES, 0)
messages = 0


def emit(event: dict[str, Any]) -> None:
    print(json.dumps(event), flush=True)


def assistant(content: list[dict[str, Any]], context: int, output: int) -> None:
    """One model call: the whole context so far read from the cache, the new part written to it."""
    global messages
    messages += 1
    usage = {"input_tokens": 4, "cache_read_input_tokens": 9000 + context // 2,
             "cache_creation_input_tokens": context // 2, "output_tokens": output}
    for key, value in usage.items():
        totals[key] += value
    emit({"type": "assistant", "parent_tool_use_id": None, "session_id": session,
          "message": {"id": f"msg_{messages:02d}", "type": "message", "role": "assistant", "model": "demo-model",
                      "content": content, "usage": usage}})


def tool(name: str, arguments: dict[str, Any], output: str, context: int, error: bool = False) -> None:
    """One model call making one tool call, and the tool's result."""
    call_id = f"toolu_{messages + 1:02d}"
    assistant([{"type": "tool_use", "id": call_id, "name": name, "input": arguments}], context, 40 + context // 8)
    emit({"type": "user", "parent_tool_use_id": None, "session_id": session,
          "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                                                    "content": output, "is_error": error}]}})


def result(text: str) -> None:
    cost = sum(totals[key] * price for key, price in PRICES.items()) / 1_000_000
    emit({"type": "result", "subtype": "success", "is_error": False, "num_turns": messages, "result": text,
          "session_id": session, "total_cost_usd": round(cost, 6), "usage": totals})


def git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=False).stdout


emit({"type": "system", "subtype": "init", "session_id": session, "model": "demo-model", "cwd": str(Path.cwd()),
      "tools": ["Bash", "Read", "Edit"]})
status = git("status", "--short")
tool("Bash", {"command": "git status --short", "description": "See the workspace"}, status, len(status))
if not fix.is_file():
    assistant([{"type": "text", "text": f"no fix known for {case_id}"}], 200, 12)
    result(f"no fix known for {case_id}")
    sys.exit(0)
patch = fix.read_text(encoding="utf-8")
for path in dict.fromkeys(line[6:] for line in patch.splitlines() if line.startswith("+++ b/")):
    source = Path(path).read_text(encoding="utf-8") if Path(path).is_file() else ""
    tool("Read", {"file_path": str(Path.cwd() / path)}, source, len(source))
tool("Bash", {"command": f"git apply {fix}", "description": "Apply the fix"}, "", len(patch))
subprocess.run(["git", "apply", str(fix)], check=True)
changed = git("diff", "--stat")
tool("Bash", {"command": "git diff --stat", "description": "Check the change"}, changed, len(changed))
assistant([{"type": "text", "text": f"applied {fix.name}"}], 300, 20)
result(f"applied {fix.name}")
