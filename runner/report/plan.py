"""A trial's plan line: the agent's first todo list, else its first message, as one line.

A todo list is a plan by construction, so it wins wherever it appears: a todo tool call of the behaviour record
(Claude's ``TodoWrite``, Gemini's ``write_todos``, opencode's ``todowrite``, Codex's ``update_plan``), or a Codex
``todo_list``/``plan`` item of the transcript (the record keeps no such item: they are not tool calls). Without one,
the agent's first assistant text message (Codex ``agent_message``, Claude assistant text, Gemini assistant
``message``, opencode text parts) is the plan: agents state what they are about to do before they do it. The record
only keeps the last message, so the transcript itself is read for the first. A plain-text transcript has no plan.

Everything here was written by the agent: it is only ever shown as text.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from runner.behaviour.jsonl import read_lines
from runner.runs.behaviour_record import read_behaviour

PLAN_TOOLS = frozenset({"todowrite", "todo_write", "write_todos", "update_plan"})
"""Tool names (lower case) whose call carries a todo list."""
PLAN_CAP = 200
"""Characters of the plan line shown; longer plans end with an ellipsis."""
READ_CAP = 4_000_000
"""Bytes of the transcript read looking for the plan."""
MACHINE_READABLE = ("parsed", "partial")
"""Record statuses of a transcript the plan is looked for in."""


def one_line(text: str, cap: int = PLAN_CAP) -> str:
    """The text's first non-blank line, inner whitespace collapsed, capped at cap characters."""
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    line = " ".join(line.split())
    return line if len(line) <= cap else line[:cap - 1] + "…"


def _items(value: object) -> str | None:
    """A todo list's items joined with ", " (each item's content, text, step or title); None when it has none."""
    if not isinstance(value, list):
        return None
    texts = []
    for item in value:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict):
            text = next((item[k] for k in ("content", "text", "step", "title", "description")
                         if isinstance(item.get(k), str)), None)
            if text:
                texts.append(text)
    joined = ", ".join(" ".join(t.split()) for t in texts if t.strip())
    return joined or None


def _todo_arguments(arguments: object) -> str | None:
    if not isinstance(arguments, dict):
        return None
    return _items(arguments.get("todos")) or _items(arguments.get("plan")) or _items(arguments.get("items"))


def _record_todo(document: dict[str, Any]) -> str | None:
    record = document.get("record")
    calls = record.get("tool_calls") if isinstance(record, dict) else None
    for call in calls if isinstance(calls, list) else ():
        if isinstance(call, dict) and str(call.get("raw_name") or "").lower() in PLAN_TOOLS:
            found = _todo_arguments(call.get("arguments"))
            if found:
                return found
    return None


def _events(event: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """("todo" | "text", text) pieces of one transcript event, in order."""
    item = event.get("item")
    if isinstance(item, dict) and event.get("type") == "item.completed":  # Codex
        kind = item.get("type") or item.get("item_type")
        if kind == "todo_list" and (found := _items(item.get("items"))):
            yield "todo", found
        elif kind == "plan" and isinstance(item.get("text"), str):
            yield "todo", item["text"]
        elif kind in ("agent_message", "assistant_message") and isinstance(item.get("text"), str):
            yield "text", item["text"]
    message = event.get("message")
    if event.get("type") == "assistant" and isinstance(message, dict):  # Claude stream-json
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                yield "text", block["text"]
            elif (block.get("type") == "tool_use" and str(block.get("name") or "").lower() in PLAN_TOOLS
                  and (found := _todo_arguments(block.get("input")))):
                yield "todo", found
    if event.get("type") == "message" and event.get("role") == "assistant" and isinstance(event.get("content"), str):
        yield "text", event["content"]  # Gemini stream-json
    part = event.get("part")
    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
        yield "text", part["text"]  # opencode


def transcript_plan(text: str) -> str | None:
    """The first todo list of a JSON-lines transcript, else its first assistant text; None when it has neither."""
    first_text = None
    for event in read_lines(text).objects:
        for kind, found in _events(event):
            if kind == "todo" and found.strip():
                return found
            if kind == "text" and first_text is None and found.strip():
                first_text = found
    return first_text


def trial_plan(folder: Path) -> str | None:
    """The plan line of the trial in folder; None when its transcript is not machine-readable or shows none."""
    document = read_behaviour(folder)
    record = document.get("record") if document is not None else None
    if not isinstance(record, dict) or record.get("status") not in MACHINE_READABLE:
        return None
    found = _record_todo(document or {})
    if found is None:
        try:
            with (folder / "transcript.log").open("rb") as handle:
                data = handle.read(READ_CAP)
        except OSError:
            return None
        found = transcript_plan(data.decode("utf-8", errors="replace"))
    return one_line(found) if found else None
