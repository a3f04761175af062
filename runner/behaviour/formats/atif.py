"""Harbor's ATIF ``trajectory.json`` (``schema_version`` ``ATIF-v1.x``)."""

from __future__ import annotations

from typing import Any, Literal

from runner.behaviour.formats.base import TranscriptFormat
from runner.behaviour.formats.documents import document, message_text, shell_call
from runner.behaviour.jsonl import tool_kind
from runner.runs.behaviour_record import Behaviour, CallStatus, Status, Tokens, ToolCall
from runner.runs.jsonvalues import integer, mapping, number


def recognise(data: dict[str, Any]) -> bool:
    """``schema_version`` starts with ATIF, or a bare version number (an exporter writes "1.4") beside a
    ``steps`` list and an ``agent`` object."""
    if str(data.get("schema_version") or "").startswith("ATIF"):
        return True
    return "schema_version" in data and isinstance(data.get("steps"), list) and isinstance(data.get("agent"), dict)


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
        message = message_text(step.get("message"))
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
                calls.append(shell_call(raw, args, status))
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


FORMAT = TranscriptFormat("atif", recognise, parse_atif, document=True, cut_marks=('"schema_version": "ATIF',))
