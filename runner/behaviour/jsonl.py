"""Reading a JSON-lines transcript: the objects in order, the lines that are not JSON counted, and the shared tool
name table."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from runner.behaviour.record import ToolKind


@dataclass(frozen=True)
class Lines:
    """A transcript's JSON objects in order, and how many non-blank lines were not JSON objects."""

    objects: tuple[dict[str, Any], ...]
    """Every line that is a JSON object."""
    skipped: int
    """Non-blank lines that are not (a cut-off last line, a log line, a malformed one)."""
    cut_off: bool
    """The last non-blank line is not JSON: the stream was cut off mid-line."""


def read_lines(text: str) -> Lines:
    """The JSON objects of a JSONL transcript; plain-text lines (an agent's own log) are skipped and counted."""
    objects: list[dict[str, Any]] = []
    skipped = 0
    last_bad = False
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        if isinstance(value, dict):
            objects.append(value)
            last_bad = False
        else:
            skipped += 1
            last_bad = True
    return Lines(tuple(objects), skipped, last_bad)


TOOL_KINDS: dict[str, ToolKind] = {
    # shell
    "bash": "shell", "shell": "shell", "run_shell_command": "shell", "exec_command": "shell",
    "command_execution": "shell", "shell_command": "shell", "local_shell_call": "shell", "terminal": "shell",
    # edits
    "edit": "edit", "multiedit": "edit", "write": "edit", "notebookedit": "edit", "write_file": "edit",
    "replace": "edit", "apply_patch": "edit", "patch": "edit", "file_change": "edit", "str_replace": "edit",
    "str_replace_editor": "edit", "create": "edit", "insert": "edit",
    # reads and searches
    "read": "read", "read_file": "read", "read_many_files": "read", "view": "read", "notebookread": "read",
    "grep": "search", "glob": "search", "ls": "search", "list": "search", "grep_search": "search",
    "search_file_content": "search", "list_directory": "search", "find": "search", "search": "search",
    # the web and others
    "webfetch": "web_fetch", "web_fetch": "web_fetch", "fetch": "web_fetch",
    "websearch": "web_search", "web_search": "web_search", "google_web_search": "web_search",
    "task": "subagent", "agent": "subagent", "invoke_agent": "subagent", "collab_tool_call": "subagent",
    "mcp_tool_call": "mcp",
}
"""Every agent's tool names (lower case) by the kind the metrics count; anything else is "other"."""


def tool_kind(raw_name: str) -> ToolKind:
    """The kind of a tool by its name; ``mcp__server__tool`` names are MCP tools."""
    lowered = raw_name.lower()
    if lowered.startswith("mcp__"):
        return "mcp"
    return TOOL_KINDS.get(lowered, "other")


def integer(value: Any) -> int | None:
    """A token count or exit code, or None when it is not an integer."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def number(value: Any) -> float | None:
    """A cost, or None when it is not a number."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def mapping(value: Any) -> dict[str, Any]:
    """A JSON object, or an empty one for anything else."""
    return value if isinstance(value, dict) else {}
