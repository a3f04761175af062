"""Anthropic's Messages API (Claude Code): requests read, replies written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from tests.testing.model_provider.dialects import Reply
from tests.testing.model_provider.script import Usage
from tests.testing.model_provider.wire import Answer, Conversation, json_answer, sse, text_of

Body = dict[str, Any]


def messages_conversation(body: Body) -> Conversation:
    """The conversation of a POST /v1/messages body."""
    offered = {tool["name"]: "function" for tool in body.get("tools") or () if tool.get("name")}
    calls: list[tuple[str, str]] = []
    results: dict[str, str] = {}
    texts: list[str] = []
    first_user = ""
    for message in body.get("messages") or ():
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        if message.get("role") == "assistant":
            calls.extend((block["id"], block["name"]) for block in blocks if block.get("type") == "tool_use")
            texts.append("".join(block.get("text", "") for block in blocks if block.get("type") == "text"))
            continue
        for block in blocks:
            if block.get("type") == "tool_result":
                results[block["tool_use_id"]] = text_of(block.get("content"))
        if not first_user:
            first_user = "".join(block.get("text", "") for block in blocks if block.get("type") == "text")
    return Conversation(model=body.get("model", ""), offered=offered, calls=tuple(calls), results=results,
                        assistant_texts=tuple(texts), instructions=f"{text_of(body.get('system'))}\n{first_user}",
                        stream=bool(body.get("stream")))


def messages_usage(usage: Usage, output: int | None = None) -> dict[str, object]:
    """Usage as Anthropic reports it: input excludes cache reads and writes, output includes thinking."""
    return {"input_tokens": usage.input, "cache_creation_input_tokens": usage.cache_write,
            "cache_read_input_tokens": usage.cache_read,
            "output_tokens": usage.output if output is None else output}


def messages_answer(reply: Reply, call_id: str, usage: Usage, conversation: Conversation, serial: int) -> Answer:
    """The answer to a POST /v1/messages: a text block and at most one tool_use block."""
    blocks: list[dict[str, object]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    if reply.call:
        blocks.append({"type": "tool_use", "id": call_id, "name": reply.call.name, "input": reply.call.arguments})
    stop = "tool_use" if reply.call else "end_turn"
    message = {"id": f"msg_hindcast_{serial}", "type": "message", "role": "assistant",
               "model": conversation.model, "content": blocks, "stop_reason": stop, "stop_sequence": None,
               "usage": messages_usage(usage)}
    if not conversation.stream:
        return json_answer(message)
    return sse(_message_events(message, blocks, usage, stop))


def _message_events(message: dict[str, Any], blocks: list[dict[str, Any]], usage: Usage,
                    stop: str) -> Iterator[tuple[str | None, object]]:
    def event(kind: str, **data: object) -> tuple[str, object]:
        return kind, {"type": kind, **data}

    yield event("message_start", message={**message, "content": [], "stop_reason": None,
                                          "usage": messages_usage(usage, output=1)})
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            yield event("content_block_start", index=index, content_block={"type": "text", "text": ""})
            yield event("content_block_delta", index=index, delta={"type": "text_delta", "text": block["text"]})
        else:
            yield event("content_block_start", index=index,
                        content_block={"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}})
            yield event("content_block_delta", index=index,
                        delta={"type": "input_json_delta", "partial_json": json.dumps(block["input"])})
        yield event("content_block_stop", index=index)
    yield event("message_delta", delta={"stop_reason": stop, "stop_sequence": None}, usage=messages_usage(usage))
    yield event("message_stop")


def count_tokens(body: Body) -> Answer:
    """POST /v1/messages/count_tokens: a size that grows with the request."""
    return json_answer({"input_tokens": max(1, len(json.dumps(body)) // 4)})
