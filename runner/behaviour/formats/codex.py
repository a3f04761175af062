"""Codex CLI ``codex exec --json``: thread/turn/item events (the current ThreadEvent form, the short-lived
``item_type`` form), and the older ``{"id", "msg"}`` protocol events.

Usage on ``turn.completed`` (and legacy ``token_count``) is the thread's running total, so the record takes the
last total, never a sum; input counts cached and cache-write tokens inside it, output counts reasoning inside it.
The stream shows no model calls (``llm_calls`` None) and no cost. A stream without ``turn.completed`` or
``turn.failed`` (legacy: ``task_complete``) was cut off: partial; the experimental form prints no terminal
event, so only a line cut mid-way marks it partial.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from runner.behaviour.formats.base import TranscriptFormat, event_type
from runner.behaviour.jsonl import read_lines
from runner.behaviour.shell import unwrap
from runner.runs.behaviour_record import Behaviour, CallStatus, Status, Tokens, ToolCall
from runner.runs.jsonvalues import integer, mapping

TOOL_ITEMS = {"command_execution": "shell", "file_change": "edit", "mcp_tool_call": "mcp",
              "web_search": "web_search", "collab_tool_call": "subagent"}
MESSAGE_ITEMS = {"agent_message", "assistant_message"}
EVENTS = frozenset({"thread.started", "turn.started", "turn.completed", "turn.failed", "session.created"})
"""Thread and turn events (any ``item.*`` event too); the experimental form's first event is ``session.created``."""


def recognise(event: dict[str, Any]) -> bool:
    """A thread, turn or item event; or a legacy one: a ``msg`` object, or the configuration summary printed
    first (``model`` and ``workdir``)."""
    kind = event_type(event)
    if kind is not None and (kind in EVENTS or kind.startswith("item.")):
        return True
    return isinstance(event.get("msg"), dict) or ("model" in event and "workdir" in event)


def _tokens(usage: dict[str, Any]) -> Tokens:
    total_in, cached = integer(usage.get("input_tokens")), integer(usage.get("cached_input_tokens"))
    written = integer(usage.get("cache_write_input_tokens"))
    uncached = None if total_in is None else total_in - (cached or 0) - (written or 0)
    return Tokens(uncached, cached, written, integer(usage.get("output_tokens")),
                  integer(usage.get("reasoning_output_tokens")))


def _item_type(item: dict[str, Any]) -> str:
    """An item's type: ``type``, or ``item_type`` in the short-lived experimental form."""
    kind = item.get("type") or item.get("item_type")
    return kind if isinstance(kind, str) else ""


def _call(item: dict[str, Any], kind: str, finished: bool) -> ToolCall:
    item_type = _item_type(item)
    status_word = item.get("status")
    exit_code = integer(item.get("exit_code"))
    status: CallStatus
    if not finished:
        status = "interrupted"
    elif status_word in ("failed", "declined") or item.get("error") or (exit_code not in (None, 0)):
        status = "error"
    elif status_word == "completed" or exit_code == 0:
        status = "ok"
    else:
        status = "unknown"
    if kind == "shell":
        command = item.get("command")
        text = unwrap(command) if isinstance(command, (str, list)) else None
        return ToolCall("shell", item_type, {"command": command}, text, exit_code, status)
    if kind == "mcp":
        raw = f"{item.get('server', '')}.{item.get('tool', '')}"
        args = mapping(item.get("arguments"))
        return ToolCall("mcp", raw, args, None, None, status)
    if kind == "edit":
        return ToolCall("edit", item_type, {"changes": item.get("changes") or []}, None, None, status)
    if kind == "web_search":
        return ToolCall("web_search", item_type, {"query": item.get("query")}, None, None, status)
    return ToolCall("subagent", item_type, {"tool": item.get("tool")}, None, None, status)


