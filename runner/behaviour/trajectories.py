"""Trajectory files an agent leaves in its workspace (one JSON document, not a stream on stdout):
mini-swe-agent ``*.traj.json`` (``trajectory_format`` ``mini-swe-agent-1`` and ``-1.1``), SWE-agent ``*.traj``
(``trajectory`` + ``history`` + ``info``) and Harbor's ATIF ``trajectory.json`` (``schema_version`` ``ATIF-v1.x``).

A file without its terminal part (mini-swe-agent and SWE-agent: no ``info.exit_status``; ATIF: no
``final_metrics``) was written before the agent finished: partial.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from runner.behaviour.jsonl import json_document, tool_kind
from runner.behaviour.shell import unwrap
from runner.runs.behaviour_record import Behaviour, CallStatus, Status, Tokens, ToolCall
from runner.runs.jsonvalues import integer, mapping, number

FENCED = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
"""A mini-swe-agent text-mode action: one fenced ``bash`` (v1) or ``mswea_bash_command`` (v2) block."""
RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
SWE_AGENT_TOOLS = {
    "find_file": "search", "search_dir": "search", "search_file": "search", "filemap": "read",
    "open": "read", "goto": "read", "scroll_up": "read", "scroll_down": "read",
    "create": "edit", "edit": "edit", "insert": "edit", "append": "edit", "str_replace_editor": "edit",
    "submit": "other", "exit_forfeit": "other",
}
"""SWE-agent's bundled tools (the first word of an action) by kind; any other action is a shell command."""
EDITOR_READS = {"view"}
"""``str_replace_editor`` subcommands that only read."""


def document(text: str) -> dict[str, Any]:
    """The file as one JSON object, warnings printed around it allowed (ValueError when it is not JSON,
    TypeError when not an object)."""
    data = json_document(text)
    if not isinstance(data, dict):
        raise TypeError(f"expected one JSON object, got {type(data).__name__}")
    return data


def document_format(data: dict[str, Any]) -> str | None:
    """Which trajectory format a JSON document is; None for none of them."""
    if str(data.get("trajectory_format") or "").startswith("mini-swe-agent"):
        return "mini-swe-agent"
    if str(data.get("schema_version") or "").startswith("ATIF"):
        return "atif"
    if "schema_version" in data and isinstance(data.get("steps"), list) and isinstance(data.get("agent"), dict):
        return "atif"  # an ATIF exporter that writes the bare version number ("1.4")
    if isinstance(data.get("trajectory"), list) and "history" in data and "info" in data:
        return "swe-agent"
    return None


def _text(content: Any) -> str:
    """Message content as text: a string, or the text of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return ""


def _cost(value: Any, calls: int | None) -> float | None:
    """litellm's cost; 0 after model calls means cost tracking was off or the price unknown: no cost."""
    cost = number(value)
    return None if cost is None or (cost == 0 and calls) else cost


def _litellm_usage(usage: dict[str, Any]) -> tuple[int, int, int, int, int] | None:
    """(prompt, cached, cache_write, completion, reasoning) of one litellm usage, chat-completions
    (``prompt_tokens``) or Responses API (``input_tokens``) form; None without counts."""
    prompt = integer(usage.get("prompt_tokens", usage.get("input_tokens")))
    completion = integer(usage.get("completion_tokens", usage.get("output_tokens")))
    if prompt is None and completion is None:
        return None
    details = mapping(usage.get("prompt_tokens_details", usage.get("input_tokens_details")))
    cached = integer(details.get("cached_tokens"))
    if cached is None:
        cached = integer(usage.get("cache_read_input_tokens"))
    written = integer(usage.get("cache_creation_input_tokens")) or 0
    output_details = mapping(usage.get("completion_tokens_details", usage.get("output_tokens_details")))
    reasoning = integer(output_details.get("reasoning_tokens")) or 0
    prompt, cached = prompt or 0, cached or 0
    if prompt < cached + written:  # an older litellm left Anthropic's cache tokens out of prompt_tokens
        prompt += cached + written
    return prompt, cached, written, completion or 0, reasoning


