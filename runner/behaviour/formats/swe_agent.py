"""SWE-agent ``*.traj`` (``trajectory`` + ``history`` + ``info``)."""

from __future__ import annotations

import json
from typing import Any, Literal

from runner.behaviour.formats.base import TranscriptFormat
from runner.behaviour.formats.documents import agent_cost, document, finished, message_text, shell_call
from runner.runs.behaviour_record import Behaviour, Tokens, ToolCall, ToolKind
from runner.runs.jsonvalues import integer, mapping

SWE_AGENT_TOOLS: dict[str, ToolKind] = {
    "find_file": "search", "search_dir": "search", "search_file": "search", "filemap": "read",
    "open": "read", "goto": "read", "scroll_up": "read", "scroll_down": "read",
    "create": "edit", "edit": "edit", "insert": "edit", "append": "edit", "str_replace_editor": "edit",
    "submit": "other", "exit_forfeit": "other",
}
"""SWE-agent's bundled tools (the first word of an action) by kind; any other action is a shell command."""
EDITOR_READS = {"view"}
"""``str_replace_editor`` subcommands that only read."""


def recognise(data: dict[str, Any]) -> bool:
    """A ``trajectory`` list beside ``history`` and ``info``."""
    return isinstance(data.get("trajectory"), list) and "history" in data and "info" in data


def _swe_agent_call(action: str) -> ToolCall:
    words = action.split()
    first = words[0] if words else ""
    kind = SWE_AGENT_TOOLS.get(first)
    if kind is None:
        return shell_call("bash", {"command": action})
    if first == "str_replace_editor" and len(words) > 1 and words[1] in EDITOR_READS:
        kind = "read"
    return ToolCall(kind, first, {"action": action})


def _swe_agent_model(data: dict[str, Any]) -> str | None:
    config = data.get("replay_config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except ValueError:
            return None
    name = mapping(mapping(mapping(config).get("agent")).get("model")).get("name")
    return name if isinstance(name, str) else None


def parse_swe_agent(text: str) -> Behaviour:
    """SWE-agent ``*.traj``: one tool call per ``trajectory`` step (its ``action``; the first word names a bundled
    tool, anything else is a shell command; exit codes are only in the observation text: unknown), the step's
    ``thought`` as its text. ``info.model_stats``: ``api_calls`` (model calls), ``tokens_sent`` (every prompt
    token, no cache split: all in input), ``tokens_received`` (output) and ``instance_cost``. The model from
    ``replay_config``; the final message is the last assistant message of ``history``."""
    data = document(text)
    steps = data.get("trajectory")
    if not isinstance(steps, list):
        raise TypeError("SWE-agent trajectory without a trajectory list")
    info = mapping(data.get("info"))
    stats = mapping(info.get("model_stats"))
    calls: list[ToolCall] = []
    timeline: list[Literal["text", "tool"]] = []
    for step in steps:
        step = mapping(step)
        if message_text(step.get("thought")).strip():
            timeline.append("text")
        action = step.get("action")
        if isinstance(action, str) and action.strip():
            calls.append(_swe_agent_call(action.strip()))
            timeline.append("tool")
    final = None
    for item in data.get("history") or []:
        if isinstance(item, dict) and item.get("role") == "assistant" and message_text(item.get("content")).strip():
            final = message_text(item.get("content"))
    api_calls = integer(stats.get("api_calls"))
    sent, received = integer(stats.get("tokens_sent")), integer(stats.get("tokens_received"))
    tokens = Tokens(sent, None, None, received, None) if sent is not None or received is not None else Tokens()
    cost = agent_cost(stats.get("instance_cost", stats.get("total_cost")), api_calls)
    status, reason = finished(info)
    return Behaviour("swe-agent", status, reason, None, api_calls, api_calls, tuple(calls), tokens, cost,
                     "agent" if cost is not None else "none", final, tuple(timeline), model=_swe_agent_model(data))


FORMAT = TranscriptFormat("swe-agent", recognise, parse_swe_agent, document=True, cut_marks=('"trajectory": [',))