def parse_codex(text: str) -> Behaviour:
    """The record of a ``codex exec --json`` stream (either form)."""
    lines = read_lines(text)
    if any("msg" in o and isinstance(o.get("msg"), dict) for o in lines.objects[:20]):
        return _parse_legacy(text)
    session = None
    turns = 0
    ended = False
    usage: dict[str, Any] | None = None
    items: dict[str, tuple[int, dict[str, Any], bool]] = {}  # id -> (first position, last seen, finished)
    order: list[tuple[int, Literal["text", "tool"], str]] = []
    final = None
    errors: list[str] = []  # the stream's own error events (Reconnecting..., turn.failed)
    answered = False  # an item of the model's (a message, a tool call) or a turn's usage
    turn_message: str | None = None  # this turn's last agent message
    turn_plan: str | None = None  # this turn's last plan (plan mode), the final message when it has no message
    for position, event in enumerate(lines.objects, start=1):
        kind = event.get("type")
        if kind == "thread.started":
            session = event.get("thread_id") or session
        elif kind == "session.created":
            session = event.get("session_id") or session
        elif kind == "turn.started":
            turns += 1
            turn_message = turn_plan = None
        elif kind == "error" and isinstance(event.get("message"), str):
            errors.append(event["message"])
        elif kind in ("turn.completed", "turn.failed"):
            ended = True
            failure = mapping(event.get("error")).get("message")
            if kind == "turn.failed" and isinstance(failure, str):
                errors.append(failure)
            answered = answered or kind == "turn.completed"
            if turn_message is None and turn_plan is not None:
                final = turn_plan
            if isinstance(event.get("usage"), dict):
                usage = event["usage"]  # the thread's running total: the last one is the whole
        elif kind in ("item.started", "item.updated", "item.completed") and isinstance(event.get("item"), dict):
            item = event["item"]
            item_type = _item_type(item)
            item_id = str(item.get("id") or f"#{position}")
            done = kind == "item.completed"
            answered = answered or item_type not in ("error", "user_message")
            if item_type in MESSAGE_ITEMS and done:
                if isinstance(item.get("text"), str):
                    final = turn_message = item["text"]
                order.append((position, "text", item_id))
            elif item_type == "plan" and done and isinstance(item.get("text"), str):
                turn_plan = item["text"]
            elif item_type in TOOL_ITEMS:
                first = items[item_id][0] if item_id in items else position
                if item_id not in items:
                    order.append((position, "tool", item_id))
                was_done = items[item_id][2] if item_id in items else False
                items[item_id] = (first, item, was_done or done)
    calls = tuple(_call(items[i][1], TOOL_ITEMS[_item_type(items[i][1])], items[i][2])
                  for _, what, i in order if what == "tool")
    timeline = tuple(what for _, what, _ in order)
    status: Status = "parsed"
    reason = ""
    experimental = session is not None and turns == 0 and any(o.get("type") == "session.created"
                                                              for o in lines.objects)
    if experimental and not lines.cut_off:
        ended = True  # the experimental form has no terminal event: only a line cut mid-way shows the cut
    if not ended:
        status, reason = "partial", "the stream ended before turn.completed (cut off or killed)"
    elif lines.skipped:
        status, reason = "partial", f"{lines.skipped} line(s) were not JSON"
    if not ended and turn_message is None and turn_plan is not None:
        final = turn_plan
    return Behaviour("codex", status, reason, session, None, turns or None, calls,
                     _tokens(usage) if usage else Tokens(), None, "none", final, timeline, (), lines.skipped,
                     unreached=errors[0] if errors and not answered else None)