def _shell_call(raw: str, args: dict[str, Any], status: CallStatus = "unknown",
                exit_code: int | None = None) -> ToolCall:
    command = args.get("command")
    text = unwrap(command) if isinstance(command, (str, list)) else None
    return ToolCall("shell", raw, args, text, exit_code, status)


def _exit_status(code: int | None) -> CallStatus:
    return "unknown" if code is None else "ok" if code == 0 else "error"


def _finished(info: dict[str, Any]) -> tuple[Status, str]:
    if not info.get("exit_status"):
        return "partial", "the trajectory has no exit status (written before the agent finished)"
    return "parsed", ""


def _arguments(raw: Any) -> dict[str, Any]:
    """A tool call's arguments: an object, or a JSON string of one ({} when it is neither)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {}
    return mapping(raw)


def _mini_calls(message: dict[str, Any], content: str) -> list[tuple[str | None, str, dict[str, Any]]]:
    """(call id, tool name, arguments) of each action of one model response."""
    found: list[tuple[str | None, str, dict[str, Any]]] = []
    if message.get("object") == "response":  # Responses API: function_call items of its output
        for item in message.get("output") or []:
            item = mapping(item)
            if item.get("type") == "function_call":
                raw_args = item.get("arguments")
                args = _arguments(raw_args)
                found.append((str(item.get("call_id") or item.get("id")), str(item.get("name") or "bash"), args))
        return found
    tool_calls = message.get("tool_calls")
    if isinstance(tool_calls, list) and tool_calls:
        for call in tool_calls:
            function = mapping(mapping(call).get("function"))
            raw_args = function.get("arguments")
            args = _arguments(raw_args)
            found.append((str(mapping(call).get("id")), str(function.get("name") or "bash"), args))
        return found
    actions = mapping(message.get("extra")).get("actions")
    if isinstance(actions, list):
        commands = [a.get("command") for a in actions if isinstance(a, dict)]
    else:
        blocks = FENCED.findall(content)
        commands = blocks if len(blocks) == 1 else []  # mini-swe-agent runs exactly one block
    return [(None, "bash", {"command": command}) for command in commands]


def _response_text(message: dict[str, Any]) -> str:
    """The text of a model response: chat content, or a Responses API output's message items."""
    if message.get("object") != "response":
        return _text(message.get("content"))
    parts = [_text(mapping(item).get("content")) for item in message.get("output") or []
             if mapping(item).get("type") == "message"]
    return "\n".join(p for p in parts if p)


