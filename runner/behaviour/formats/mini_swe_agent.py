"""mini-swe-agent ``*.traj.json`` (``trajectory_format`` ``mini-swe-agent-1`` and ``-1.1``)."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from runner.behaviour.formats.base import TranscriptFormat
from runner.behaviour.formats.documents import agent_cost, document, finished, message_text, shell_call
from runner.runs.behaviour_record import Behaviour, CallStatus, Tokens, ToolCall
from runner.runs.jsonvalues import integer, mapping, number

FENCED = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
"""A mini-swe-agent text-mode action: one fenced ``bash`` (v1) or ``mswea_bash_command`` (v2) block."""
NOT_EXECUTED = "action was not executed"
"""How mini-swe-agent v2 answers its submit command (returncode -1): the submission ends the run instead."""
RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")


def recognise(data: dict[str, Any]) -> bool:
    """``trajectory_format`` starts with mini-swe-agent."""
    return str(data.get("trajectory_format") or "").startswith("mini-swe-agent")


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


def _exit_status(code: int | None) -> CallStatus:
    return "unknown" if code is None else "ok" if code == 0 else "error"


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
        return message_text(message.get("content"))
    parts = [message_text(mapping(item).get("content")) for item in message.get("output") or []
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
                calls.append(shell_call(raw, args))
                timeline.append("tool")
        elif ((role == "tool" and str(message.get("tool_call_id")) in by_id)
              or (message.get("type") == "function_call_output" and str(message.get("call_id")) in by_id)):
            index = by_id[str(message.get("tool_call_id") or message.get("call_id"))]
            if integer(extra.get("returncode")) == -1 and NOT_EXECUTED in str(extra.get("exception_info")):
                continue  # v2's submit command, never run: the exit message that follows answers it
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
                found = RETURNCODE.search(message_text(message.get("content")))
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
    cost = agent_cost(stats.get("instance_cost", response_cost), llm_calls)
    status, reason = finished(info)
    model = mapping(mapping(info.get("config")).get("model")).get("model_name")
    failure = next((mapping(m.get("extra")).get("exception_str") for m in messages
                    if isinstance(m, dict) and m.get("role") == "exit"), None)
    return Behaviour("mini-swe-agent", status, reason, None, llm_calls if responses else 0, api_calls,
                     tuple(calls), tokens, cost, "agent" if cost is not None else "none", final, tuple(timeline),
                     model=model if isinstance(model, str) else None,
                     unreached=str(failure) if failure and not responses else None)


def answered_in_stdout(stdout: str) -> bool:
    """mini prints each model response under a ``mini-swe-agent (step N, $cost):`` header as it arrives."""
    return "mini-swe-agent (step " in stdout


def _answered(call: ToolCall, code: int | None, status: CallStatus | None = None) -> ToolCall:
    return ToolCall(call.name, call.raw_name, call.arguments, call.command, code, status or _exit_status(code))


FORMAT = TranscriptFormat("mini-swe-agent", recognise, parse_mini_swe_agent, document=True,
                          answered=answered_in_stdout,
                          cut_marks=('"trajectory_format": "mini-swe-agent',))
