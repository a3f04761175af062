"""Reading real agents' transcripts into the behaviour record: exact records for realistic streams of each format,
cumulative counters not summed, repeated messages counted once, cut-off streams partial, malformed lines skipped."""

from __future__ import annotations

import json

import pytest

from runner.behaviour.parse import detect, parse
from runner.runs.behaviour_record import Tokens, ToolCall


def jsonl(*events: dict) -> str:  # type: ignore[type-arg]
    return "".join(json.dumps(e) + "\n" for e in events)


CODEX = jsonl(
    {"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"},
    {"type": "turn.started"},
    {"type": "item.started", "item": {"id": "item_0", "type": "command_execution", "command": "bash -lc 'grep -rn add src'",
                                      "aggregated_output": "", "status": "in_progress"}},
    {"type": "item.completed", "item": {"id": "item_0", "type": "command_execution", "command": "bash -lc 'grep -rn add src'",
                                        "aggregated_output": "src/calc.py:1:def add", "exit_code": 0, "status": "completed"}},
    {"type": "item.completed", "item": {"id": "item_1", "type": "reasoning", "text": "The bug is in add."}},
    {"type": "item.completed", "item": {"id": "item_2", "type": "file_change",
                                        "changes": [{"path": "src/calc.py", "kind": "update"}], "status": "completed"}},
    {"type": "item.completed", "item": {"id": "item_3", "type": "command_execution",
                                        "command": "/usr/bin/zsh -lc 'python -m pytest -q'", "exit_code": 1,
                                        "status": "failed"}},
    {"type": "turn.completed", "usage": {"input_tokens": 20000, "cached_input_tokens": 15000,
                                         "cache_write_input_tokens": 0, "output_tokens": 300,
                                         "reasoning_output_tokens": 120}},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "item_4", "type": "agent_message", "text": "Fixed add()."}},
    # the thread's running total, not this turn's: 31003 - 20000 more input
    {"type": "turn.completed", "usage": {"input_tokens": 31003, "cached_input_tokens": 19968,
                                         "cache_write_input_tokens": 0, "output_tokens": 435,
                                         "reasoning_output_tokens": 180}},
)


def test_codex_current_form() -> None:
    b = parse(CODEX)
    assert (b.format, b.status, b.session_id, b.agent_turns, b.llm_calls) == (
        "codex", "parsed", "0199a213-81c0-7800-8aa1-bbab2a035a53", 2, None)
    assert [(c.name, c.raw_name, c.command, c.exit_code, c.status) for c in b.tool_calls] == [
        ("shell", "command_execution", "grep -rn add src", 0, "ok"),
        ("edit", "file_change", None, None, "ok"),
        ("shell", "command_execution", "python -m pytest -q", 1, "error")]
    # cumulative usage: the last total, never the sum of both turns
    assert b.tokens == Tokens(input=11035, cache_read=19968, cache_write=0, output=435, reasoning=180)
    assert (b.cost_usd, b.cost_source, b.final_message) == (None, "none", "Fixed add().")
    assert b.timeline == ("tool", "tool", "tool", "text")


def test_codex_cut_off_by_the_timeout_keeps_what_it_had() -> None:
    cut = CODEX.split("\n")[:4]
    text = "\n".join(cut) + '\n{"type":"item.completed","item":{"id":"item_3","ty'  # killed mid-line
    b = parse(text)
    assert (b.format, b.status) == ("codex", "partial")
    assert b.reason == "the stream ended before turn.completed (cut off or killed)"
    assert [(c.command, c.status) for c in b.tool_calls] == [("grep -rn add src", "ok")]
    assert b.tokens == Tokens() and b.skipped_lines == 1


