"""OpenAI's Responses API (Codex) and Chat Completions API (opencode, litellm, aider): requests read, replies
written."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from tests.testing.model_provider.dialects import Reply, ToolCall
from tests.testing.model_provider.script import Usage
from tests.testing.model_provider.wire import Answer, Conversation, json_answer, sse, text_of

Body = dict[str, Any]


# --- Responses API ---------------------------------------------------------------------------------------------

def responses_conversation(body: Body) -> Conversation:
    """The conversation of a POST /responses body."""
    offered = {tool["name"]: "custom" if tool.get("type") == "custom" else "function"
               for tool in body.get("tools") or () if tool.get("name")}
    calls: list[tuple[str, str]] = []
    results: dict[str, str] = {}
    texts: list[str] = []
    first_user = ""
    for item in body.get("input") or ():
        kind = item.get("type", "message")
        if kind in ("function_call", "custom_tool_call"):
            calls.append((item["call_id"], item["name"]))
            texts.append("")
        elif kind in ("function_call_output", "custom_tool_call_output"):
            results[item["call_id"]] = text_of(item.get("output"))
        elif kind == "message" and item.get("role") == "assistant":
            texts.append(text_of(item.get("content")))
        elif kind == "message" and item.get("role") == "user" and not first_user:
            first_user = text_of(item.get("content"))
    return Conversation(model=body.get("model", ""), offered=offered, calls=tuple(calls), results=results,
                        assistant_texts=tuple(texts), instructions=f"{body.get('instructions', '')}\n{first_user}",
                        stream=bool(body.get("stream")))


def responses_usage(usage: Usage) -> dict[str, object]:
    """Usage as the Responses API reports it: input counts cached tokens, output counts reasoning."""
    return {"input_tokens": usage.prompt,
            "input_tokens_details": {"cached_tokens": usage.cache_read, "cache_write_tokens": usage.cache_write},
            "output_tokens": usage.output, "output_tokens_details": {"reasoning_tokens": usage.reasoning},
            "total_tokens": usage.prompt + usage.output}


def responses_answer(reply: Reply, call_id: str, usage: Usage, conversation: Conversation, serial: int) -> Answer:
    """The answer to a POST /responses: one output item (a tool call or a message), streamed or whole."""
    item = _responses_item(reply, call_id, conversation, serial)
    response = {"id": f"resp_{serial}", "object": "response", "created_at": int(time.time()),
                "model": conversation.model, "status": "completed", "output": [item],
                "usage": responses_usage(usage)}
    if not conversation.stream:
        return json_answer(response)
    return sse(_responses_events(item, response))


def _responses_item(reply: Reply, call_id: str, conversation: Conversation, serial: int) -> dict[str, object]:
    call = reply.call
    if call is None:
        return {"type": "message", "id": f"msg_{serial}", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}]}
    if conversation.offered.get(call.name) == "custom" and call.freeform is not None:
        return {"type": "custom_tool_call", "id": f"ctc_{serial}", "call_id": call_id, "name": call.name,
                "input": call.freeform, "status": "completed"}
    return {"type": "function_call", "id": f"fc_{serial}", "call_id": call_id, "name": call.name,
            "arguments": json.dumps(call.arguments), "status": "completed"}


def _responses_events(item: dict[str, Any], response: dict[str, Any]) -> Iterator[tuple[str | None, object]]:
    sequence = iter(range(1_000_000))

    def event(kind: str, **data: object) -> tuple[str, object]:
        return kind, {"type": kind, "sequence_number": next(sequence), **data}

    yield event("response.created", response={**response, "status": "in_progress", "output": [], "usage": None})
    yield event("response.in_progress", response={**response, "status": "in_progress", "output": [], "usage": None})
    if item["type"] == "message":
        text = item["content"][0]["text"]
        yield event("response.output_item.added", output_index=0, item={**item, "status": "in_progress",
                                                                        "content": []})
        part = {"type": "output_text", "text": "", "annotations": []}
        yield event("response.content_part.added", item_id=item["id"], output_index=0, content_index=0, part=part)
        for piece in _pieces(text):
            yield event("response.output_text.delta", item_id=item["id"], output_index=0, content_index=0,
                        delta=piece)
        yield event("response.output_text.done", item_id=item["id"], output_index=0, content_index=0, text=text)
        yield event("response.content_part.done", item_id=item["id"], output_index=0, content_index=0,
                    part={**part, "text": text})
    elif item["type"] == "function_call":
        yield event("response.output_item.added", output_index=0, item={**item, "status": "in_progress",
                                                                        "arguments": ""})
        yield event("response.function_call_arguments.delta", item_id=item["id"], output_index=0,
                    delta=item["arguments"])
        yield event("response.function_call_arguments.done", item_id=item["id"], output_index=0,
                    arguments=item["arguments"])
    else:
        yield event("response.output_item.added", output_index=0, item={**item, "status": "in_progress",
                                                                        "input": ""})
        yield event("response.custom_tool_call_input.delta", item_id=item["id"], output_index=0,
                    delta=item["input"])
        yield event("response.custom_tool_call_input.done", item_id=item["id"], output_index=0,
                    input=item["input"])
    yield event("response.output_item.done", output_index=0, item=item)
    yield event("response.completed", response=response)


def _pieces(text: str, size: int = 16) -> list[str]:
    """Text cut into deltas, as a model streams it."""
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


# --- Chat Completions API --------------------------------------------------------------------------------------

def chat_conversation(body: Body) -> Conversation:
    """The conversation of a POST /chat/completions body."""
    offered = {tool["function"]["name"]: "function" for tool in body.get("tools") or () if tool.get("function")}
    calls: list[tuple[str, str]] = []
    results: dict[str, str] = {}
    texts: list[str] = []
    system, first_user = [], ""
    for message in body.get("messages") or ():
        role = message.get("role")
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                calls.append((call["id"], call["function"]["name"]))
            texts.append(text_of(message.get("content")))
        elif role == "tool":
            results[message.get("tool_call_id", "")] = text_of(message.get("content"))
        elif role in ("system", "developer"):
            system.append(text_of(message.get("content")))
        elif role == "user" and not first_user:
            first_user = text_of(message.get("content"))
    return Conversation(model=body.get("model", ""), offered=offered, calls=tuple(calls), results=results,
                        assistant_texts=tuple(texts), instructions="\n".join([*system, first_user]),
                        stream=bool(body.get("stream")))


def chat_usage(usage: Usage) -> dict[str, object]:
    """Usage as Chat Completions reports it: prompt counts cached tokens, completion counts reasoning."""
    return {"prompt_tokens": usage.prompt, "completion_tokens": usage.output,
            "total_tokens": usage.prompt + usage.output,
            "prompt_tokens_details": {"cached_tokens": usage.cache_read},
            "completion_tokens_details": {"reasoning_tokens": usage.reasoning}}


def chat_answer(reply: Reply, call_id: str, usage: Usage, conversation: Conversation, serial: int) -> Answer:
    """The answer to a POST /chat/completions: one choice, as one JSON object or as chunks ending in usage."""
    head = {"id": f"chatcmpl-{serial}", "created": int(time.time()), "model": conversation.model}
    finish = "tool_calls" if reply.call else "stop"
    if not conversation.stream:
        message: dict[str, object] = {"role": "assistant", "content": reply.text or None}
        if reply.call:
            message["tool_calls"] = [_chat_call(reply.call, call_id)]
        return json_answer({**head, "object": "chat.completion", "usage": chat_usage(usage),
                            "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
    return sse(_chat_chunks(reply, call_id, usage, head, finish))


def _chat_call(call: ToolCall, call_id: str) -> dict[str, object]:
    return {"id": call_id, "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}


def _chat_chunks(reply: Reply, call_id: str, usage: Usage, head: dict[str, object],
                 finish: str) -> Iterator[tuple[str | None, object]]:
    def chunk(delta: dict[str, object], reason: str | None = None) -> tuple[None, object]:
        return None, {**head, "object": "chat.completion.chunk",
                      "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}

    yield chunk({"role": "assistant", "content": ""})
    for piece in _pieces(reply.text) if reply.text else ():
        yield chunk({"content": piece})
    if reply.call:
        arguments = json.dumps(reply.call.arguments)
        yield chunk({"tool_calls": [{"index": 0, "id": call_id, "type": "function",
                                     "function": {"name": reply.call.name, "arguments": ""}}]})
        yield chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]})
    yield chunk({}, finish)
    yield None, {**head, "object": "chat.completion.chunk", "choices": [], "usage": chat_usage(usage)}
    yield None, "[DONE]"


def models_list(model: str) -> Answer:
    """GET /models: the scripted model alone."""
    return json_answer({"object": "list", "data": [{"id": model, "object": "model", "created": 0,
                                                     "owned_by": "hindcast"}]})