def _parse_legacy(text: str) -> Behaviour:
    lines = read_lines(text)
    session = None
    turns = 0
    ended = False
    usage: dict[str, Any] | None = None
    calls: dict[str, dict[str, Any]] = {}
    order: list[tuple[Literal["text", "tool"], str]] = []
    final = None
    model = None
    for number, event in enumerate(lines.objects):
        msg = event.get("msg")
        if not isinstance(msg, dict):
            if isinstance(event.get("model"), str) and "workdir" in event:
                model = event["model"]  # the configuration summary printed first
            continue
        kind = msg.get("type")
        call_id = str(msg.get("call_id") or f"#{number}")
        if kind == "session_configured":
            session = msg.get("session_id") or session
            model = msg.get("model") if isinstance(msg.get("model"), str) else model
        elif kind == "task_started":
            turns += 1
        elif kind == "exec_command_begin":
            calls[call_id] = {"kind": "shell", "command": msg.get("command"), "done": False}
            order.append(("tool", call_id))
        elif kind == "exec_command_end" and call_id in calls:
            calls[call_id].update(done=True, exit_code=integer(msg.get("exit_code")))
        elif kind == "patch_apply_begin":
            calls[call_id] = {"kind": "edit", "changes": msg.get("changes"), "done": False}
            order.append(("tool", call_id))
        elif kind == "patch_apply_end" and call_id in calls:
            calls[call_id].update(done=True, exit_code=0 if msg.get("success", True) else 1)
        elif kind == "mcp_tool_call_begin":
            invocation = mapping(msg.get("invocation"))
            calls[call_id] = {"kind": "mcp", "done": False, "arguments": mapping(invocation.get("arguments")),
                              "raw": f"{invocation.get('server', '')}.{invocation.get('tool', '')}"}
            order.append(("tool", call_id))
        elif kind == "mcp_tool_call_end" and call_id in calls:
            result = mapping(msg.get("result"))
            failed = "Err" in result or bool(mapping(result.get("Ok")).get("isError"))
            calls[call_id].update(done=True, exit_code=1 if failed else 0)
        elif kind == "web_search_begin":
            calls[call_id] = {"kind": "web_search", "done": False, "query": msg.get("query")}
            order.append(("tool", call_id))
        elif kind == "web_search_end":
            if call_id not in calls:
                calls[call_id] = {"kind": "web_search", "done": True, "query": msg.get("query")}
                order.append(("tool", call_id))
            calls[call_id].update(done=True, query=msg.get("query") or calls[call_id].get("query"))
        elif kind == "agent_message":
            final = msg.get("message") if isinstance(msg.get("message"), str) else final
            order.append(("text", call_id))
        elif kind == "token_count":
            info = msg.get("info")
            total = info.get("total_token_usage") if isinstance(info, dict) else msg
            if isinstance(total, dict) and integer(total.get("input_tokens")) is not None:
                usage = total  # a running total, re-emitted unchanged at times: the last is the whole
        elif kind == "task_complete":
            ended = True
            final = msg.get("last_agent_message") if isinstance(msg.get("last_agent_message"), str) else final
    tool_calls = []
    for what, call_id in order:
        if what != "tool":
            continue
        call = calls[call_id]
        exit_code = call.get("exit_code")
        status: CallStatus = ("interrupted" if not call["done"] else "ok" if exit_code in (0, None) else "error")
        if call["kind"] == "shell":
            command = call.get("command")
            shell_text = unwrap(command) if isinstance(command, (str, list)) else None
            tool_calls.append(ToolCall("shell", "exec_command", {"command": command}, shell_text, exit_code, status))
        elif call["kind"] == "mcp":
            tool_calls.append(ToolCall("mcp", call["raw"], call["arguments"], None, None, status))
        elif call["kind"] == "web_search":
            tool_calls.append(ToolCall("web_search", "web_search", {"query": call.get("query")}, None, None, status))
        else:
            tool_calls.append(ToolCall("edit", "apply_patch", {"changes": call.get("changes")}, None, None, status))
    status_word: Status = "parsed"
    reason = ""
    if not ended:
        status_word, reason = "partial", "the stream ended before task_complete (cut off or killed)"
    elif lines.skipped:
        status_word, reason = "partial", f"{lines.skipped} line(s) were not JSON"
    return Behaviour("codex", status_word, reason, session, None, turns or None, tuple(tool_calls),
                     _tokens(usage) if usage else Tokens(), None, "none", final, tuple(w for w, _ in order), (),
                     lines.skipped, model)


def with_rollout(record: Behaviour, text: str) -> Behaviour:
    """The record completed from Codex's rollout file (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): the
    model of ``turn_context``, one model call per ``token_usage_record`` (per response id), their usage summed
    (else the last ``token_count`` total, each change of it one call). The stream keeps its tool calls, its
    final message and whether the model was reached."""
    model = record.model
    per_response: dict[str, dict[str, Any]] = {}
    totals: list[dict[str, Any]] = []
    for entry in read_lines(text).objects:
        payload = mapping(entry.get("payload"))
        kind = entry.get("type")
        if kind == "turn_context" and isinstance(payload.get("model"), str):
            model = payload["model"]
        elif kind == "token_usage_record" and isinstance(payload.get("usage"), dict):
            per_response[str(payload.get("response_id") or len(per_response))] = payload["usage"]
        elif kind == "event_msg" and payload.get("type") == "token_count":
            total = mapping(mapping(payload.get("info")).get("total_token_usage"))
            if total and (not totals or totals[-1] != total):
                totals.append(total)
    if per_response:
        parts = [_tokens(usage) for usage in per_response.values()]
        tokens = Tokens(*(sum(getattr(t, name) or 0 for t in parts)
                          for name in ("input", "cache_read", "cache_write", "output", "reasoning")))
        calls: int | None = len(per_response)
    elif totals:
        tokens, calls = _tokens(totals[-1]), len(totals)
    else:
        tokens, calls = record.tokens, record.llm_calls
    return replace(record, model=model, llm_calls=calls, tokens=tokens)


FORMAT = TranscriptFormat("codex", recognise, parse_codex, session=with_rollout)
