"""Gemini's generateContent and streamGenerateContent (Gemini CLI): requests read, replies written."""

from __future__ import annotations

import json
from typing import Any

from tests.testing.model_provider.dialects import Reply
from tests.testing.model_provider.script import Usage
from tests.testing.model_provider.wire import Answer, Conversation, json_answer, sse, text_of

Body = dict[str, Any]


def generate_conversation(body: Body, model: str, stream: bool) -> Conversation:
    """The conversation of a POST /models/MODEL:generateContent (or :streamGenerateContent) body."""
    offered = {declaration["name"]: "function" for tool in body.get("tools") or ()
               for declaration in tool.get("functionDeclarations") or () if declaration.get("name")}
    calls: list[tuple[str, str]] = []
    results: dict[str, str] = {}
    texts: list[str] = []
    first_user = ""
    for content in body.get("contents") or ():
        parts = content.get("parts") or ()
        if content.get("role") == "model":
            for part in parts:
                if "functionCall" in part:
                    call = part["functionCall"]
                    calls.append((call.get("id") or call["name"], call["name"]))
            if any("functionCall" in part or ("text" in part and not part.get("thought")) for part in parts):
                texts.append("".join(part.get("text", "") for part in parts if not part.get("thought")))
            continue
        for part in parts:
            if "functionResponse" in part:
                response = part["functionResponse"]
                results[response.get("id") or response["name"]] = json.dumps(response.get("response"))
        if not first_user:
            first_user = "".join(part.get("text", "") for part in parts)
    system = body.get("systemInstruction") or body.get("system_instruction") or {}
    return Conversation(model=model, offered=offered, calls=tuple(calls), results=results,
                        assistant_texts=tuple(texts),
                        instructions=f"{text_of(system.get('parts') or '')}\n{first_user}", stream=stream)


def gemini_usage(usage: Usage) -> dict[str, object]:
    """Usage as Gemini reports it: the prompt counts cached tokens, candidates exclude thoughts."""
    return {"promptTokenCount": usage.prompt, "cachedContentTokenCount": usage.cache_read,
            "candidatesTokenCount": usage.output - usage.reasoning, "thoughtsTokenCount": usage.reasoning,
            "totalTokenCount": usage.prompt + usage.output}


def generate_answer(reply: Reply, call_id: str, usage: Usage, conversation: Conversation, serial: int) -> Answer:
    """The answer to generateContent (one JSON object) or streamGenerateContent?alt=sse (one event per part)."""
    parts: list[dict[str, object]] = []
    if reply.text:
        parts.append({"text": reply.text})
    if reply.call:
        parts.append({"functionCall": {"id": call_id, "name": reply.call.name, "args": reply.call.arguments}})
    head: dict[str, object] = {"modelVersion": conversation.model, "responseId": f"resp_hindcast_{serial}"}
    whole: dict[str, object] = {**head, "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                     "index": 0}], "usageMetadata": gemini_usage(usage)}
    if not conversation.stream:
        return json_answer(whole)
    events: list[tuple[str | None, object]] = [(None, {**head, "candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}]})
              for part in parts[:-1]]
    events.append((None, {**whole, "candidates": [{"content": {"role": "model", "parts": parts[-1:]},
                                                    "finishReason": "STOP", "index": 0}]}))
    return sse(iter(events))


def count_tokens(body: Body) -> Answer:
    """POST /models/MODEL:countTokens: a size that grows with the request."""
    return json_answer({"totalTokens": max(1, len(json.dumps(body)) // 4)})


def models_list(model: str) -> Answer:
    """GET /v1beta/models: the scripted model alone."""
    return json_answer({"models": [{"name": f"models/{model}", "displayName": model,
                                    "supportedGenerationMethods": ["generateContent", "countTokens"]}]})
