"""Gemini CLI (``--output-format stream-json`` and ``json``), opencode ``run --format json``, and the generic JSONL
of one ``{"tool": ..., "args": {...}}`` object per line."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Literal

from runner.behaviour.jsonl import json_document, read_lines, tool_kind
from runner.behaviour.shell import unwrap
from runner.runs.behaviour_record import Behaviour, CallStatus, Tokens, ToolCall
from runner.runs.jsonvalues import integer, mapping, number

GEMINI_EXIT = re.compile(r"Command exited with code: (-?\d+)\s*$")
"""What Gemini CLI's shell tool shows for a command that exited non-zero without output (the tool itself still
succeeds); with output it shows only the output, so the exit code is unknown."""


def _shell(kind: str, args: dict[str, Any]) -> str | None:
    command = args.get("command", args.get("cmd"))
    return unwrap(command) if kind == "shell" and isinstance(command, (str, list)) else None


def _ended(lines_skipped: int, terminal: bool, what: str) -> tuple[str, str]:
    if not terminal:
        return "partial", f"the stream ended before {what} (cut off or killed)"
    if lines_skipped:
        return "partial", f"{lines_skipped} line(s) were not JSON"
    return "parsed", ""


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
            calls.append(ToolCall(kind_name, raw, args, _shell(kind_name, args), exit_code, status))
    stats = mapping(result.get("stats")) if result else {}
    tokens = _gemini_stream_tokens(stats) if stats else Tokens()
    status_word, reason = _ended(lines.skipped, result is not None, "its result line")
    final = "".join(final_parts) if order and order[-1][0] == "text" else None
    if model is None or model.startswith("auto"):
        model = _main_model(mapping(stats.get("models")), "total_tokens") or model
    return Behaviour("gemini", status_word, reason, session, calls_made or None, None, tuple(calls),  # type: ignore[arg-type]
                     tokens, None, "none", final, tuple(w for w, _ in order), (), lines.skipped, model)


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


def _main_model(models: dict[str, Any], key: str) -> str | None:
    """The model that used the most tokens (Gemini CLI also calls a flash model to route and check)."""
    best, most = None, -1
    for name, entry in models.items():
        entry = mapping(entry)
        used = integer(entry.get(key, mapping(entry.get("tokens")).get("total"))) or 0
        if isinstance(name, str) and used > most:
            best, most = name, used
    return best


def parse_gemini_json(text: str) -> Behaviour:
    """Gemini CLI ``--output-format json``: one object at the end (pretty-printed; warnings around it allowed).
    Model calls from ``api.totalRequests``; input is the uncached prompt plus the tool-use prompt tokens
    (``prompt`` counts ``cached`` inside it, ``tool`` is beside it); output is candidates plus thoughts, thoughts
    the reasoning. The model is the one that used the most tokens. Tool calls are only counted by name, without
    order or arguments."""
    data = json_document(text)
    if not isinstance(data, dict):
        raise TypeError(f"expected one JSON object, got {type(data).__name__}")
    stats = mapping(data.get("stats"))
    models = mapping(stats.get("models"))
    requests = prompt = cached = candidates = thoughts = tool = 0
    for model in models.values():
        if not isinstance(model, dict):
            continue
        requests += integer(mapping(model.get("api")).get("totalRequests")) or 0
        tok = mapping(model.get("tokens"))
        prompt += integer(tok.get("prompt")) or 0
        cached += integer(tok.get("cached")) or 0
        candidates += integer(tok.get("candidates")) or 0
        thoughts += integer(tok.get("thoughts")) or 0
        tool += integer(tok.get("tool")) or 0
    calls: list[ToolCall] = []
    for raw, entry in sorted(mapping(mapping(stats.get("tools")).get("byName")).items()):
        kind_name = tool_kind(raw)
        count = integer(mapping(entry).get("count")) or 0
        calls.extend(ToolCall(kind_name, raw) for _ in range(count))
    tokens = (Tokens(prompt - cached + tool, cached, None, candidates + thoughts, thoughts) if models
              else Tokens())
    response = data.get("response") if isinstance(data.get("response"), str) else None
    session = data.get("session_id")
    return Behaviour("gemini-json", "parsed", "tool calls counted by name only (no order, arguments or commands)",
                     session if isinstance(session, str) else None, requests or None, None, tuple(calls), tokens,
                     None, "none", response, model=_main_model(models, "total"))


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
            calls.append(ToolCall(kind_name, raw, args, _shell(kind_name, args), exit_code, status))
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
    status_word, reason = _ended(lines.skipped, terminal, "its last step")
    tokens_record = (Tokens(sums["input"], sums["read"], sums["write"], sums["output"] + sums["reasoning"],
                            sums["reasoning"]) if steps else Tokens())
    return Behaviour("opencode", status_word, reason, session, steps or None, None, tuple(calls),  # type: ignore[arg-type]
                     tokens_record, cost or None, "agent" if cost else "none", final, tuple(order), tuple(seconds),
                     lines.skipped)


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
        calls.append(ToolCall(kind_name, raw, args, _shell(kind_name, args), exit_code, status))
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
    status_word, reason = _ended(lines.skipped, True, "")
    return Behaviour("generic", status_word, reason, session, len(turns) or None, None, tuple(calls),  # type: ignore[arg-type]
                     tokens, cost, "agent" if cost is not None else "none", final, tuple(order), seconds,
                     lines.skipped)
