"""A trial's behaviour record as a page's trial section shows it: status, tokens by bucket, cost with its source,
and the tool calls in order with their commands.

behaviour.json's record was made from what the agent printed: every string in it is untrusted and only ever reaches
a page as text through the templates' autoescaping; its size on the page is capped here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.behaviour.aggregate import BUCKETS, METRICS, number
from runner.runs.behaviour_record import read_behaviour

CALLS_SHOWN = 300
"""Tool calls one trial section lists; the rest are counted in a note."""
TEXT_CAP = 2_000
"""Characters of one command, argument list or final message shown."""


def _text(value: object, cap: int = TEXT_CAP) -> str:
    text = value if isinstance(value, str) else "" if value is None else json.dumps(value, sort_keys=True,
                                                                                    default=str)
    return text if len(text) <= cap else text[:cap] + f"… ({len(text) - cap} more characters)"


@dataclass(frozen=True)
class CallRow:
    """One tool call as a row of the trial section's table."""

    kind: str
    """The normalized kind (shell, edit, read, ...)."""
    name: str
    """The agent's own tool name."""
    text: str
    """The shell command, or else the arguments as JSON (capped at TEXT_CAP characters)."""
    is_command: bool
    """text is a shell command."""
    exit_code: int | None
    """The command's exit code when the transcript gives it."""
    status: str
    """ok, error, interrupted or unknown."""


@dataclass(frozen=True)
class RecordView:
    """A trial's behaviour.json, summarized for its section."""

    format: str
    """The transcript format read, or none."""
    status: str
    """parsed, partial, unparsed or none."""
    reason: str
    """Why the record is partial or unparsed."""
    session_id: str | None
    """The agent's session or thread id."""
    llm_calls: int | None
    """Model calls."""
    agent_turns: int | None
    """The agent's own turn count."""
    tokens: tuple[tuple[str, int | None], ...]
    """(bucket, count) in BUCKETS order; None where the record does not say."""
    total_tokens: int | None
    """The record's total tokens."""
    cost_usd: float | None
    """Cost in US dollars."""
    cost_source: str
    """agent, price_table or none."""
    final_message: str
    """The agent's last message (capped), empty when it has none."""
    calls: tuple[CallRow, ...]
    """The first CALLS_SHOWN tool calls, in order."""
    calls_left_out: int
    """Tool calls beyond CALLS_SHOWN."""
    metrics: tuple[tuple[str, float | None], ...]
    """Every metric in report order."""


def _int(value: object) -> int | None:
    n = number(value)
    return None if n is None else int(n)


def _obj(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _call(data: object) -> CallRow:
    call = _obj(data)
    command = call.get("command")
    is_command = isinstance(command, str)
    return CallRow(_text(call.get("name"), 40), _text(call.get("raw_name"), 200),
                   _text(command if is_command else call.get("arguments") or {}), is_command,
                   _int(call.get("exit_code")), _text(call.get("status"), 40))


def record_view(folder: Path) -> RecordView | None:
    """The summary of folder's behaviour.json; None when the trial has none."""
    data = read_behaviour(folder)
    if data is None:
        return None
    record = _obj(data.get("record"))
    tokens, metrics = _obj(record.get("tokens")), _obj(data.get("metrics"))
    found = record.get("tool_calls")
    calls: list[Any] = found if isinstance(found, list) else []
    session = record.get("session_id")
    return RecordView(
        format=_text(record.get("format"), 40), status=_text(record.get("status"), 40),
        reason=_text(record.get("reason")), session_id=_text(session, 200) if session is not None else None,
        llm_calls=_int(record.get("llm_calls")), agent_turns=_int(record.get("agent_turns")),
        tokens=tuple((bucket, _int(tokens.get(bucket))) for bucket in BUCKETS),
        total_tokens=_int(metrics.get("total_tokens")), cost_usd=number(record.get("cost_usd")),
        cost_source=_text(record.get("cost_source"), 40), final_message=_text(record.get("final_message")),
        calls=tuple(_call(c) for c in calls[:CALLS_SHOWN]), calls_left_out=max(0, len(calls) - CALLS_SHOWN),
        metrics=tuple((name, number(metrics.get(name))) for name in METRICS))
