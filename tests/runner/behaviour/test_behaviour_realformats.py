"""Streams shaped as the agents really print them (event and field names from each project's own source): the
whole record asserted for each, with the CLI's log lines on stderr around the stream, events the record must
not count, and the token arithmetic of each format (uncached input, reasoning inside output, running totals
taken once)."""

from __future__ import annotations

import json

from runner.behaviour.parse import detect, parse
from runner.runs.behaviour_record import Behaviour, Tokens, ToolCall


def jsonl(*events: dict) -> str:  # type: ignore[type-arg]
    return "".join(json.dumps(e) + "\n" for e in events)


CODEX_NOISE = "Reading prompt from stdin...\n"
"""What codex exec writes to stderr before its first event when the prompt comes on stdin."""

CODEX = CODEX_NOISE + jsonl(
    {"type": "thread.started", "thread_id": "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5"},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "**Looking at the tests**"}},
    {"type": "item.started", "item": {"id": "item_1", "type": "todo_list", "items": [
        {"text": "find the bug", "completed": False}]}},
    {"type": "item.started", "item": {"id": "item_2", "type": "command_execution",
                                      "command": "/bin/bash -lc 'rg -n \"def add\" src'", "aggregated_output": "",
                                      "exit_code": None, "status": "in_progress"}},
    {"type": "item.completed", "item": {"id": "item_2", "type": "command_execution",
                                        "command": "/bin/bash -lc 'rg -n \"def add\" src'",
                                        "aggregated_output": "src/calc.py:1:def add(a, b):\n", "exit_code": 0,
                                        "status": "completed"}},
    {"type": "item.started", "item": {"id": "item_3", "type": "mcp_tool_call", "server": "docs", "tool": "search",
                                      "arguments": {"q": "calc add"}, "result": None, "error": None,
                                      "status": "in_progress"}},
    {"type": "item.completed", "item": {"id": "item_3", "type": "mcp_tool_call", "server": "docs", "tool": "search",
                                        "arguments": {"q": "calc add"}, "result": None,
                                        "error": {"message": "server unavailable"}, "status": "failed"}},
) + (
    # serde flattens the item's id and the web search's own id into one object: the key appears twice
    '{"type":"item.completed","item":{"id":"item_4","type":"web_search","id":"ws_1","query":"python add",'
    '"action":{"type":"search","query":"python add"}}}\n'
) + jsonl(
    {"type": "item.updated", "item": {"id": "item_1", "type": "todo_list", "items": [
        {"text": "find the bug", "completed": True}]}},
    {"type": "item.completed", "item": {"id": "item_5", "type": "file_change", "changes": [
        {"path": "/repo/src/calc.py", "kind": "update"}], "status": "completed"}},
    {"type": "item.completed", "item": {"id": "item_6", "type": "error",
                                        "message": "model rerouted: gpt-5 -> gpt-5-mini"}},
    {"type": "error", "message": "Reconnecting... 1/5"},
    {"type": "item.started", "item": {"id": "item_7", "type": "command_execution",
                                      "command": "/usr/bin/zsh -lc 'python -m pytest -q'", "aggregated_output": "",
                                      "exit_code": None, "status": "in_progress"}},
    {"type": "item.completed", "item": {"id": "item_7", "type": "command_execution",
                                        "command": "/usr/bin/zsh -lc 'python -m pytest -q'",
                                        "aggregated_output": "1 passed", "exit_code": 0, "status": "completed"}},
    {"type": "item.completed", "item": {"id": "item_8", "type": "agent_message", "text": "Fixed add()."}},
    {"type": "item.completed", "item": {"id": "item_1", "type": "todo_list", "items": [
        {"text": "find the bug", "completed": True}]}},
    {"type": "turn.completed", "usage": {"input_tokens": 31003, "cached_input_tokens": 19968,
                                         "cache_write_input_tokens": 0, "output_tokens": 135,
                                         "reasoning_output_tokens": 60}},
)


