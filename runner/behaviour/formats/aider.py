"""aider's analytics log (``--analytics-log FILE``, the aider preset's trajectory): one JSON object per event,
``{"event", "properties", "user_id", "time"}``.

Each ``message_send`` is one model call of the main model with its ``prompt_tokens`` (the whole prompt: aider
does not separate cache reads of an OpenAI-compatible API), ``completion_tokens`` and ``cost``; aider's edits
travel in the reply text, so the log shows no tool calls. The model is the event's ``main_model`` unless aider
redacted it (``provider/REDACTED``: a model its price list lacks). Without an ``exit`` event the log was cut
off: partial. Requests started (``message_send_starting``) with none answered by the exit: the model was never
reached (counted only while aider's stdout shows no ``Tokens:`` line of an answered call).
"""

from __future__ import annotations

from typing import Any

from runner.behaviour.formats.base import TranscriptFormat
from runner.behaviour.jsonl import read_lines
from runner.runs.behaviour_record import Behaviour, Status, Tokens
from runner.runs.jsonvalues import integer, mapping, number


def recognise(event: dict[str, Any]) -> bool:
    """An analytics event: its name, its properties and the user id aider made up."""
    return isinstance(event.get("event"), str) and isinstance(event.get("properties"), dict) and "user_id" in event


def parse_aider(text: str) -> Behaviour:
    """The record of an aider analytics log."""
    lines = read_lines(text)
    sends = [mapping(e.get("properties")) for e in lines.objects if e.get("event") == "message_send"]
    ended = any(e.get("event") == "exit" for e in lines.objects)
    prompt = [integer(p.get("prompt_tokens")) for p in sends]
    completion = [integer(p.get("completion_tokens")) for p in sends]
    costs = [number(p.get("cost")) for p in sends]
    models = [str(p["main_model"]) for p in sends if isinstance(p.get("main_model"), str)]
    model = models[-1] if models and not models[-1].endswith("/REDACTED") else None
    tokens = Tokens(sum(t or 0 for t in prompt), None, None, sum(t or 0 for t in completion), None) if sends \
        else Tokens()
    cost = sum(c or 0.0 for c in costs) if any(c for c in costs) else None
    status: Status = "parsed" if ended else "partial"
    reason = "" if ended else "the log ended before its exit event"
    if ended and lines.skipped:
        status, reason = "partial", f"{lines.skipped} line(s) were not JSON"
    started = sum(e.get("event") == "message_send_starting" for e in lines.objects)
    unreached = (f"{started} model request(s) started, none answered (aider's analytics log)"
                 if started and not sends and ended else None)
    return Behaviour("aider", status, reason, None, len(sends), None, (), tokens, cost,
                     "agent" if cost is not None else "none", None, (), (), lines.skipped, model,
                     unreached=unreached)


def answered_in_stdout(stdout: str) -> bool:
    """aider prints ``Tokens: ... sent, ... received.`` after every answered model call."""
    return any(line.startswith("Tokens: ") for line in stdout.splitlines())


FORMAT = TranscriptFormat("aider", recognise, parse_aider, answered=answered_in_stdout)
