#!/usr/bin/env python3
"""A Codex-style agent for the shop case: prints a `codex exec --json` stream (a first message, then a todo list,
or only the message with argv[2] == "message"), then edits as scorecard.py's agent argv[1] does."""

import json
import runpy
import sys
from pathlib import Path


def event(kind: str, **fields: object) -> None:
    print(json.dumps({"type": kind, **fields}), flush=True)


event("thread.started", thread_id="t-1")
event("turn.started")
event("item.completed", item={"id": "i1", "type": "agent_message",
                              "text": "I'll read shop/cart.py first.\nThen fix the rounding."})
if sys.argv[2:] != ["message"]:
    event("item.completed", item={"id": "i2", "type": "todo_list", "items": [
        {"text": "inspect shop/cart.py", "completed": True}, {"text": "keep cents in total()", "completed": False},
        {"text": "run the cart tests", "completed": False}]})
event("item.completed", item={"id": "i3", "type": "agent_message", "text": "Done."})
event("turn.completed", usage={"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 20})
sys.argv = [str(Path(__file__).with_name("scorecard.py")), sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
