#!/usr/bin/env python3
"""Demo agent that reads the task and changes nothing: `noop.py PROMPT_FILE`.

What it did is printed as Codex's `codex exec --json` stream: the thread, one turn whose one command reads the
task, its message, and the turn's usage (Codex reports no cost). Token counts are derived from the task's size:
the same figures for the same task on every run.
"""

from __future__ import annotations

import json
import shlex
import sys
import uuid
from pathlib import Path
from typing import Any

prompt = sys.argv[1] if len(sys.argv) > 1 else ""
task = Path(prompt).read_text(encoding="utf-8") if prompt else ""


def emit(event: dict[str, Any]) -> None:
    print(json.dumps(event), flush=True)


command = f"cat {shlex.quote(prompt)}"
message = f"read {len(task)} characters of task; changing nothing"
emit({"type": "thread.started", "thread_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"hindcast-demo-noop/{task}"))})
emit({"type": "turn.started"})
emit({"type": "item.started", "item": {"id": "item_0", "type": "command_execution",
                                       "command": f"bash -lc {shlex.quote(command)}", "aggregated_output": "",
                                       "exit_code": None, "status": "in_progress"}})
emit({"type": "item.completed", "item": {"id": "item_0", "type": "command_execution",
                                         "command": f"bash -lc {shlex.quote(command)}", "aggregated_output": task,
                                         "exit_code": 0, "status": "completed"}})
emit({"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": message}})
emit({"type": "turn.completed", "usage": {"input_tokens": 6000 + len(task) // 2, "cached_input_tokens": 4864,
                                          "output_tokens": 60 + len(task) // 40}})
