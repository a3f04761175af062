"""What the trajectory-file formats share (mini-swe-agent, SWE-agent, ATIF: one JSON document an agent leaves in
its workspace, not a stream on stdout): the file as one object, message text, the agent's cost, a shell call and
whether the agent finished.

A file without its terminal part (mini-swe-agent and SWE-agent: no ``info.exit_status``; ATIF: no
``final_metrics``) was written before the agent finished: partial.
"""

from __future__ import annotations

from typing import Any

from runner.behaviour.jsonl import json_document
from runner.behaviour.shell import unwrap
from runner.runs.behaviour_record import CallStatus, Status, ToolCall
from runner.runs.jsonvalues import number


def document(text: str) -> dict[str, Any]:
    """The file as one JSON object, warnings printed around it allowed (ValueError when it is not JSON,
    TypeError when not an object)."""
    data = json_document(text)
    if not isinstance(data, dict):
        raise TypeError(f"expected one JSON object, got {type(data).__name__}")
    return data


def message_text(content: Any) -> str:
    """Message content as text: a string, or the text of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return ""


def agent_cost(value: Any, calls: int | None) -> float | None:
    """litellm's cost; 0 after model calls means cost tracking was off or the price unknown: no cost."""
    cost = number(value)
    return None if cost is None or (cost == 0 and calls) else cost


def shell_call(raw: str, args: dict[str, Any], status: CallStatus = "unknown",
               exit_code: int | None = None) -> ToolCall:
    """A shell call whose ``command`` argument (a string or an argv) is unwrapped."""
    command = args.get("command")
    text = unwrap(command) if isinstance(command, (str, list)) else None
    return ToolCall("shell", raw, args, text, exit_code, status)


def finished(info: dict[str, Any]) -> tuple[Status, str]:
    """Parsed when ``info`` has an exit status, else partial (the file was written before the agent finished)."""
    if not info.get("exit_status"):
        return "partial", "the trajectory has no exit status (written before the agent finished)"
    return "parsed", ""
