"""The generic JSONL of one ``{"tool": ..., "args": {...}}`` object per line (``name``/``arguments`` too, arguments
also as a JSON string), with ``{"type": "final"}`` and ``{"type": "usage"}`` lines."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from runner.behaviour.formats.base import TranscriptFormat
from runner.behaviour.jsonl import read_lines, shell_command, stream_status, tool_kind
from runner.runs.behaviour_record import Behaviour, CallStatus, Tokens, ToolCall
from runner.runs.jsonvalues import integer, number


def recognise(event: dict[str, Any]) -> bool:
    """A tool name (``tool`` or ``name``) with its arguments as an object or as a JSON string of one."""
    args = event.get("args", event.get("arguments"))
    return isinstance(event.get("tool", event.get("name")), str) and (
        isinstance(args, dict) or (isinstance(args, str) and args.lstrip().startswith("{")))


def _when(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            return None
    return None


def parse_generic(text: str) -> Behaviour:
    """One JSON object per line: ``{"tool", "args"}`` (or ``name``/``arguments``, arguments also as a JSON
    string) with optional ``exit_code``,
    ``turn``, ``ts_start``/``ts_end``, ``usage`` (this call's tokens: summed) and ``cost_usd`` (summed);
    ``{"type": "final", "message"}``; ``{"type": "usage", ...}`` (the whole trial's tokens and cost: it wins).
    Model calls: distinct ``turn`` values when lines carry them."""
    lines = read_lines(text)
    calls: list[ToolCall] = []
    order: list[Literal["text", "tool"]] = []
    turns: dict[Any, tuple[float | None, float | None]] = {}
    sums = {"input": 0, "cache_read": 0, "cache_write": 0, "output": 0, "reasoning": 0}
    seen_usage = False
    cost: float | None = None
    total: dict[str, Any] | None = None
    final = None
    session = None
    for event in lines.objects:
        session = event.get("session_id") or session
        if event.get("type") == "final":
            final = event.get("message") if isinstance(event.get("message"), str) else final
            order.append("text")
            continue
        if event.get("type") == "usage":
            total = event
            continue
        raw = event.get("tool", event.get("name"))
        if not isinstance(raw, str):
            continue
        args = event.get("args", event.get("arguments"))
        if isinstance(args, str):  # OpenAI-style arguments: a JSON string
            try:
                args = json.loads(args)
            except ValueError:
                args = {}
        args = args if isinstance(args, dict) else {}
        exit_code = integer(event.get("exit_code"))
        kind_name = tool_kind(raw)
        status: CallStatus = "unknown" if exit_code is None else "ok" if exit_code == 0 else "error"
        calls.append(ToolCall(kind_name, raw, args, shell_command(kind_name, args), exit_code, status))
        order.append("tool")
        if "turn" in event:
            begin, end = turns.get(event["turn"], (None, None))
            start, stop = _when(event.get("ts_start")), _when(event.get("ts_end"))
            turns[event["turn"]] = (start if begin is None else min(begin, start or begin),
                                    stop if end is None else max(end, stop or end))
        if isinstance(event.get("usage"), dict):
            seen_usage = True
            for key in sums:
                sums[key] += integer(event["usage"].get(key)) or 0
        if number(event.get("cost_usd")) is not None:
            cost = (cost or 0.0) + (number(event.get("cost_usd")) or 0.0)
    tokens = Tokens(**{k: v for k, v in sums.items()}) if seen_usage else Tokens()
    if total is not None:
        tokens = Tokens(*(integer(total.get(k)) for k in ("input", "cache_read", "cache_write", "output", "reasoning")))
        cost = number(total.get("cost_usd")) if "cost_usd" in total else cost
    seconds = tuple(end - start for start, end in turns.values() if start is not None and end is not None)
    status_word, reason = stream_status(lines.skipped, True, "")
    return Behaviour("generic", status_word, reason, session, len(turns) or None, None, tuple(calls),
                     tokens, cost, "agent" if cost is not None else "none", final, tuple(order), seconds,
                     lines.skipped)


FORMAT = TranscriptFormat("generic", recognise, parse_generic)