def test_codex_item_started_without_completion_is_an_interrupted_call() -> None:
    b = parse(jsonl({"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
                    {"type": "item.started", "item": {"id": "i", "type": "command_execution",
                                                      "command": ["bash", "-lc", "sleep 100"], "status": "in_progress"}}))
    assert [(c.command, c.status) for c in b.tool_calls] == [("sleep 100", "interrupted")]


def test_codex_legacy_msg_form() -> None:
    b = parse(jsonl(
        {"model": "gpt-5", "workdir": "/w"}, {"prompt": "fix it"},
        {"id": "0", "msg": {"type": "session_configured", "session_id": "s-1"}},
        {"id": "0", "msg": {"type": "task_started"}},
        {"id": "1", "msg": {"type": "exec_command_begin", "call_id": "c1", "command": ["bash", "-lc", "ls -1"]}},
        {"id": "1", "msg": {"type": "exec_command_end", "call_id": "c1", "stdout": "a\n", "exit_code": 0}},
        {"id": "2", "msg": {"type": "token_count", "input_tokens": 1000, "cached_input_tokens": 200,
                            "output_tokens": 50, "reasoning_output_tokens": 10, "total_tokens": 1050}},
        {"id": "2", "msg": {"type": "token_count", "input_tokens": 1000, "cached_input_tokens": 200,
                            "output_tokens": 50, "reasoning_output_tokens": 10, "total_tokens": 1050}},  # re-emitted
        {"id": "3", "msg": {"type": "agent_message", "message": "done"}},
        {"id": "3", "msg": {"type": "task_complete", "last_agent_message": "done"}}))
    assert (b.format, b.status, b.session_id, b.agent_turns) == ("codex", "parsed", "s-1", 1)
    assert [(c.name, c.command, c.exit_code, c.status) for c in b.tool_calls] == [("shell", "ls -1", 0, "ok")]
    assert b.tokens == Tokens(800, 200, None, 50, 10) and b.final_message == "done"


CLAUDE = jsonl(
    {"type": "system", "subtype": "init", "session_id": "4e4fa00e", "model": "claude-opus-4", "tools": ["Bash"]},
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "4e4fa00e", "message": {
        "id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "Let me look."}],
        "usage": {"input_tokens": 4, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 14741,
                  "output_tokens": 7}}},
    # the same message again, with its next block and a later usage snapshot
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "4e4fa00e", "message": {
        "id": "msg_1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "FOO=1 pytest -q && git diff"}}],
        "usage": {"input_tokens": 4, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 14741,
                  "output_tokens": 210}}},
    {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "1 failed", "is_error": True}]},
     "tool_use_result": {"stdout": "1 failed", "stderr": "", "interrupted": False}},
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "4e4fa00e", "message": {
        "id": "msg_2", "role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_2", "name": "Edit",
             "input": {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}],
        "usage": {"input_tokens": 7, "cache_creation_input_tokens": 489, "cache_read_input_tokens": 14741,
                  "output_tokens": 9}}},
    {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "ok"}]}},
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "4e4fa00e", "message": {
        "id": "msg_3", "role": "assistant", "content": [{"type": "text", "text": "Fixed."}],
        "usage": {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 15230,
                  "output_tokens": 5}}},
)
CLAUDE_RESULT = jsonl({
    "type": "result", "subtype": "success", "is_error": False, "num_turns": 4, "result": "Fixed.",
    "session_id": "4e4fa00e", "total_cost_usd": 0.0900777,
    "usage": {"input_tokens": 14, "cache_creation_input_tokens": 489, "cache_read_input_tokens": 44712,
              "output_tokens": 224},
    "modelUsage": {"claude-haiku-4-5": {"inputTokens": 920, "outputTokens": 12, "costUSD": 0.00098},
                   "claude-opus-4": {"inputTokens": 14, "outputTokens": 224, "cacheReadInputTokens": 44712,
                                     "cacheCreationInputTokens": 489, "costUSD": 0.0890977}}})


def test_claude_stream_json() -> None:
    b = parse(CLAUDE + CLAUDE_RESULT)
    assert (b.format, b.status, b.session_id, b.llm_calls, b.agent_turns) == ("claude", "parsed", "4e4fa00e", 3, 4)
    assert b.tool_calls == (
        ToolCall("shell", "Bash", {"command": "FOO=1 pytest -q && git diff"}, "FOO=1 pytest -q && git diff", None,
                 "error"),
        ToolCall("edit", "Edit", {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}, None, None,
                 "ok"))
    # whole-trial tokens: modelUsage summed over models, the auxiliary one included
    assert b.tokens == Tokens(input=934, cache_read=44712, cache_write=489, output=236, reasoning=None)
    assert (b.cost_usd, b.cost_source, b.final_message) == (0.0900777, "agent", "Fixed.")
    assert b.timeline == ("text", "tool", "tool", "text")