def parse_mini_swe_agent(text: str) -> Behaviour:
    """mini-swe-agent ``*.traj.json``. Actions: an assistant's ``tool_calls`` (v2 tool calling, answered by
    ``role: tool`` messages), a Responses API response's ``function_call`` items (answered by
    ``function_call_output`` items), its ``extra.actions`` (v2 text mode), or its one fenced bash block (v1);
    every action is a shell command, its exit code from the observation (``extra.returncode``, or v1's
    ``<returncode>``); an action answered by the exit message (``exit_status`` Submitted) ran with exit code 0.
    Tokens: the sum of each response's usage (``extra.response.usage``, or a Responses API message's ``usage``;
    litellm: the prompt counts cached and cache-write tokens inside it, the completion counts reasoning inside
    it). Model calls and cost from ``info.model_stats`` (``api_calls``, ``instance_cost``), else the number of
    model responses and the sum of their ``extra.cost``; the model from ``info.config.model.model_name``; the
    final message is the last response's text."""
    data = document(text)
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise TypeError("mini-swe-agent trajectory without a messages list")
    info = mapping(data.get("info"))
    stats = mapping(info.get("model_stats"))
    calls: list[ToolCall] = []
    by_id: dict[str, int] = {}
    pending: list[int] = []
    timeline: list[Literal["text", "tool"]] = []
    sums = [0, 0, 0, 0, 0]
    seen_usage = False
    responses = 0
    response_cost: float | None = None
    final = None
    for message in messages:
        if not isinstance(message, dict):
            continue
        role, extra = message.get("role"), mapping(message.get("extra"))
        if role == "assistant" or message.get("object") == "response":
            responses += 1
            if number(extra.get("cost")) is not None:
                response_cost = (response_cost or 0.0) + (number(extra.get("cost")) or 0.0)
            content = _response_text(message)
            if content.strip():
                timeline.append("text")
                final = content
            usage = _litellm_usage(mapping(message.get("usage")) if message.get("object") == "response"
                                   else mapping(mapping(extra.get("response")).get("usage")))
            if usage is not None:
                seen_usage = True
                sums = [a + b for a, b in zip(sums, usage, strict=True)]
            pending = []
            for call_id, raw, args in _mini_calls(message, content):
                if call_id is not None:
                    by_id[call_id] = len(calls)
                pending.append(len(calls))
                calls.append(_shell_call(raw, args))
                timeline.append("tool")
        elif ((role == "tool" and str(message.get("tool_call_id")) in by_id)
              or (message.get("type") == "function_call_output" and str(message.get("call_id")) in by_id)):
            index = by_id[str(message.get("tool_call_id") or message.get("call_id"))]
            calls[index] = _answered(calls[index], integer(extra.get("returncode")))
            pending = [i for i in pending if i != index]
        elif role in ("exit", "user") and pending and "exit_status" in extra:
            # the agent's exit: Submitted means the last action printed the submission with exit code 0
            for index in pending:
                calls[index] = _answered(calls[index], 0 if extra["exit_status"] == "Submitted" else None)
            pending = []
        elif role == "user" and pending:
            code = integer(extra.get("returncode"))
            if code is None:
                found = RETURNCODE.search(_text(message.get("content")))
                code = int(found.group(1)) if found else None
            for index in pending:
                calls[index] = _answered(calls[index], code)
            pending = []
    for index in pending:
        calls[index] = _answered(calls[index], None, "interrupted")
    api_calls = integer(stats.get("api_calls"))
    llm_calls = api_calls if api_calls is not None else responses or None
    prompt, cached, written, completion, reasoning = sums
    tokens = Tokens(prompt - cached - written, cached, written, completion, reasoning) if seen_usage else Tokens()
    cost = _cost(stats.get("instance_cost", response_cost), llm_calls)
    status, reason = _finished(info)
    model = mapping(mapping(info.get("config")).get("model")).get("model_name")
    return Behaviour("mini-swe-agent", status, reason, None, llm_calls, api_calls, tuple(calls), tokens, cost,
                     "agent" if cost is not None else "none", final, tuple(timeline),
                     model=model if isinstance(model, str) else None)


def _answered(call: ToolCall, code: int | None, status: CallStatus | None = None) -> ToolCall:
    return ToolCall(call.name, call.raw_name, call.arguments, call.command, code, status or _exit_status(code))


def _swe_agent_call(action: str) -> ToolCall:
    words = action.split()
    first = words[0] if words else ""
    kind = SWE_AGENT_TOOLS.get(first)
    if kind is None:
        return _shell_call("bash", {"command": action})
    if first == "str_replace_editor" and len(words) > 1 and words[1] in EDITOR_READS:
        kind = "read"
    return ToolCall(kind, first, {"action": action})  # type: ignore[arg-type]


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
        if _text(step.get("thought")).strip():
            timeline.append("text")
        action = step.get("action")
        if isinstance(action, str) and action.strip():
            calls.append(_swe_agent_call(action.strip()))
            timeline.append("tool")
    final = None
    for item in data.get("history") or []:
        if isinstance(item, dict) and item.get("role") == "assistant" and _text(item.get("content")).strip():
            final = _text(item.get("content"))
    api_calls = integer(stats.get("api_calls"))
    sent, received = integer(stats.get("tokens_sent")), integer(stats.get("tokens_received"))
    tokens = Tokens(sent, None, None, received, None) if sent is not None or received is not None else Tokens()
    cost = _cost(stats.get("instance_cost", stats.get("total_cost")), api_calls)
    status, reason = _finished(info)
    return Behaviour("swe-agent", status, reason, None, api_calls, api_calls, tuple(calls), tokens, cost,
                     "agent" if cost is not None else "none", final, tuple(timeline), model=_swe_agent_model(data))


