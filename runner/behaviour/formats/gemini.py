"""Gemini CLI ``--output-format stream-json``: ``init``, ``message``, ``tool_use``, ``tool_result`` and ``result``
events, one per line."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Literal

from runner.behaviour.formats.base import TranscriptFormat, event_type
from runner.behaviour.jsonl import read_lines, shell_command, stream_status, tool_kind
from runner.runs.behaviour_record import Behaviour, CallStatus, Tokens, ToolCall
from runner.runs.jsonvalues import integer, mapping

GEMINI_EXIT = re.compile(r"Command exited with code: (-?\d+)\s*$")
"""What Gemini CLI's shell tool shows for a command that exited non-zero without output (the tool itself still
succeeds); with output it shows only the output, so the exit code is unknown."""


def recognise(event: dict[str, Any]) -> bool:
    """An ``init`` with its model or session id, a message or tool event with its role or tool id, or a
    ``result`` with its status and stats or timestamp."""
    kind = event_type(event)
    if kind == "init" and ("model" in event or "session_id" in event):
        return True
    if kind in ("message", "tool_use", "tool_result") and ("role" in event or "tool_id" in event):
        return True
    return kind == "result" and "status" in event and ("stats" in event or "timestamp" in event)


def parse_gemini_stream(text: str) -> Behaviour:
    """Gemini CLI stream-json: ``input_tokens`` counts cached tokens inside it (``input`` is the rest);
    ``output_tokens`` excludes the thoughts ``total_tokens`` counts, so output is ``total_tokens -
    input_tokens`` (the stream does not separate thoughts: reasoning None). An ``auto`` model names the model
    that used the most tokens.
    A shell command's exit code shows only when it exited non-zero without output (then it is an error).
    Model calls: runs of assistant text or tool calls between tool results."""
    lines = read_lines(text)
    session = None
    uses: dict[str, dict[str, Any]] = {}
    results: dict[str, dict[str, Any]] = {}
    order: list[tuple[Literal["text", "tool"], str]] = []
    final_parts: list[str] = []
    result: dict[str, Any] | None = None
    model = None
    calls_made = 0
    in_call = False
    for number_, event in enumerate(lines.objects):
        kind = event.get("type")
        if kind == "init":
            session = event.get("session_id") or session
            model = event.get("model") if isinstance(event.get("model"), str) else model
        elif kind == "message" and event.get("role") == "assistant":
            if not order or order[-1][0] != "text":
                order.append(("text", str(number_)))
                final_parts = []
            final_parts.append(str(event.get("content") or ""))
            if not in_call:
                calls_made, in_call = calls_made + 1, True
        elif kind == "tool_use":
            tool_id = str(event.get("tool_id") or number_)
            uses[tool_id] = event
            order.append(("tool", tool_id))
            if not in_call:
                calls_made, in_call = calls_made + 1, True
        elif kind == "tool_result":
            results[str(event.get("tool_id"))] = event
            in_call = False
        elif kind == "result":
            result = event
    calls = []
    for what, key in order:
        if what == "tool":
            use = uses[key]
            raw = str(use.get("tool_name") or "")
            args = mapping(use.get("parameters"))
            answered = results.get(key)
            status: CallStatus = ("interrupted" if answered is None
                                  else "ok" if answered.get("status") == "success" else "error")
            kind_name = tool_kind(raw)
            exit_code = None
            if kind_name == "shell" and answered is not None and isinstance(answered.get("output"), str):
                found = GEMINI_EXIT.match(answered["output"])
                exit_code = int(found.group(1)) if found else None
                status = "error" if exit_code else status
            calls.append(ToolCall(kind_name, raw, args, shell_command(kind_name, args), exit_code, status))
    stats = mapping(result.get("stats")) if result else {}
    tokens = _gemini_stream_tokens(stats) if stats else Tokens()
    status_word, reason = stream_status(lines.skipped, result is not None, "its result line")
    final = "".join(final_parts) if order and order[-1][0] == "text" else None
    if model is None or model.startswith("auto"):
        model = main_model(mapping(stats.get("models")), "total_tokens") or model
    failure = mapping(result.get("error")).get("message") if result and result.get("status") == "error" else None
    return Behaviour("gemini", status_word, reason, session, calls_made or None, None, tuple(calls),
                     tokens, None, "none", final, tuple(w for w, _ in order), (), lines.skipped, model,
                     unreached=str(failure) if failure and not calls_made else None)


def _gemini_stream_tokens(stats: dict[str, Any]) -> Tokens:
    """stream-json stats: ``input_tokens`` is the prompt (cached included; ``input`` is the uncached part),
    ``output_tokens`` the candidates only; ``total_tokens`` also counts thoughts (and tool-use prompt tokens,
    which the stream does not separate), so output is ``total_tokens - input_tokens``."""
    prompt, cached = integer(stats.get("input_tokens")), integer(stats.get("cached"))
    uncached = integer(stats.get("input"))
    if uncached is None and prompt is not None:
        uncached = prompt - (cached or 0)
    output, total = integer(stats.get("output_tokens")), integer(stats.get("total_tokens"))
    if output is not None and total is not None and prompt is not None and total - prompt >= output:
        output = total - prompt
    return Tokens(uncached, cached, None, output, None)


def main_model(models: dict[str, Any], key: str) -> str | None:
    """The model that used the most tokens (Gemini CLI also calls a flash model to route and check)."""
    best, most = None, -1
    for name, entry in models.items():
        entry = mapping(entry)
        used = integer(entry.get(key, mapping(entry.get("tokens")).get("total"))) or 0
        if isinstance(name, str) and used > most:
            best, most = name, used
    return best


CHAT_EXIT = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)
"""How the result the model gets of a shell command names its exit code (the stream's display text does not)."""


def with_chat(record: Behaviour, text: str) -> Behaviour:
    """The record completed from Gemini CLI's chat file (``~/.gemini/tmp/<project>/chats/session-*.jsonl``): one
    model call per ``gemini`` message id with its tokens (``input`` the prompt, cached inside it; ``output``
    without ``thoughts``) and model, and each shell command's exit code from the result the model got (the
    stream shows a failed command as a success). The stream keeps the tool calls' order and whether the model
    was reached."""
    messages: dict[str, dict[str, Any]] = {}
    results: list[tuple[str, str]] = []  # (tool name, output) of each tool call, in order
    for entry in read_lines(text).objects:
        if entry.get("type") != "gemini" or not isinstance(entry.get("tokens"), dict):
            continue
        message_id = str(entry.get("id"))
        messages[message_id] = entry  # the last copy of a message is the whole
    for entry in messages.values():
        for call in entry.get("toolCalls") or []:
            call = mapping(call)
            output = ""
            for part in call.get("result") or []:
                response = mapping(mapping(mapping(part).get("functionResponse")).get("response"))
                output += str(response.get("output") or response.get("error") or "")
            results.append((str(call.get("name") or ""), output))
    if not messages:
        return record
    prompt = sum(integer(mapping(m["tokens"]).get("input")) or 0 for m in messages.values())
    cached = sum(integer(mapping(m["tokens"]).get("cached")) or 0 for m in messages.values())
    thoughts = sum(integer(mapping(m["tokens"]).get("thoughts")) or 0 for m in messages.values())
    generated = sum(integer(mapping(m["tokens"]).get("output")) or 0 for m in messages.values())
    models = [m.get("model") for m in messages.values() if isinstance(m.get("model"), str)]
    calls = list(record.tool_calls)
    if len(results) == len(calls):
        for index, (call, (name, result)) in enumerate(zip(calls, results, strict=True)):
            found = CHAT_EXIT.search(result)
            if call.name == "shell" and call.raw_name == name and found:
                code = int(found.group(1))
                calls[index] = replace(call, exit_code=code, status="ok" if code == 0 else "error")
    return replace(record, llm_calls=len(messages), model=models[-1] if models else record.model,
                   tokens=Tokens(prompt - cached, cached, None, generated + thoughts, thoughts),
                   tool_calls=tuple(calls))


FORMAT = TranscriptFormat("gemini", recognise, parse_gemini_stream, session=with_chat)
