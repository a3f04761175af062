"""What every API's wire format shares: the conversation a request carries and the answer to send back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Conversation:
    """What one model request says about its conversation, read from its body."""

    model: str
    """The model the request names."""
    offered: dict[str, str]
    """Tool name to its type ("function", or "custom" for a freeform tool) for every tool the request offers."""
    calls: tuple[tuple[str, str], ...]
    """(call id, tool name) of every assistant tool call in the history, oldest first."""
    results: dict[str, str]
    """Call id (or, for Gemini without ids, tool name) to the text of its tool result."""
    assistant_texts: tuple[str, ...]
    """The text of every assistant turn in the history, oldest first ("" for a turn of tool calls only)."""
    instructions: str
    """The system prompt and the first user message, where side requests show what they are."""
    stream: bool
    """The answer is a stream of server-sent events."""

    @property
    def turns(self) -> int:
        """The assistant turns already in the history: the index of the step this request asks for."""
        return len(self.assistant_texts)


@dataclass(frozen=True)
class Answer:
    """An HTTP answer: status, content type and body chunks (one chunk per server-sent event)."""

    status: int
    """The HTTP status."""
    content_type: str
    """The Content-Type header."""
    chunks: tuple[bytes, ...]
    """The body, sent chunk by chunk as it would stream."""
    logged: dict[str, object] = field(default_factory=dict)
    """What the log line of this request records about the answer."""


def json_answer(payload: object, status: int = 200) -> Answer:
    """A plain JSON answer."""
    return Answer(status, "application/json", (json.dumps(payload).encode(),))


def sse(events: Iterator[tuple[str | None, object]]) -> Answer:
    """A server-sent event stream of (event name or None, data) pairs; a str data goes out as it is."""
    chunks = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        chunks.append(((f"event: {name}\n" if name else "") + f"data: {text}\n\n").encode())
    return Answer(200, "text/event-stream", tuple(chunks))


def text_of(content: object) -> str:
    """The text of a message content in any of the APIs' shapes: a string, or a list of parts with text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(text_of(part) for part in content)
    if isinstance(content, dict):
        for key in ("text", "output", "content"):
            if key in content:
                return text_of(content[key])
    return ""
