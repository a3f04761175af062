"""Claude Code ``claude -p --output-format stream-json --verbose``.

One API message arrives as several ``assistant`` events with the same ``message.id``, each with a usage snapshot
and some of its content blocks: messages are counted once (model calls = distinct ids of the main agent), tool
calls once per ``tool_use`` id (messages Claude Code writes itself, model ``<synthetic>``, are no model calls),
and the totals come from the ``result`` line (``modelUsage`` summed over models,
auxiliary ones included, else ``usage``); without a result line the stream was cut off, and the last snapshot of
each message is summed instead (partial). Anthropic's ``input_tokens`` already excludes cache reads and writes;
output includes thinking, and no reasoning count is given. A Bash call that exited non-zero is an error result
beginning ``Exit code N``: its exit code; a successful one names none (None).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from runner.behaviour.formats.base import TranscriptFormat, event_type
from runner.behaviour.jsonl import read_lines, tool_kind
from runner.runs.behaviour_record import Behaviour, CallStatus, Status, Tokens, ToolCall
from runner.runs.jsonvalues import integer, mapping, number

POLLS = {"BashOutput", "KillShell", "KillBash"}
"""Tools that poll or stop a shell already started: not new commands."""
EXIT_CODE = re.compile(r"\s*Exit code (-?\d+)\b")
"""How Claude Code's Bash tool begins the result of a command that exited non-zero (the result is an error)."""
SYNTHETIC = "<synthetic>"
"""The model name of a message Claude Code writes itself (an API error, an interruption): not a model call."""
TYPES = frozenset({"system", "assistant", "user", "result", "stream_event", "rate_limit_event", "subagent_token_usage"})
"""Claude Code stream-json event types; every event carries the session id (hooks may come before init)."""


def recognise(event: dict[str, Any]) -> bool:
    """A ``system`` event with a session id (any subtype: hooks come before init), an ``assistant`` or ``user``
    message, a ``result`` with its cost, turns or subtype, or any of its event types with a session id and a
    uuid."""
    kind = event_type(event)
    if kind == "system" and ("session_id" in event or event.get("subtype") == "init"):
        return True
    if kind in ("assistant", "user") and isinstance(event.get("message"), dict):
        return True
    if kind == "result" and ("total_cost_usd" in event or "num_turns" in event or "subtype" in event):
        return True
    return kind in TYPES and "session_id" in event and "uuid" in event


def _tokens_from_usage(usage: dict[str, Any]) -> Tokens:
    return Tokens(integer(usage.get("input_tokens")), integer(usage.get("cache_read_input_tokens")),
                  integer(usage.get("cache_creation_input_tokens")), integer(usage.get("output_tokens")), None)