def test_claude_without_result_line_sums_each_messages_last_snapshot() -> None:
    b = parse(CLAUDE)
    assert (b.status, b.reason) == ("partial", "the stream ended before its result line (cut off or killed)")
    # msg_1 counted once with its last snapshot (210 output, not 7 + 210)
    assert b.tokens == Tokens(input=14, cache_read=44712, cache_write=489, output=224, reasoning=None)
    assert (b.cost_usd, b.final_message, b.llm_calls) == (None, "Fixed.", 3)


def test_a_malformed_line_is_skipped_and_marks_the_record_partial() -> None:
    lines = (CLAUDE + CLAUDE_RESULT).splitlines()
    lines.insert(3, '{"type": "assistant", "message": {"id": "msg_x", "content": [}')
    lines.insert(4, "Warning: something printed by a plugin {not json")  # a log line: not the stream, ignored
    b = parse("\n".join(lines) + "\n")
    assert (b.format, b.status, b.skipped_lines) == ("claude", "partial", 1)
    assert b.reason == "1 line(s) were not JSON" and len(b.tool_calls) == 2 and b.cost_usd == 0.0900777


GEMINI = jsonl(
    {"type": "init", "timestamp": "2026-08-09T15:23:20.000Z", "session_id": "g-1", "model": "auto"},
    {"type": "message", "timestamp": "2026-08-09T15:23:21.000Z", "role": "user", "content": "fix"},
    {"type": "message", "timestamp": "2026-08-09T15:23:22.000Z", "role": "assistant", "content": "Look", "delta": True},
    {"type": "message", "timestamp": "2026-08-09T15:23:22.100Z", "role": "assistant", "content": "ing.", "delta": True},
    {"type": "tool_use", "timestamp": "2026-08-09T15:23:26.508Z", "tool_name": "run_shell_command",
     "tool_id": "run_shell_command__45c957ff", "parameters": {"command": "curl -s https://example.com | head"}},
    {"type": "tool_result", "timestamp": "2026-08-09T15:23:27.000Z", "tool_id": "run_shell_command__45c957ff",
     "status": "error", "error": {"type": "x", "message": "no network"}},
    {"type": "message", "timestamp": "2026-08-09T15:23:28.000Z", "role": "assistant", "content": "Done.", "delta": True},
    {"type": "result", "timestamp": "2026-08-09T15:23:28.211Z", "status": "success",
     "stats": {"total_tokens": 23632, "input_tokens": 22915, "output_tokens": 74, "cached": 8115, "input": 14800,
               "duration_ms": 7175, "tool_calls": 1}},
)


def test_gemini_stream_json() -> None:
    b = parse(GEMINI)
    assert (b.format, b.status, b.session_id, b.llm_calls) == ("gemini", "parsed", "g-1", 2)
    assert [(c.name, c.command, c.status) for c in b.tool_calls] == [
        ("shell", "curl -s https://example.com | head", "error")]
    # output_tokens (74) leaves out the thoughts that total_tokens counts: output is total - input_tokens
    assert b.tokens == Tokens(input=14800, cache_read=8115, cache_write=None, output=717, reasoning=None)
    assert (b.final_message, b.timeline) == ("Done.", ("text", "tool", "text"))


def test_gemini_json() -> None:
    doc = {"session_id": "g-2", "response": "Paris.", "stats": {
        "models": {"gemini-2.5-pro": {"api": {"totalRequests": 2}, "tokens": {"prompt": 24939, "candidates": 20,
                                                                            "total": 25113, "cached": 21263,
                                                                            "thoughts": 154, "tool": 0}},
                   "gemini-2.5-flash": {"api": {"totalRequests": 1}, "tokens": {"prompt": 8965, "candidates": 10,
                                                                              "total": 9033, "cached": 0,
                                                                              "thoughts": 30, "tool": 28}}},
        "tools": {"totalCalls": 1, "byName": {"google_web_search": {"count": 1}}}}}
    b = parse(json.dumps(doc))
    assert (b.format, b.status, b.llm_calls, b.final_message) == ("gemini-json", "parsed", 3, "Paris.")
    # the flash model's 28 tool-use prompt tokens are input beside its prompt
    assert b.tokens == Tokens(input=12669, cache_read=21263, cache_write=None, output=214, reasoning=184)
    assert [(c.name, c.raw_name) for c in b.tool_calls] == [("web_search", "google_web_search")]


