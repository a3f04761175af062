"""opencode ``run --format json``: ``step_start``, ``tool_use``, ``text`` and ``step_finish`` events (and ``error``,
``done``), each with its ``sessionID``."""

from __future__ import annotations

from typing import Any, Literal

from runner.behaviour.formats.base import TranscriptFormat, event_type
from runner.behaviour.jsonl import read_lines, shell_command, stream_status, tool_kind
from runner.runs.behaviour_record import Behaviour, CallStatus, Tokens, ToolCall
from runner.runs.jsonvalues import integer, mapping, number

TYPES = frozenset({"step_start", "step_finish", "tool_use", "text", "reasoning", "error", "done", "user"})
"""opencode ``run --format json`` event types; every event carries ``sessionID``."""


def recognise(event: dict[str, Any]) -> bool:
    """An event with a ``sessionID`` and a ``part``, or with one of its own types (an error or done line has no
    part)."""
    return "sessionID" in event and (isinstance(event.get("part"), dict) or event_type(event) in TYPES)


def _ms(value: Any) -> float | None:
    return float(value) / 1000 if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def parse_opencode(text: str) -> Behaviour:
    """opencode ``run --format json``: one ``step_finish`` per model call with its tokens (input excludes cache
    reads and writes, output excludes reasoning: normalized output is output + reasoning) and its cost, which
    opencode computes from its price catalog (0 means an unknown price: no cost). A part is counted once however
    often it is emitted (by its id, a tool part also by its ``callID``). The run ended when a step finished for
    a reason other than tool calls, or on ``done`` or ``error``; without either it was cut off."""
    lines = read_lines(text)
    session = None
    calls: list[ToolCall] = []
    order: list[Literal["text", "tool"]] = []
    seen: set[str] = set()
    steps = 0
    sums = {"input": 0, "output": 0, "reasoning": 0, "read": 0, "write": 0}
    cost = 0.0
    final = None
    terminal = False
    started: float | None = None
    seconds: list[float] = []
    failure: str | None = None  # the first error event (an API error after opencode's retries)
    for number_, event in enumerate(lines.objects):
        session = event.get("sessionID") or session
        part = mapping(event.get("part"))
        kind = event.get("type")
        key = f"{kind}:{part.get('callID') or part.get('id') or f'#{number_}'}"
        if kind in ("tool_use", "text", "step_finish"):
            if key in seen:
                continue
            seen.add(key)
        if kind == "step_start":
            started = _ms(event.get("timestamp"))
        elif kind == "tool_use":
            raw = str(part.get("tool") or "")
            state = mapping(part.get("state"))
            args = mapping(state.get("input"))
            meta = mapping(state.get("metadata"))
            exit_code = integer(meta.get("exit"))
            status: CallStatus = ("error" if state.get("status") == "error" or exit_code not in (None, 0)
                                  else "ok" if state.get("status") == "completed" else "unknown")
            kind_name = tool_kind(raw)
            calls.append(ToolCall(kind_name, raw, args, shell_command(kind_name, args), exit_code, status))
            order.append("tool")
        elif kind == "text":
            final = part.get("text") if isinstance(part.get("text"), str) else final
            order.append("text")
        elif kind == "step_finish":
            steps += 1
            tokens = mapping(part.get("tokens"))
            cache = mapping(tokens.get("cache"))
            for name, value in (("input", tokens.get("input")), ("output", tokens.get("output")),
                                ("reasoning", tokens.get("reasoning")), ("read", cache.get("read")),
                                ("write", cache.get("write"))):
                sums[name] += integer(value) or 0
            cost += number(part.get("cost")) or 0.0
            end = _ms(event.get("timestamp"))
            if started is not None and end is not None:
                seconds.append(round(end - started, 3))  # millisecond timestamps
            started = None
            why = part.get("reason")
            terminal = isinstance(why, str) and why != "tool-calls"
        elif kind in ("done", "error"):
            terminal = True
            error = mapping(event.get("error"))
            message = mapping(error.get("data")).get("message") or error.get("name")
            if kind == "error" and message and failure is None:
                failure = f"{error.get('name') or 'error'}: {message}"
    status_word, reason = stream_status(lines.skipped, terminal, "its last step")
    tokens_record = (Tokens(sums["input"], sums["read"], sums["write"], sums["output"] + sums["reasoning"],
                            sums["reasoning"]) if steps else Tokens())
    return Behaviour("opencode", status_word, reason, session, steps or None, None, tuple(calls),
                     tokens_record, cost or None, "agent" if cost else "none", final, tuple(order), tuple(seconds),
                     lines.skipped, unreached=failure if failure and not steps and not calls else None)


FORMAT = TranscriptFormat("opencode", recognise, parse_opencode)