def test_codex_exec_json_whole_record() -> None:
    assert detect(CODEX) == "codex"
    assert parse(CODEX) == Behaviour(
        "codex", "parsed", "", "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5", None, 1, (
            ToolCall("shell", "command_execution", {"command": "/bin/bash -lc 'rg -n \"def add\" src'"},
                     'rg -n "def add" src', 0, "ok"),
            ToolCall("mcp", "docs.search", {"q": "calc add"}, None, None, "error"),
            ToolCall("web_search", "web_search", {"query": "python add"}, None, None, "unknown"),
            ToolCall("edit", "file_change", {"changes": [{"path": "/repo/src/calc.py", "kind": "update"}]}, None,
                     None, "ok"),
            ToolCall("shell", "command_execution", {"command": "/usr/bin/zsh -lc 'python -m pytest -q'"},
                     "python -m pytest -q", 0, "ok")),
        # input counts the cached tokens inside it; output counts the reasoning inside it
        Tokens(input=11035, cache_read=19968, cache_write=0, output=135, reasoning=60), None, "none",
        "Fixed add().", ("tool", "tool", "tool", "tool", "tool", "text"), (), 0, None)


def test_codex_plan_mode_turn_without_a_message_ends_on_its_plan() -> None:
    b = parse(jsonl(
        {"type": "thread.started", "thread_id": "t-1"}, {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "plan", "text": "1. read calc.py\n2. fix add"}},
        {"type": "turn.completed", "usage": {"input_tokens": 900, "cached_input_tokens": 0, "output_tokens": 40}}))
    assert (b.status, b.final_message, b.tokens) == (
        "parsed", "1. read calc.py\n2. fix add", Tokens(900, 0, None, 40, None))


def test_codex_failed_turn_ends_the_stream_and_keeps_the_last_total() -> None:
    b = parse(jsonl(
        {"type": "thread.started", "thread_id": "t-2"}, {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "command_execution", "command": "bash -lc ls",
                                            "aggregated_output": "", "exit_code": None, "status": "declined"}},
        {"type": "error", "message": "stream disconnected before completion"},
        {"type": "turn.failed", "error": {"message": "unexpected status 401 Unauthorized"}}))
    assert (b.status, b.reason, b.agent_turns, b.tokens, b.final_message) == ("parsed", "", 1, Tokens(), None)
    assert b.tool_calls == (ToolCall("shell", "command_execution", {"command": "bash -lc ls"}, "ls", None, "error"),)


