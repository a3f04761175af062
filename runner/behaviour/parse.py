"""Choosing a transcript's format (given, or detected from its first lines) and reading it into a Behaviour; a
transcript that cannot be read is an ``unparsed`` record with the reason, never an error of the trial."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from runner.behaviour.claude import parse_claude
from runner.behaviour.codex import parse_codex
from runner.behaviour.jsonl import json_document, read_lines, starts_json
from runner.behaviour.others import parse_gemini_json, parse_gemini_stream, parse_generic, parse_opencode
from runner.behaviour.trajectories import document_format, parse_atif, parse_mini_swe_agent, parse_swe_agent
from runner.runs.behaviour_record import Behaviour, unparsed

PARSERS: dict[str, Callable[[str], Behaviour]] = {
    "codex": parse_codex, "claude": parse_claude, "gemini": parse_gemini_stream, "gemini-json": parse_gemini_json,
    "opencode": parse_opencode, "generic": parse_generic,
    "mini-swe-agent": parse_mini_swe_agent, "swe-agent": parse_swe_agent, "atif": parse_atif,
}
DOCUMENTS = frozenset({"gemini-json", "mini-swe-agent", "swe-agent", "atif"})
"""Formats that are one JSON document (any number of lines), not one JSON object per line."""
FORMATS = (*PARSERS, "none", "auto")
"""What --transcript-format accepts: a format, none (plain text) or auto (detect it)."""


CLAUDE_TYPES = frozenset({"system", "assistant", "user", "result", "stream_event", "rate_limit_event",
                          "subagent_token_usage"})
"""Claude Code stream-json event types; every event carries the session id (hooks may come before init)."""
OPENCODE_TYPES = frozenset({"step_start", "step_finish", "tool_use", "text", "reasoning", "error", "done", "user"})
"""opencode ``run --format json`` event types; every event carries ``sessionID``."""
GEMINI_JSON_KEYS = frozenset({"session_id", "response", "stats", "error", "warnings"})
"""The keys of Gemini CLI's ``--output-format json`` object."""


def _looks(obj: dict[str, Any]) -> str | None:
    kind = obj.get("type") if isinstance(obj.get("type"), str) else None
    if isinstance(kind, str) and (kind in ("thread.started", "turn.started", "turn.completed", "turn.failed",
                                           "session.created") or kind.startswith("item.")):
        return "codex"
    if isinstance(obj.get("msg"), dict) or ("model" in obj and "workdir" in obj):
        return "codex"
    if "sessionID" in obj and (isinstance(obj.get("part"), dict) or kind in OPENCODE_TYPES):
        return "opencode"
    if kind == "system" and ("session_id" in obj or obj.get("subtype") == "init"):
        return "claude"
    if kind in ("assistant", "user") and isinstance(obj.get("message"), dict):
        return "claude"
    if kind == "result" and ("total_cost_usd" in obj or "num_turns" in obj or "subtype" in obj):
        return "claude"
    if kind in CLAUDE_TYPES and "session_id" in obj and "uuid" in obj:
        return "claude"
    if kind == "init" and ("model" in obj or "session_id" in obj):
        return "gemini"
    if kind in ("message", "tool_use", "tool_result") and ("role" in obj or "tool_id" in obj):
        return "gemini"
    if kind == "result" and "status" in obj and ("stats" in obj or "timestamp" in obj):
        return "gemini"
    args = obj.get("args", obj.get("arguments"))
    if isinstance(obj.get("tool", obj.get("name")), str) and (
            isinstance(args, dict) or (isinstance(args, str) and args.lstrip().startswith("{"))):
        return "generic"
    return None


def _document(text: str) -> str | None:
    """The format of a transcript that is one JSON document (warnings around it allowed); None otherwise."""
    if "{" not in text:
        return None
    try:
        whole = json_document(text)
    except ValueError:
        return _cut_document(text)
    if not isinstance(whole, dict):
        return None
    found = document_format(whole)
    if found is not None:
        return found
    if "type" not in whole and set(whole) <= GEMINI_JSON_KEYS and {"response", "stats", "error"} & set(whole):
        return "gemini-json"
    return None


CUT_DOCUMENT_MARKS = (('"trajectory_format": "mini-swe-agent', "mini-swe-agent"), ('"schema_version": "ATIF', "atif"),
                      ('"trajectory": [', "swe-agent"), ('"response": ', "gemini-json"), ('"stats": {', "gemini-json"))
"""How a pretty-printed document cut before its end still shows its format (it is then unparsed, not text)."""


def _cut_document(text: str) -> str | None:
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith(("{", "["))]
    if not lines or lines[0] != "{":
        return None  # not a pretty-printed document (a JSON-lines stream starts with a whole object)
    return next((name for mark, name in CUT_DOCUMENT_MARKS if mark in text), None)


def detect(text: str) -> str:
    """The format of a transcript from its first JSON lines (plain-text lines before them, such as a CLI's
    warnings, are passed over); ``none`` when nothing matches."""
    text = _array_as_lines(text)
    found = _document(text)
    if found is not None:
        return found
    for obj in read_lines(text, limit=20).objects:
        found = _looks(obj)
        if found is not None:
            return found
    return "none"


def _array_as_lines(text: str) -> str:
    """A JSON array of events (``claude -p --output-format json --verbose`` prints the whole stream as one) as
    JSON lines; any other text as it is."""
    first = next((line.strip() for line in text.splitlines() if starts_json(line)), "")
    if not first.startswith("["):
        return text  # an object comes first: a stream or a document, not an array
    try:
        whole = json_document(text)
    except ValueError:
        return text
    if isinstance(whole, list) and whole and all(isinstance(item, dict) for item in whole):
        return "".join(json.dumps(item) + "\n" for item in whole)
    return text


def parse(text: str, format: str = "auto") -> Behaviour:
    """The behaviour record of a transcript in a format (``auto``: detected)."""
    if format not in FORMATS:
        raise ValueError(f"unknown transcript format {format!r}")
    text = _array_as_lines(text)
    chosen = detect(text) if format == "auto" else format
    if chosen == "none":
        return Behaviour("none", "none", "plain text: no machine-readable transcript")
    if chosen not in DOCUMENTS and not read_lines(text, limit=1).objects:
        return unparsed(chosen, f"no JSON lines in the transcript (expected {chosen})")
    try:
        return PARSERS[chosen](text)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        return unparsed(chosen, f"{exc.__class__.__name__}: {exc}")