OPENCODE = jsonl(
    {"type": "step_start", "timestamp": 1787482258116, "sessionID": "ses_fd1c", "part": {"type": "step-start"}},
    {"type": "tool_use", "timestamp": 1787482259124, "sessionID": "ses_fd1c", "part": {
        "type": "tool", "tool": "bash", "callID": "bash_1", "state": {
            "status": "completed", "input": {"command": "sed -i 's/-/+/' calc.py", "timeout": 10000},
            "output": "", "metadata": {"exit": 0}}}},
    {"type": "step_finish", "timestamp": 1787482259168, "sessionID": "ses_fd1c", "part": {
        "reason": "tool-calls", "type": "step-finish",
        "tokens": {"total": 8011, "input": 7952, "output": 35, "reasoning": 24, "cache": {"write": 0, "read": 0}},
        "cost": 0.0021}},
    {"type": "step_start", "timestamp": 1787482260000, "sessionID": "ses_fd1c", "part": {"type": "step-start"}},
    {"type": "text", "timestamp": 1787482261701, "sessionID": "ses_fd1c", "part": {"type": "text", "text": "Done."}},
    {"type": "step_finish", "timestamp": 1787482261701, "sessionID": "ses_fd1c", "part": {
        "reason": "stop", "type": "step-finish",
        "tokens": {"total": 8113, "input": 397, "output": 16, "reasoning": 20, "cache": {"write": 0, "read": 7680}},
        "cost": 0.0009}},
)


def test_opencode() -> None:
    b = parse(OPENCODE)
    assert (b.format, b.status, b.session_id, b.llm_calls) == ("opencode", "parsed", "ses_fd1c", 2)
    assert [(c.name, c.command, c.exit_code, c.status) for c in b.tool_calls] == [
        ("shell", "sed -i 's/-/+/' calc.py", 0, "ok")]
    assert b.tokens == Tokens(input=8349, cache_read=7680, cache_write=0, output=95, reasoning=44)
    assert b.cost_usd == pytest.approx(0.003) and b.cost_source == "agent" and b.final_message == "Done."
    assert b.turn_seconds == pytest.approx((1.052, 1.701))


def test_generic_jsonl() -> None:
    b = parse(jsonl(
        {"tool": "get_order", "args": {"id": 7}, "turn": 1, "ts_start": 10.0, "ts_end": 11.5,
         "usage": {"input": 100, "output": 10}},
        {"tool": "bash", "args": {"cmd": "bash -c 'ls -la'"}, "exit_code": 2, "turn": 2, "ts_start": 12.0,
         "ts_end": 15.0, "usage": {"input": 50, "output": 5}, "cost_usd": 0.01},
        {"type": "final", "message": "refunded"}))
    assert (b.format, b.status, b.llm_calls, b.final_message) == ("generic", "parsed", 2, "refunded")
    assert [(c.name, c.raw_name, c.command, c.exit_code, c.status) for c in b.tool_calls] == [
        ("other", "get_order", None, None, "unknown"), ("shell", "bash", "ls -la", 2, "error")]
    assert b.tokens == Tokens(150, 0, 0, 15, 0) and b.cost_usd == 0.01 and b.turn_seconds == (1.5, 3.0)


@pytest.mark.parametrize(("text", "expected"), [
    (CODEX, "codex"), (CLAUDE + CLAUDE_RESULT, "claude"), (GEMINI, "gemini"), (OPENCODE, "opencode"),
    ('{"tool": "x", "args": {}}\n', "generic"), ('{"response": "hi", "stats": {}}', "gemini-json"),
    ("fixed the bug\nall tests pass\n", "none"), ("", "none"),
])
def test_detection(text: str, expected: str) -> None:
    assert detect(text) == expected


def test_plain_text_and_a_wrong_format_are_records_not_errors() -> None:
    assert parse("I fixed it.\n").status == "none"
    wrong = parse("I fixed it.\n", "claude")
    assert (wrong.format, wrong.status, wrong.reason) == (
        "claude", "unparsed", "no JSON lines in the transcript (expected claude)")
    assert wrong.tokens == Tokens() and wrong.tool_calls == () and wrong.cost_usd is None
    broken = parse('{"response": ', "gemini-json")
    assert broken.status == "unparsed" and broken.reason.startswith("JSONDecodeError: ")
