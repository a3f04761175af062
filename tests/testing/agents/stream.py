#!/usr/bin/env python3
"""Fixes the calc case the way fix.py does and prints what it did as an agent CLI's stream: `stream.py claude`
or `stream.py codex` (`cut` as a second argument stops before the stream's last line, as a killed agent does)."""

import json
import sys
from pathlib import Path

fmt = sys.argv[1]
cut = sys.argv[2:] == ["cut"]
Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
if fmt == "claude":
    events = [
        {"type": "system", "subtype": "init", "session_id": "s-claude", "model": "claude-test", "tools": ["Bash"]},
        {"type": "assistant", "parent_tool_use_id": None, "message": {
            "id": "msg_1", "content": [{"type": "tool_use", "id": "tu_1", "name": "Bash",
                                         "input": {"command": "grep -n add calc.py"}}],
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5,
                      "output_tokens": 20}}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "1"}]}},
        {"type": "assistant", "parent_tool_use_id": None, "message": {
            "id": "msg_2", "content": [{"type": "tool_use", "id": "tu_2", "name": "Edit",
                                         "input": {"file_path": "calc.py", "old_string": "-", "new_string": "+"}}],
            "usage": {"input_tokens": 3, "cache_read_input_tokens": 110, "cache_creation_input_tokens": 0,
                      "output_tokens": 30}}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "tu_2", "content": "ok"}]}},
        {"type": "result", "subtype": "success", "num_turns": 3, "result": "Fixed add().", "session_id": "s-claude",
         "total_cost_usd": 0.0125, "usage": {"input_tokens": 13, "cache_read_input_tokens": 210,
                                             "cache_creation_input_tokens": 5, "output_tokens": 50}},
    ]
else:
    events = [
        {"type": "thread.started", "thread_id": "t-codex"}, {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "i0", "type": "command_execution",
                                            "command": "bash -lc 'grep -n add calc.py'", "exit_code": 0,
                                            "status": "completed"}},
        {"type": "item.completed", "item": {"id": "i1", "type": "file_change", "status": "completed",
                                            "changes": [{"path": "calc.py", "kind": "update"}]}},
        {"type": "item.completed", "item": {"id": "i2", "type": "agent_message", "text": "Fixed add()."}},
        {"type": "turn.completed", "usage": {"input_tokens": 1200, "cached_input_tokens": 1000,
                                             "output_tokens": 80}},
    ]
for event in events[:-1] if cut else events:
    print(json.dumps(event), flush=True)
