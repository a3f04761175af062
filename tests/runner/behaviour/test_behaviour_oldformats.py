"""Older output forms the same CLIs printed before their current ones (Codex's ``{"id", "msg"}`` protocol events
and its short-lived experimental JSON), asserted whole."""

from __future__ import annotations

from runner.behaviour.parse import detect, parse
from runner.runs.behaviour_record import Behaviour, Tokens, ToolCall
from tests.runner.behaviour.test_behaviour_realformats import jsonl


def test_codex_legacy_protocol_events_name_the_model_and_every_tool() -> None:
    b = parse(jsonl(
        {"model": "gpt-5-codex", "workdir": "/repo", "approval": "never", "sandbox": "workspace-write"},
        {"prompt": "fix add"},
        {"id": "0", "msg": {"type": "task_started", "model_context_window": 272000}},
        {"id": "0", "msg": {"type": "agent_reasoning", "text": "**Searching**"}},
        {"id": "0", "msg": {"type": "mcp_tool_call_begin", "call_id": "call_1", "invocation": {
            "server": "docs", "tool": "search", "arguments": {"q": "add"}}}},
        {"id": "0", "msg": {"type": "mcp_tool_call_end", "call_id": "call_1", "duration": {"secs": 0, "nanos": 5},
                            "result": {"Ok": {"content": [], "isError": False}}}},
        {"id": "0", "msg": {"type": "web_search_begin", "call_id": "ws_1"}},
        {"id": "0", "msg": {"type": "web_search_end", "call_id": "ws_1", "query": "python add"}},
        {"id": "0", "msg": {"type": "exec_command_begin", "call_id": "call_2",
                            "command": ["bash", "-lc", "pytest -q"], "cwd": "/repo"}},
        {"id": "0", "msg": {"type": "exec_command_end", "call_id": "call_2", "stdout": "", "stderr": "boom",
                            "exit_code": 2}},
        {"id": "0", "msg": {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": 5000, "cached_input_tokens": 4096, "output_tokens": 300,
                                  "reasoning_output_tokens": 128, "total_tokens": 5300},
            "last_token_usage": {"input_tokens": 5000, "cached_input_tokens": 4096, "output_tokens": 300,
                                 "reasoning_output_tokens": 128, "total_tokens": 5300}}}},
        {"id": "0", "msg": {"type": "task_complete", "last_agent_message": "tests fail"}}))
    assert b == Behaviour(
        "codex", "parsed", "", None, None, 1, (
            ToolCall("mcp", "docs.search", {"q": "add"}, None, None, "ok"),
            ToolCall("web_search", "web_search", {"query": "python add"}, None, None, "ok"),
            ToolCall("shell", "exec_command", {"command": ["bash", "-lc", "pytest -q"]}, "pytest -q", 2, "error")),
        Tokens(904, 4096, None, 300, 128), None, "none", "tests fail", ("tool", "tool", "tool"), (), 0,
        "gpt-5-codex")


def test_codex_experimental_json_item_type_and_assistant_message() -> None:
    # exec --experimental-json before ThreadEvent: item_type discriminator, the argv joined with spaces, no usage
    text = jsonl(
        {"type": "session.created", "session_id": "0199a0b2-7c1e-7d21-9a43-5b8f0e6c1d2a"},
        {"type": "item.completed", "item": {"id": "itm_0", "item_type": "reasoning", "text": "**Listing**"}},
        {"type": "item.completed", "item": {"id": "itm_1", "item_type": "command_execution",
                                            "command": "bash -lc ls -1", "aggregated_output": "a\nb\n",
                                            "exit_code": 0, "status": "completed"}},
        {"type": "item.completed", "item": {"id": "itm_2", "item_type": "file_change", "changes": [
            {"path": "/repo/a", "kind": "add"}], "status": "failed"}},
        {"type": "item.completed", "item": {"id": "itm_3", "item_type": "assistant_message", "text": "Two files."}},
    )
    assert detect(text) == "codex"
    # no terminal event in this form: a whole stream is parsed, one cut mid-line partial
    assert parse(text + '{"type": "item.comp').status == "partial"
    assert parse(text) == Behaviour(
        "codex", "parsed", "",
        "0199a0b2-7c1e-7d21-9a43-5b8f0e6c1d2a", None, None, (
            ToolCall("shell", "command_execution", {"command": "bash -lc ls -1"}, "ls -1", 0, "ok"),
            ToolCall("edit", "file_change", {"changes": [{"path": "/repo/a", "kind": "add"}]}, None, None, "error")),
        Tokens(), None, "none", "Two files.", ("tool", "tool", "text"), (), 0, None)