CLAUDE = jsonl(
    # hooks run before the init event in newer builds
    {"type": "system", "subtype": "hook_started", "hook_id": "h1", "hook_name": "SessionStart:startup",
     "hook_event": "SessionStart", "uuid": "u0", "session_id": "9408bea7"},
    {"type": "system", "subtype": "init", "cwd": "/repo", "session_id": "9408bea7", "tools": ["Bash", "Edit", "Task"],
     "mcp_servers": [], "model": "claude-opus-5", "permissionMode": "bypassPermissions", "apiKeySource": "none",
     "claude_code_version": "2.1.237", "uuid": "u1"},
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "9408bea7", "uuid": "u2",
     "timestamp": "2026-08-23T10:50:00.100Z", "message": {
         "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-opus-5",
         "content": [{"type": "thinking", "thinking": "Look at calc.py", "signature": "sig"}],
         "stop_reason": None,
         "usage": {"input_tokens": 2, "cache_creation_input_tokens": 2521, "cache_read_input_tokens": 1247,
                   "output_tokens": 1}}},
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "9408bea7", "uuid": "u3",
     "message": {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-opus-5",
                 "content": [{"type": "text", "text": "Running the tests."}], "stop_reason": None,
                 "usage": {"input_tokens": 2, "cache_creation_input_tokens": 2521, "cache_read_input_tokens": 1247,
                           "output_tokens": 1}}},
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "9408bea7", "uuid": "u4",
     "message": {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-opus-5",
                 "content": [{"type": "tool_use", "id": "toolu_01", "name": "Bash",
                              "input": {"command": "python -m pytest -q", "description": "Run tests"}}],
                 "stop_reason": "tool_use",
                 "usage": {"input_tokens": 2, "cache_creation_input_tokens": 2521, "cache_read_input_tokens": 1247,
                           "output_tokens": 61}}},
    {"type": "user", "parent_tool_use_id": None, "session_id": "9408bea7", "uuid": "u5",
     # a command that exits non-zero: an error result that begins with its exit code
     "message": {"role": "user", "content": [{"tool_use_id": "toolu_01", "type": "tool_result",
                                              "content": "Exit code 1\nFAILED tests/test_calc.py::test_add\n"
                                                         "1 failed in 0.03s", "is_error": True}]},
     "tool_use_result": "Error: Exit code 1\nFAILED tests/test_calc.py::test_add\n1 failed in 0.03s"},
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "9408bea7", "uuid": "u6",
     "message": {"id": "msg_02", "type": "message", "role": "assistant", "model": "claude-opus-5",
                 "content": [{"type": "tool_use", "id": "toolu_02", "name": "Task",
                              "input": {"description": "find callers", "prompt": "grep for add(",
                                        "subagent_type": "general-purpose"}}],
                 "usage": {"input_tokens": 1, "cache_creation_input_tokens": 60, "cache_read_input_tokens": 3768,
                           "output_tokens": 40}}},
    # the subagent's own call: a tool call, not a model call of the main agent
    {"type": "assistant", "parent_tool_use_id": "toolu_02", "session_id": "9408bea7", "uuid": "u7",
     "message": {"id": "msg_sub1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
                 "content": [{"type": "tool_use", "id": "toolu_s1", "name": "Grep",
                              "input": {"pattern": "add\\(", "path": "/repo"}}],
                 "usage": {"input_tokens": 900, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                           "output_tokens": 10}}},
    {"type": "user", "parent_tool_use_id": "toolu_02", "session_id": "9408bea7", "uuid": "u8",
     "message": {"role": "user", "content": [{"tool_use_id": "toolu_s1", "type": "tool_result",
                                              "content": "src/calc.py:1"}]}},
    {"type": "user", "parent_tool_use_id": None, "session_id": "9408bea7", "uuid": "u9",
     "message": {"role": "user", "content": [{"tool_use_id": "toolu_02", "type": "tool_result",
                                              "content": [{"type": "text", "text": "one caller"}]}]}},
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "9408bea7", "uuid": "u10",
     "message": {"id": "msg_03", "type": "message", "role": "assistant", "model": "claude-opus-5",
                 "content": [{"type": "tool_use", "id": "toolu_03", "name": "Edit", "input": {
                     "file_path": "/repo/src/calc.py", "old_string": "a - b", "new_string": "a + b"}}],
                 "usage": {"input_tokens": 1, "cache_creation_input_tokens": 70, "cache_read_input_tokens": 3828,
                           "output_tokens": 50}}},
    {"type": "user", "parent_tool_use_id": None, "session_id": "9408bea7", "uuid": "u11",
     "message": {"role": "user", "content": [{"tool_use_id": "toolu_03", "type": "tool_result",
                                              "content": "The file has been updated."}]}},
    {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed"}, "uuid": "u12", "session_id": "9408bea7"},
    {"type": "assistant", "parent_tool_use_id": None, "session_id": "9408bea7", "uuid": "u13",
     "message": {"id": "msg_04", "type": "message", "role": "assistant", "model": "claude-opus-5",
                 "content": [{"type": "text", "text": "Fixed add()."}], "stop_reason": "end_turn",
                 "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 3898,
                           "output_tokens": 8}}},
)
CLAUDE_RESULT = jsonl({
    "type": "result", "subtype": "success", "is_error": False, "duration_ms": 7920, "duration_api_ms": 9012,
    "num_turns": 5, "result": "Fixed add().", "session_id": "9408bea7", "total_cost_usd": 0.0324675,
    "usage": {"input_tokens": 4, "cache_creation_input_tokens": 2651, "cache_read_input_tokens": 12741,
              "output_tokens": 159, "server_tool_use": {"web_search_requests": 0}, "service_tier": "standard"},
    "modelUsage": {"claude-haiku-4-5-20251001": {"inputTokens": 920, "outputTokens": 22, "cacheReadInputTokens": 0,
                                                 "cacheCreationInputTokens": 0, "costUSD": 0.00098},
                   "claude-opus-5": {"inputTokens": 4, "outputTokens": 159, "cacheReadInputTokens": 12741,
                                     "cacheCreationInputTokens": 2651, "costUSD": 0.0314875}},
    "permission_denials": [], "terminal_reason": "completed", "uuid": "u14"})