def parse_atif(text: str) -> Behaviour:
    """Harbor's ATIF ``trajectory.json``: tool calls from the agent steps' ``tool_calls`` (answered when an
    observation result names their id; ATIF gives no exit code), model calls Σ ``llm_call_count`` (1 per agent
    step by default; steps copied from an earlier trajectory are not counted). Tokens from ``final_metrics``
    (``total_prompt_tokens`` counts ``total_cached_tokens`` and ``extra.total_cache_creation_input_tokens``
    inside it; ``total_completion_tokens`` is all output), else the sum of the steps' ``metrics`` (partial);
    cost ``total_cost_usd`` (else Σ step ``cost_usd``); the model from ``agent.model_name``."""
    data = document(text)
    steps = data.get("steps")
    if not isinstance(steps, list):
        raise TypeError("ATIF trajectory without a steps list")
    calls: list[ToolCall] = []
    timeline: list[Literal["text", "tool"]] = []
    llm_calls = 0
    sums = [0, 0, 0, 0, 0]
    step_cost: float | None = None
    seen_metrics = False
    final = None
    model = mapping(data.get("agent")).get("model_name")
    for step in steps:
        step = mapping(step)
        if step.get("source") != "agent" or step.get("is_copied_context"):
            continue
        count = integer(step.get("llm_call_count"))
        llm_calls += 1 if count is None else count
        model = model or step.get("model_name")
        message = _text(step.get("message"))
        if message.strip():
            timeline.append("text")
            final = message
        answered = {str(mapping(r).get("source_call_id"))
                    for r in mapping(step.get("observation")).get("results") or []}
        for call in step.get("tool_calls") or []:
            call = mapping(call)
            raw = str(call.get("function_name") or "")
            args = mapping(call.get("arguments"))
            kind = tool_kind(raw)
            status: CallStatus = "unknown" if str(call.get("tool_call_id")) in answered else "interrupted"
            if kind == "shell":
                calls.append(_shell_call(raw, args, status))
            else:
                calls.append(ToolCall(kind, raw, args, None, None, status))
            timeline.append("tool")
        metrics = step.get("metrics")
        if isinstance(metrics, dict):
            seen_metrics = True
            extra = mapping(metrics.get("extra"))
            sums = [a + (b or 0) for a, b in zip(sums, (
                integer(metrics.get("prompt_tokens")), integer(metrics.get("cached_tokens")),
                integer(extra.get("cache_creation_input_tokens")), integer(metrics.get("completion_tokens")),
                integer(extra.get("reasoning_tokens"))), strict=True)]
            if number(metrics.get("cost_usd")) is not None:
                step_cost = (step_cost or 0.0) + (number(metrics.get("cost_usd")) or 0.0)
    final_metrics = data.get("final_metrics")
    status_word: Status = "parsed"
    reason = ""
    if isinstance(final_metrics, dict):
        extra = mapping(final_metrics.get("extra"))
        prompt = integer(final_metrics.get("total_prompt_tokens"))
        cached = integer(final_metrics.get("total_cached_tokens")) or 0
        written = integer(extra.get("total_cache_creation_input_tokens")) or 0
        output = integer(final_metrics.get("total_completion_tokens"))
        reasoning = integer(extra.get("total_reasoning_tokens"))
        tokens = (Tokens(None if prompt is None else prompt - cached - written, cached, written, output, reasoning)
                  if prompt is not None or output is not None else Tokens())
        cost = number(final_metrics.get("total_cost_usd"))
        cost = step_cost if cost is None else cost
    else:
        prompt, cached, written, output, reasoning = sums
        tokens = Tokens(prompt - cached - written, cached, written, output, reasoning) if seen_metrics else Tokens()
        cost = step_cost
        status_word, reason = "partial", "the trajectory has no final_metrics (written before the agent finished)"
    session = data.get("session_id")
    return Behaviour("atif", status_word, reason, session if isinstance(session, str) else None, llm_calls or None,
                     None, tuple(calls), tokens, cost, "agent" if cost is not None else "none", final,
                     tuple(timeline), model=model if isinstance(model, str) else None)
