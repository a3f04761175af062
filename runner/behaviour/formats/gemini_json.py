"""Gemini CLI ``--output-format json``: one object at the end of its output, pretty-printed."""

from __future__ import annotations

from typing import Any

from runner.behaviour.formats.base import TranscriptFormat
from runner.behaviour.formats.gemini import main_model
from runner.behaviour.jsonl import json_document, tool_kind
from runner.runs.behaviour_record import Behaviour, Tokens, ToolCall
from runner.runs.jsonvalues import integer, mapping

KEYS = frozenset({"session_id", "response", "stats", "error", "warnings"})
"""The keys of Gemini CLI's ``--output-format json`` object."""


def recognise(document: dict[str, Any]) -> bool:
    """An object without ``type`` whose keys are among KEYS, with a response, stats or an error."""
    return "type" not in document and set(document) <= KEYS and bool({"response", "stats", "error"} & set(document))


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
                     None, "none", response, model=main_model(models, "total"))


FORMAT = TranscriptFormat("gemini-json", recognise, parse_gemini_json, document=True,
                          cut_marks=('"response": ', '"stats": {'))