def test_claude_stream_json_whole_record() -> None:
    text = "npm warn deprecated inflight@1.0.6: This module is not supported\n" + CLAUDE + CLAUDE_RESULT
    assert detect(text) == "claude"
    assert parse(text) == Behaviour(
        "claude", "parsed", "", "9408bea7", 4, 5, (
            ToolCall("shell", "Bash", {"command": "python -m pytest -q", "description": "Run tests"},
                     "python -m pytest -q", 1, "error"),
            ToolCall("subagent", "Task", {"description": "find callers", "prompt": "grep for add(",
                                          "subagent_type": "general-purpose"}, None, None, "ok"),
            ToolCall("search", "Grep", {"pattern": "add\\(", "path": "/repo"}, None, None, "ok"),
            ToolCall("edit", "Edit", {"file_path": "/repo/src/calc.py", "old_string": "a - b",
                                      "new_string": "a + b"}, None, None, "ok")),
        # modelUsage summed: the subagent's haiku calls included
        Tokens(input=924, cache_read=12741, cache_write=2651, output=181, reasoning=None), 0.0324675, "agent",
        "Fixed add().", ("text", "tool", "tool", "tool", "tool", "text"), (), 0, "claude-opus-5")


def test_claude_synthetic_error_message_is_no_model_call() -> None:
    b = parse(jsonl(
        {"type": "system", "subtype": "init", "session_id": "s", "model": "claude-opus-5", "uuid": "u1"},
        {"type": "assistant", "parent_tool_use_id": None, "session_id": "s", "uuid": "u2", "error": "rate_limit",
         "message": {"id": "5b1f3c1e", "model": "<synthetic>", "role": "assistant",
                     "content": [{"type": "text", "text": "API Error: 429 rate limited"}],
                     "usage": {"input_tokens": 0, "output_tokens": 0}}},
        {"type": "result", "subtype": "success", "is_error": True, "num_turns": 1, "session_id": "s",
         "result": "API Error: 429 rate limited", "total_cost_usd": 0, "usage": {
             "input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0},
         "modelUsage": {}}))
    assert (b.status, b.llm_calls, b.model, b.cost_usd, b.cost_source) == (
        "parsed", None, "claude-opus-5", 0.0, "agent")
    assert b.tokens == Tokens(0, 0, 0, 0, None) and b.final_message == "API Error: 429 rate limited"


GEMINI_NOISE = "Loaded cached credentials.\n[WARN] Skipping unreadable directory: /root/.cache\n"

GEMINI = GEMINI_NOISE + jsonl(
    {"type": "init", "timestamp": "2026-08-09T15:23:20.000Z", "session_id": "6c3f0a1e", "model": "auto-gemini-3"},
    {"type": "message", "timestamp": "2026-08-09T15:23:20.010Z", "role": "user", "content": "fix add"},
    {"type": "message", "timestamp": "2026-08-09T15:23:22.000Z", "role": "assistant", "content": "I'll run ",
     "delta": True},
    {"type": "message", "timestamp": "2026-08-09T15:23:22.050Z", "role": "assistant", "content": "the tests.",
     "delta": True},
    {"type": "tool_use", "timestamp": "2026-08-09T15:23:22.500Z", "tool_name": "run_shell_command",
     "tool_id": "run_shell_command__1", "parameters": {"command": "python -m pytest -q", "description": "tests"}},
    {"type": "tool_use", "timestamp": "2026-08-09T15:23:22.600Z", "tool_name": "read_file",
     "tool_id": "read_file__2", "parameters": {"file_path": "src/calc.py"}},
    {"type": "tool_result", "timestamp": "2026-08-09T15:23:24.000Z", "tool_id": "run_shell_command__1",
     "status": "success", "output": "1 failed"},
    {"type": "tool_result", "timestamp": "2026-08-09T15:23:24.100Z", "tool_id": "read_file__2",
     "status": "success", "output": ""},
    {"type": "tool_use", "timestamp": "2026-08-09T15:23:26.000Z", "tool_name": "replace",
     "tool_id": "replace__3", "parameters": {"file_path": "src/calc.py", "old_string": "a - b",
                                             "new_string": "a + b"}},
    {"type": "tool_result", "timestamp": "2026-08-09T15:23:26.500Z", "tool_id": "replace__3", "status": "error",
     "error": {"type": "edit_no_occurrence_found", "message": "0 occurrences"}},
    {"type": "error", "timestamp": "2026-08-09T15:23:27.000Z", "severity": "warning",
     "message": "Loop detection skipped"},
    {"type": "message", "timestamp": "2026-08-09T15:23:28.000Z", "role": "assistant", "content": "Could not ",
     "delta": True},
    {"type": "message", "timestamp": "2026-08-09T15:23:28.100Z", "role": "assistant", "content": "fix it.",
     "delta": True},
    {"type": "result", "timestamp": "2026-08-09T15:23:28.211Z", "status": "success", "stats": {
        "total_tokens": 23632, "input_tokens": 22915, "output_tokens": 74, "cached": 8115, "input": 14800,
        "duration_ms": 7175, "tool_calls": 3,
        "models": {"gemini-2.5-flash-lite": {"total_tokens": 1200, "input_tokens": 1150, "output_tokens": 10,
                                             "cached": 0, "input": 1150},
                   "gemini-3-pro-preview": {"total_tokens": 22432, "input_tokens": 21765, "output_tokens": 64,
                                            "cached": 8115, "input": 13650}}}},
)


def test_gemini_stream_json_whole_record() -> None:
    assert detect(GEMINI) == "gemini"
    assert parse(GEMINI) == Behaviour(
        "gemini", "parsed", "", "6c3f0a1e", 3, None, (
            ToolCall("shell", "run_shell_command", {"command": "python -m pytest -q", "description": "tests"},
                     "python -m pytest -q", None, "ok"),
            ToolCall("read", "read_file", {"file_path": "src/calc.py"}, None, None, "ok"),
            ToolCall("edit", "replace", {"file_path": "src/calc.py", "old_string": "a - b", "new_string": "a + b"},
                     None, None, "error")),
        # output: total - input_tokens, the thoughts output_tokens leaves out included; input: the uncached part
        Tokens(input=14800, cache_read=8115, cache_write=None, output=717, reasoning=None), None, "none",
        "Could not fix it.", ("text", "tool", "tool", "tool", "text"), (), 0,
        # "auto" names no model: the one that used the most tokens does
        "gemini-3-pro-preview")


def test_gemini_shell_exit_code_shows_only_without_output() -> None:
    b = parse(jsonl(
        {"type": "init", "timestamp": "t", "session_id": "s", "model": "gemini-2.5-pro"},
        {"type": "tool_use", "timestamp": "t", "tool_name": "run_shell_command", "tool_id": "a",
         "parameters": {"command": "test -f missing"}},
        {"type": "tool_result", "timestamp": "t", "tool_id": "a", "status": "success",
         "output": "Command exited with code: 1"},
        {"type": "tool_use", "timestamp": "t", "tool_name": "run_shell_command", "tool_id": "b",
         "parameters": {"command": "pytest -q"}},
        {"type": "tool_result", "timestamp": "t", "tool_id": "b", "status": "success", "output": "1 failed"},
        {"type": "result", "timestamp": "t", "status": "success"}))
    assert [(c.command, c.exit_code, c.status) for c in b.tool_calls] == [
        ("test -f missing", 1, "error"), ("pytest -q", None, "ok")]


def test_gemini_json_pretty_printed_after_warnings() -> None:
    doc = {"session_id": "6c3f0a1e", "response": "The capital of France is Paris.", "stats": {
        "models": {
            "gemini-2.5-pro": {"api": {"totalRequests": 2, "totalErrors": 0, "totalLatencyMs": 5053},
                               "tokens": {"input": 3676, "prompt": 24939, "candidates": 20, "total": 25113,
                                          "cached": 21263, "thoughts": 154, "tool": 0}, "roles": {}},
            "gemini-2.5-flash": {"api": {"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 1879},
                                 "tokens": {"input": 8965, "prompt": 8965, "candidates": 10, "total": 9033,
                                            "cached": 0, "thoughts": 30, "tool": 28}, "roles": {}}},
        "tools": {"totalCalls": 1, "totalSuccess": 1, "totalFail": 0, "totalDurationMs": 1881,
                  "totalDecisions": {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 1},
                  "byName": {"google_web_search": {"count": 1, "success": 1, "fail": 0, "durationMs": 1881,
                                                   "decisions": {"accept": 0, "reject": 0, "modify": 0,
                                                                 "auto_accept": 1}}}},
        "files": {"totalLinesAdded": 0, "totalLinesRemoved": 0}}}
    text = GEMINI_NOISE + json.dumps(doc, indent=2) + "\n"
    assert detect(text) == "gemini-json"
    assert parse(text) == Behaviour(
        "gemini-json", "parsed", "tool calls counted by name only (no order, arguments or commands)", "6c3f0a1e",
        3, None, (ToolCall("web_search", "google_web_search"),),
        # input: prompt - cached + tool-use prompt; output: candidates + thoughts
        Tokens(input=12669, cache_read=21263, cache_write=None, output=214, reasoning=184), None, "none",
        "The capital of France is Paris.", model="gemini-2.5-pro")


def test_gemini_json_error_object() -> None:
    text = json.dumps({"session_id": "s", "error": {"type": "FatalTurnLimitedError", "message":
                                                    "Reached max session turns", "code": 53}}, indent=2)
    assert detect(text) == "gemini-json"
    b = parse(text)
    assert (b.format, b.status, b.session_id, b.tokens, b.final_message, b.tool_calls) == (
        "gemini-json", "parsed", "s", Tokens(), None, ())


OPENCODE = jsonl(
    {"type": "step_start", "timestamp": 1787482258116, "sessionID": "ses_fd1c", "part": {
        "id": "prt_1", "sessionID": "ses_fd1c", "messageID": "msg_a", "type": "step-start"}},
    {"type": "tool_use", "timestamp": 1787482259124, "sessionID": "ses_fd1c", "part": {
        "id": "prt_2", "type": "tool", "tool": "bash", "callID": "call_1", "messageID": "msg_a", "state": {
            "status": "completed", "input": {"command": "pytest -q", "description": "Run tests"},
            "output": "1 failed", "title": "pytest -q", "metadata": {"output": "1 failed", "exit": 1,
                                                                     "description": "Run tests"},
            "time": {"start": 1787482259101, "end": 1787482259121}}}},
    # the same completed part emitted again: one call
    {"type": "tool_use", "timestamp": 1787482259130, "sessionID": "ses_fd1c", "part": {
        "id": "prt_2", "type": "tool", "tool": "bash", "callID": "call_1", "messageID": "msg_a", "state": {
            "status": "completed", "input": {"command": "pytest -q", "description": "Run tests"},
            "output": "1 failed", "title": "pytest -q", "metadata": {"output": "1 failed", "exit": 1,
                                                                     "description": "Run tests"},
            "time": {"start": 1787482259101, "end": 1787482259121}}}},
    {"type": "tool_use", "timestamp": 1787482259140, "sessionID": "ses_fd1c", "part": {
        "id": "prt_3", "type": "tool", "tool": "edit", "callID": "call_2", "messageID": "msg_a", "state": {
            "status": "error", "input": {"filePath": "/repo/calc.py", "oldString": "a - b", "newString": "a + b"},
            "error": "The user rejected permission to use this specific tool call.",
            "time": {"start": 1787482259131, "end": 1787482259139}}}},
    {"type": "step_finish", "timestamp": 1787482259168, "sessionID": "ses_fd1c", "part": {
        "id": "prt_4", "reason": "tool-calls", "messageID": "msg_a", "type": "step-finish",
        "tokens": {"total": 8011, "input": 7952, "output": 35, "reasoning": 24, "cache": {"write": 0, "read": 0}},
        "cost": 0}},
    {"type": "step_start", "timestamp": 1787482260000, "sessionID": "ses_fd1c", "part": {
        "id": "prt_5", "messageID": "msg_b", "type": "step-start"}},
    {"type": "text", "timestamp": 1787482261701, "sessionID": "ses_fd1c", "part": {
        "id": "prt_6", "messageID": "msg_b", "type": "text", "text": "I could not edit calc.py.",
        "time": {"start": 1787482261684, "end": 1787482261691}}},
    {"type": "step_finish", "timestamp": 1787482261701, "sessionID": "ses_fd1c", "part": {
        "id": "prt_7", "reason": "stop", "messageID": "msg_b", "type": "step-finish",
        "tokens": {"total": 8113, "input": 397, "output": 16, "reasoning": 20, "cache": {"write": 0, "read": 7680}},
        "cost": 0}},
    {"type": "done", "timestamp": 1787482261720, "sessionID": "ses_fd1c", "reason": "idle", "rejected": ["edit"]},
)


def test_opencode_run_json_whole_record() -> None:
    text = "\x1b[0m\n" + OPENCODE
    assert detect(text) == "opencode"
    assert parse(text) == Behaviour(
        "opencode", "parsed", "", "ses_fd1c", 2, None, (
            ToolCall("shell", "bash", {"command": "pytest -q", "description": "Run tests"}, "pytest -q", 1, "error"),
            ToolCall("edit", "edit", {"filePath": "/repo/calc.py", "oldString": "a - b", "newString": "a + b"},
                     None, None, "error")),
        # input beside the cache; output + reasoning; a cost of 0 is an unknown price, not a free run
        Tokens(input=8349, cache_read=7680, cache_write=0, output=95, reasoning=44), None, "none",
        "I could not edit calc.py.", ("tool", "tool", "text"), (1.052, 1.701), 0, None)


def test_opencode_older_build_ends_on_its_last_step_and_an_error_event() -> None:
    steps = OPENCODE.splitlines()[:-1]  # no done event
    ended = parse("\n".join(steps).replace('"reason": "stop"', '"reason": "length"') + "\n")
    assert (ended.status, ended.reason) == ("parsed", "")
    failed = parse(jsonl({"type": "error", "timestamp": 1, "sessionID": "ses_x", "error": {
        "name": "ProviderAuthError", "data": {"providerID": "anthropic", "message": "invalid key"}}}))
    assert (failed.format, failed.status, failed.session_id, failed.llm_calls) == ("opencode", "parsed", "ses_x", None)
    cut = parse("\n".join(OPENCODE.splitlines()[:5]) + "\n")
    assert (cut.status, cut.reason, cut.llm_calls) == (
        "partial", "the stream ended before its last step (cut off or killed)", 1)
