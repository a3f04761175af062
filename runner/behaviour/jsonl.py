"""Reading a JSON-lines transcript: the objects in order, the lines that are not JSON counted, the shared tool
name table, and what the stream formats share (a call's shell command, the status a stream ended with)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from runner.behaviour.shell import unwrap
from runner.runs.behaviour_record import Status, ToolKind


@dataclass(frozen=True)
class Lines:
    """A transcript's JSON objects in order, and how many of its lines were broken JSON."""

    objects: tuple[dict[str, Any], ...]
    """Every line that is a JSON object (a line with text before its object, e.g. a colour code, included)."""
    skipped: int
    """Lines that begin a JSON object but are not one: a malformed line, or a last line cut off mid-object."""
    cut_off: bool
    """The last non-blank line is broken JSON: the stream was cut off mid-line."""
    noise: int = 0
    """Plain-text lines (an agent's or its installer's log on stderr: npm warnings, ``Reading prompt from
    stdin...``): not part of the stream, ignored."""


def _object(line: str) -> tuple[dict[str, Any] | None, bool]:
    """(the JSON object of a line, whether the line is broken JSON); (None, False) for a plain-text line."""
    start = line.find("{")
    if start < 0:
        return None, False
    try:
        value = json.loads(line[start:])
    except ValueError:
        # JSON from its first character, or from a '{"' after other text (a prefix on the same line): broken
        return None, start == 0 or line[start:start + 2] == '{"'
    if isinstance(value, dict):
        return value, False
    return None, False


def read_lines(text: str, limit: int | None = None) -> Lines:
    """The JSON objects of a JSONL transcript (the first ``limit`` of them when given); plain-text lines (an
    agent's own log) are ignored and counted as noise, broken JSON lines are skipped and counted."""
    objects: list[dict[str, Any]] = []
    skipped = noise = 0
    last_bad = False
    for line in text.splitlines():
        line = line.strip().lstrip("\ufeff")
        if not line:
            continue
        value, broken = _object(line)
        if value is not None:
            objects.append(value)
            last_bad = False
            if limit is not None and len(objects) >= limit:
                break
        elif broken:
            skipped += 1
            last_bad = True
        else:
            noise += 1
    return Lines(tuple(objects), skipped, last_bad, noise)


def starts_json(line: str) -> bool:
    """The line starts a JSON object or array (``[WARN] ...`` and other bracketed log lines do not)."""
    start = line.strip()
    return start.startswith(("{", "[{", '["')) or start == "["


def json_document(text: str) -> Any:
    """The one JSON document of a file or an agent's stdout, plain-text lines before or after it allowed (a
    CLI's warnings on stderr): the whole text, else the object (or array) from the first line that starts one;
    ValueError when there is none, or when more JSON objects follow it (a JSONL stream)."""
    stripped = text.strip().lstrip("\ufeff")
    try:
        return json.loads(stripped)
    except ValueError as exc:
        first_error = exc
    lines = stripped.splitlines(keepends=True)
    offset = 0
    for line in lines:
        if starts_json(line):
            break
        offset += len(line)
    else:
        raise first_error
    rest = stripped[offset:].lstrip()
    value, end = json.JSONDecoder().raw_decode(rest)
    if any(line.lstrip().startswith("{") for line in rest[end:].splitlines()):
        raise ValueError("more JSON follows the document (a JSON-lines stream, not one document)")
    return value


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


def shell_command(kind: str, args: dict[str, Any]) -> str | None:
    """The unwrapped ``command`` (or ``cmd``) argument of a shell call; None for any other call."""
    command = args.get("command", args.get("cmd"))
    return unwrap(command) if kind == "shell" and isinstance(command, (str, list)) else None


def stream_status(lines_skipped: int, terminal: bool, what: str) -> tuple[Status, str]:
    """(status, reason) of a stream: partial when it ended before ``what`` (its terminal event) or had broken
    lines, else parsed."""
    if not terminal:
        return "partial", f"the stream ended before {what} (cut off or killed)"
    if lines_skipped:
        return "partial", f"{lines_skipped} line(s) were not JSON"
    return "parsed", ""