def _tokens_from_models(models: dict[str, Any]) -> Tokens:
    buckets = {"inputTokens": 0, "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0, "outputTokens": 0}
    for usage in models.values():
        if isinstance(usage, dict):
            for key in buckets:
                buckets[key] += integer(usage.get(key)) or 0
    return Tokens(buckets["inputTokens"], buckets["cacheReadInputTokens"], buckets["cacheCreationInputTokens"],
                  buckets["outputTokens"], None)


def _exit_code(result: dict[str, Any]) -> int | None:
    """The exit code a failed Bash call's result begins with (``Exit code 2\n...``); None when it names none."""
    content = result.get("content")
    if isinstance(content, list):
        content = "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    found = EXIT_CODE.match(content) if isinstance(content, str) else None
    return int(found.group(1)) if found else None


def _sum(tokens: list[Tokens]) -> Tokens:
    def total(name: str) -> int | None:
        values = [getattr(t, name) for t in tokens if getattr(t, name) is not None]
        return sum(values) if values else None

    return Tokens(total("input"), total("cache_read"), total("cache_write"), total("output"), None)


def parse_claude(text: str) -> Behaviour:
    """The record of a Claude Code stream-json transcript."""
    lines = read_lines(text)
    session = None
    model = None
    main_messages: set[str] = set()
    snapshots: dict[str, Tokens] = {}
    uses: dict[str, dict[str, Any]] = {}
    results: dict[str, dict[str, Any]] = {}
    interrupted: set[str] = set()
    order: list[tuple[Literal["text", "tool"], str]] = []
    seen_text: set[str] = set()
    last_text = None
    result: dict[str, Any] | None = None
    retries: list[str] = []  # api_retry events: a model call that did not get through
    for event in lines.objects:
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "api_retry":
            retries.append(f"api_retry attempt {event.get('attempt')}: error {event.get('error')}, "
                           f"HTTP status {event.get('error_status')}")
        if kind == "system" and event.get("subtype") == "init":
            session = event.get("session_id") or session
            model = event.get("model") if isinstance(event.get("model"), str) else model
        elif kind == "assistant" and isinstance(event.get("message"), dict):
            message = event["message"]
            message_id = str(message.get("id") or f"#{len(snapshots)}")
            if isinstance(message.get("usage"), dict):
                snapshots[message_id] = _tokens_from_usage(message["usage"])  # keep the last snapshot
            main = event.get("parent_tool_use_id") is None
            synthetic = message.get("model") == SYNTHETIC
            if main and not synthetic:
                main_messages.add(message_id)
                if model is None and isinstance(message.get("model"), str):
                    model = message["model"]
            for block in message.get("content") or []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") in ("tool_use", "server_tool_use") and str(block.get("id")) not in uses:
                    uses[str(block.get("id"))] = block
                    order.append(("tool", str(block.get("id"))))
                elif block.get("type") == "text" and main:
                    key = message_id + json.dumps(block, sort_keys=True)
                    if key not in seen_text:
                        seen_text.add(key)
                        order.append(("text", key))
                        last_text = block.get("text") if isinstance(block.get("text"), str) else last_text
        elif kind == "user" and isinstance(event.get("message"), dict):
            echo = event.get("tool_use_result")
            for block in event["message"].get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id"))] = block
                    if isinstance(echo, dict) and echo.get("interrupted"):
                        interrupted.add(str(block.get("tool_use_id")))
        elif kind == "result":
            result = event
    calls = []
    for what, key in order:
        if what != "tool":
            continue
        use = uses[key]
        raw = str(use.get("name") or "")
        args = mapping(use.get("input"))
        answered = results.get(key)
        status: CallStatus = ("interrupted" if key in interrupted or answered is None
                              else "error" if answered.get("is_error") else "ok")
        kind_name = "other" if raw in POLLS else tool_kind(raw)
        if use.get("type") == "server_tool_use" and kind_name == "other":
            kind_name = "web_search" if "search" in raw else "web_fetch" if "fetch" in raw else "other"
        command = args.get("command") if kind_name == "shell" and isinstance(args.get("command"), str) else None
        exit_code = _exit_code(answered) if kind_name == "shell" and status == "error" and answered else None
        calls.append(ToolCall(kind_name, raw, args, command, exit_code, status))
    status_word: Status
    if result is not None:
        models = result.get("modelUsage")
        tokens = (_tokens_from_models(models) if isinstance(models, dict) and models
                  else _tokens_from_usage(result["usage"]) if isinstance(result.get("usage"), dict) else Tokens())
        cost = number(result.get("total_cost_usd", result.get("cost_usd")))
        final = result.get("result") if isinstance(result.get("result"), str) else last_text
        session = result.get("session_id") or session
        status_word, reason = ("partial", f"{lines.skipped} line(s) were not JSON") if lines.skipped else ("parsed", "")
        turns = integer(result.get("num_turns"))
    else:
        tokens, cost, final, turns = _sum(list(snapshots.values())), None, last_text, None
        status_word, reason = "partial", "the stream ended before its result line (cut off or killed)"
    return Behaviour("claude", status_word, reason, session, len(main_messages) or None, turns,
                     tuple(calls), tokens, cost, "agent" if cost is not None else "none", final,
                     tuple(w for w, _ in order), (), lines.skipped, model,
                     unreached=retries[-1] if retries and not main_messages else None)


FORMAT = TranscriptFormat("claude", recognise, parse_claude)
