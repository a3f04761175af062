"""The transcript format registry: each real format's transcript is claimed first by its own module, and a format
registered in the registry alone is detected, read and written to behaviour.json by the generic loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runner.behaviour.formats import registry
from runner.behaviour.formats.base import TranscriptFormat, event_type
from runner.behaviour.jsonl import json_document, read_lines
from runner.behaviour.parse import DETECTED_OBJECTS, FORMATS, detect, parse
from runner.behaviour.trial import record_behaviour
from runner.runs.behaviour_record import Behaviour, ToolCall, read_behaviour
from runner.runs.result import TrialResult
from tests.runner.behaviour.test_behaviour_realformats import (
    CLAUDE,
    CLAUDE_RESULT,
    CODEX,
    GEMINI,
    GEMINI_NOISE,
    OPENCODE,
    jsonl,
)
from tests.runner.behaviour.test_behaviour_realtrajectories import (
    ATIF_CLAUDE,
    MINI_RESPONSES,
    MINI_TOOLCALL,
    NOISE,
)
from tests.runner.behaviour.test_trajectories import ATIF, MINI_V2_TEXT, SWE_AGENT

AIDER = (Path(__file__).resolve().parents[2] / "agents" / "captures" / "aider" / "analytics.jsonl").read_text()

CODEX_LEGACY = jsonl(
    {"model": "gpt-5-codex", "workdir": "/repo", "approval": "never", "sandbox": "workspace-write"},
    {"prompt": "fix add"},
    {"id": "0", "msg": {"type": "task_started", "model_context_window": 272000}},
    {"id": "0", "msg": {"type": "task_complete", "last_agent_message": "done"}})
CODEX_EXPERIMENTAL = jsonl(
    {"type": "session.created", "session_id": "0199a0b2-7c1e-7d21-9a43-5b8f0e6c1d2a"},
    {"type": "item.completed", "item": {"id": "itm_3", "item_type": "assistant_message", "text": "Two files."}})
CLAUDE_HOOKS_FIRST = jsonl(
    {"type": "system", "subtype": "hook_started", "session_id": "9408bea7", "uuid": "u1"}) + CLAUDE + CLAUDE_RESULT
GEMINI_JSON = GEMINI_NOISE + json.dumps({"session_id": "6c3f0a1e", "response": "Paris.", "stats": {
    "models": {"gemini-2.5-pro": {"api": {"totalRequests": 1}, "tokens": {"prompt": 10, "candidates": 2}}}}},
    indent=2) + "\n"
GENERIC = jsonl({"tool": "bash", "args": {"command": "ls"}, "exit_code": 0},
                {"name": "bash", "arguments": '{"command": "make test"}'},
                {"type": "final", "message": "ok"})

REAL = [
    ("codex", CODEX), ("codex", CODEX_LEGACY), ("codex", CODEX_EXPERIMENTAL),
    ("claude", CLAUDE + CLAUDE_RESULT), ("claude", CLAUDE_HOOKS_FIRST), ("claude", CLAUDE_RESULT),
    ("gemini", GEMINI), ("gemini-json", GEMINI_JSON), ("opencode", OPENCODE), ("opencode", NOISE + OPENCODE),
    ("generic", GENERIC), ("aider", AIDER),
    ("mini-swe-agent", json.dumps(MINI_TOOLCALL, indent=2)), ("mini-swe-agent", json.dumps(MINI_RESPONSES)),
    ("mini-swe-agent", json.dumps(MINI_V2_TEXT, indent=2)),
    ("swe-agent", json.dumps(SWE_AGENT, indent=2)),
    ("atif", json.dumps(ATIF_CLAUDE, indent=2)), ("atif", json.dumps({**ATIF_CLAUDE, "schema_version": "1.4"})),
    ("atif", NOISE + json.dumps(ATIF) + "\nDone.\n"),
]
"""(format, transcript) as each agent prints or writes it."""


def claimants(text: str) -> list[str]:
    """Every registered format that recognises the transcript, in registry order: a document format its whole
    document, a stream format one of the first JSON objects detection looks at."""
    try:
        whole = json_document(text)
    except ValueError:
        whole = None
    events = read_lines(text, limit=DETECTED_OBJECTS).objects
    return [known.name for known in registry.REGISTRY
            if (known.document and isinstance(whole, dict) and known.recognise(whole))
            or (not known.document and any(known.recognise(event) for event in events))]


@pytest.mark.parametrize(("name", "text"), REAL, ids=[f"{name}-{i}" for i, (name, _) in enumerate(REAL)])
def test_a_real_transcript_is_recognised_by_its_own_format_and_by_no_earlier_one(name: str, text: str) -> None:
    assert claimants(text)[0] == name
    assert detect(text) == name
    record = parse(text)
    assert record.format == name and record.status in ("parsed", "partial")


def test_the_registry_lists_each_format_once_documents_first_and_is_what_the_cli_accepts() -> None:
    names = [known.name for known in registry.REGISTRY]
    assert len(set(names)) == len(names)
    kinds = [known.document for known in registry.REGISTRY]
    assert kinds == sorted(kinds, reverse=True)  # every document format before every stream format
    assert all(bool(known.cut_marks) == known.document for known in registry.REGISTRY)
    assert (*names, "none", "auto") == FORMATS
    assert {name for name, _ in REAL} == set(names)  # the table above covers every registered format


def parse_toy(text: str) -> Behaviour:
    """A made-up agent printing ``{"type": "toy.step", "cmd": ...}`` lines."""
    commands = [event["cmd"] for event in read_lines(text).objects if event_type(event) == "toy.step"]
    if not all(isinstance(command, str) for command in commands):
        raise TypeError("a toy step without a command")
    return Behaviour("toy", "parsed", session_id="toy-1", tool_calls=tuple(
        ToolCall("shell", "sh", {"cmd": command}, command) for command in commands))


TOY = TranscriptFormat("toy", lambda event: event_type(event) == "toy.step", parse_toy)
TOY_TEXT = "toy 0.1 starting\n" + jsonl({"type": "toy.step", "cmd": "ls"}, {"type": "toy.step", "cmd": "make"})
TOY_RECORD = Behaviour("toy", "parsed", session_id="toy-1", tool_calls=(
    ToolCall("shell", "sh", {"cmd": "ls"}, "ls"), ToolCall("shell", "sh", {"cmd": "make"}, "make")))


def test_a_format_known_only_to_the_registry_is_detected_read_and_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert detect(TOY_TEXT) == "none"
    with pytest.raises(ValueError, match="unknown transcript format 'toy'"):
        parse(TOY_TEXT, "toy")
    monkeypatch.setattr(registry, "REGISTRY", [*registry.REGISTRY, TOY])
    assert detect(TOY_TEXT) == "toy"
    assert parse(TOY_TEXT) == parse(TOY_TEXT, "toy") == TOY_RECORD
    assert parse("no JSON here\n", "toy") == Behaviour(
        "toy", "unparsed", "no JSON lines in the transcript (expected toy)")
    assert parse(jsonl({"type": "toy.step", "cmd": 7})) == Behaviour(
        "toy", "unparsed", "TypeError: a toy step without a command")
    assert detect(CODEX) == "codex" and detect(GENERIC) == "generic"  # the others are unchanged
    (tmp_path / "transcript.log").write_text(TOY_TEXT)
    result = record_behaviour(tmp_path, TrialResult("cart", "agent", 1, "pass", "tests pass", "f" * 64,
                                                    "2025-01-01T00:00:00+00:00"))
    assert result.behaviour is not None and (result.behaviour["format"], result.behaviour["status"]) == (
        "toy", "parsed")
    document = read_behaviour(tmp_path)
    assert document is not None and document["calls_by_tool"] == {"sh": 2}
    assert document["metrics"]["shell_commands"] == 2


def test_the_registry_order_decides_between_two_formats_that_take_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    both = jsonl({"type": "toy.step", "cmd": "ls", "tool": "bash", "args": {"command": "ls"}})
    monkeypatch.setattr(registry, "REGISTRY", [*registry.REGISTRY, TOY])
    assert detect(both) == "generic"
    before_generic = [known for known in registry.REGISTRY if known is not TOY]
    before_generic.insert(len(before_generic) - 1, TOY)
    monkeypatch.setattr(registry, "REGISTRY", before_generic)
    assert detect(both) == "toy"
