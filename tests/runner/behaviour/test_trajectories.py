"""Trajectory files agents leave in the workspace: exact records for realistic mini-swe-agent (v1, v2 text and
v2 tool calling), SWE-agent and ATIF files, detected from their content; unfinished files partial; malformed
ones unparsed with the reason; the model each reader names."""

from __future__ import annotations

import json

import pytest

from runner.behaviour.parse import detect, parse
from runner.runs.behaviour_record import Tokens, ToolCall
from tests.runner.behaviour.test_transcripts import CLAUDE, CLAUDE_RESULT, GEMINI


def usage(prompt: int, completion: int, cached: int = 0, reasoning: int = 0) -> dict:  # type: ignore[type-arg]
    return {"response": {"id": "chatcmpl-1", "usage": {
        "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reasoning}}}}


MINI_INFO = {"model_stats": {"instance_cost": 0.0123, "api_calls": 3},
             "config": {"model": {"model_name": "openai/gpt-5-mini"}, "model_type": "LitellmModel"},
             "mini_version": "2.1.0", "exit_status": "Submitted", "submission": "diff --git a/calc.py b/calc.py\n"}

MINI_V2_TEXT = {
    "info": MINI_INFO,
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix add() in calc.py."},
        {"role": "assistant", "content": "THOUGHT: look first.\n\n```mswea_bash_command\ngrep -n add calc.py\n```",
         "extra": {"actions": [{"command": "grep -n add calc.py"}], "cost": 0.004, "timestamp": 1760000000.0,
                   **usage(1200, 80, cached=0, reasoning=40)}},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>1:def add(a, b): return a - b</output>",
         "extra": {"returncode": 0, "timestamp": 1760000001.0}},
        {"role": "assistant", "content": "THOUGHT: fix it.\n\n```mswea_bash_command\nsed -i 's/a - b/a + b/' calc.py"
                                         " && python -m pytest -q\n```",
         "extra": {"actions": [{"command": "sed -i 's/a - b/a + b/' calc.py && python -m pytest -q"}],
                   **usage(1500, 60, cached=1024)}},
        {"role": "user", "content": "<returncode>1</returncode>\n<output>1 failed</output>",
         "extra": {"returncode": 1}},
        {"role": "assistant", "content": "Done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
         "extra": {"actions": [{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}], **usage(1700, 20, 1400)}},
        {"role": "user", "content": "", "extra": {"exit_status": "Submitted", "submission": "diff --git ..."}},
    ],
    "trajectory_format": "mini-swe-agent-1.1",
}


def test_mini_swe_agent_v2_text_mode() -> None:
    b = parse(json.dumps(MINI_V2_TEXT, indent=2))
    assert (b.format, b.status, b.reason, b.session_id, b.llm_calls, b.agent_turns) == (
        "mini-swe-agent", "parsed", "", None, 3, 3)
    assert b.tool_calls == (
        ToolCall("shell", "bash", {"command": "grep -n add calc.py"}, "grep -n add calc.py", 0, "ok"),
        ToolCall("shell", "bash", {"command": "sed -i 's/a - b/a + b/' calc.py && python -m pytest -q"},
                 "sed -i 's/a - b/a + b/' calc.py && python -m pytest -q", 1, "error"),
        # answered by the exit message: Submitted only follows a submission printed with exit code 0
        ToolCall("shell", "bash", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"},
                 "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", 0, "ok"))
    # prompt 4400 of which 2424 cached; completion 160 of which 40 reasoning
    assert b.tokens == Tokens(input=1976, cache_read=2424, cache_write=0, output=160, reasoning=40)
    assert (b.cost_usd, b.cost_source, b.model) == (0.0123, "agent", "openai/gpt-5-mini")
    assert b.final_message is not None and b.final_message.startswith("Done.")
    assert b.timeline == ("text", "tool", "text", "tool", "text", "tool")


def test_mini_swe_agent_v2_tool_calling() -> None:
    doc = {"info": {**MINI_INFO, "model_stats": {"instance_cost": 0.0, "api_calls": 2}}, "messages": [
        {"role": "user", "content": "Fix add()."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls -a"}'}},
            {"id": "call_2", "type": "function", "function": {"name": "bash", "arguments": '{"command": "cat x"}'}}],
         "extra": {"actions": [{"command": "ls -a", "tool_call_id": "call_1"}], **usage(900, 30)}},
        {"role": "tool", "tool_call_id": "call_1", "content": "calc.py", "extra": {"returncode": 0}},
        {"role": "tool", "tool_call_id": "call_2", "content": "no such file", "extra": {"returncode": 2}},
        {"role": "assistant", "content": "Nothing to do.", "tool_calls": [
            {"id": "call_3", "type": "function", "function": {"name": "bash", "arguments": '{"command": "true"}'}}],
         "extra": usage(1000, 10)},
    ], "trajectory_format": "mini-swe-agent-1.1"}
    b = parse(json.dumps(doc))
    assert [(c.raw_name, c.command, c.exit_code, c.status) for c in b.tool_calls] == [
        ("bash", "ls -a", 0, "ok"), ("bash", "cat x", 2, "error"), ("bash", "true", None, "interrupted")]
    assert b.tokens == Tokens(input=1900, cache_read=0, cache_write=0, output=40, reasoning=0)
    # instance_cost 0 after model calls: cost tracking was off, not free
    assert (b.cost_usd, b.cost_source, b.llm_calls) == (None, "none", 2)
    assert b.timeline == ("tool", "tool", "text", "tool")


def test_mini_swe_agent_v1_fenced_blocks_and_returncode_text() -> None:
    doc = {"info": {"model_stats": {"instance_cost": 0.5, "api_calls": 3},
                    "config": {"model": {"model_name": "claude-sonnet-4-5"}}, "exit_status": "LimitsExceeded"},
           "messages": [
               {"role": "system", "content": "sys"}, {"role": "user", "content": "task"},
               {"role": "assistant", "content": "THOUGHT: run tests\n\n```bash\ncd /testbed && pytest -q\n```"},
               {"role": "user", "content": "<returncode>1</returncode>\n<output>\nFAILED\n</output>"},
               {"role": "assistant", "content": "Two blocks:\n```bash\nls\n```\n```bash\npwd\n```"},
               {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks."},
               {"role": "assistant", "content": "```bash\ncat <<'EOF' > f.py\nx = 1\nEOF\n```"},
           ], "trajectory_format": "mini-swe-agent-1"}
    b = parse(json.dumps(doc))
    assert b.tool_calls == (
        ToolCall("shell", "bash", {"command": "cd /testbed && pytest -q"}, "cd /testbed && pytest -q", 1, "error"),
        ToolCall("shell", "bash", {"command": "cat <<'EOF' > f.py\nx = 1\nEOF"}, "cat <<'EOF' > f.py\nx = 1\nEOF",
                 None, "interrupted"))
    assert (b.status, b.tokens, b.cost_usd, b.model) == ("parsed", Tokens(), 0.5, "claude-sonnet-4-5")


def test_mini_swe_agent_without_exit_status_is_partial() -> None:
    doc = {**MINI_V2_TEXT, "info": {**MINI_INFO, "exit_status": None}}
    b = parse(json.dumps(doc))
    assert (b.status, b.reason) == ("partial", "the trajectory has no exit status (written before the agent finished)")
    assert len(b.tool_calls) == 3


SWE_AGENT = {
    "environment": "swe_main",
    "trajectory": [
        {"action": "find_file missing_colon.py", "observation": "Found 1 matches for \"missing_colon.py\"",
         "response": "DISCUSSION\nfind it\n```\nfind_file missing_colon.py\n```", "thought": "Let me find it.",
         "execution_time": 0.28, "state": {"open_file": "n/a", "working_dir": "/SWE-agent__test-repo"}, "query": []},
        {"action": "str_replace_editor view /repo/missing_colon.py", "observation": "1 def f(x)",
         "response": "", "thought": "", "execution_time": 0.1, "state": {}, "query": []},
        {"action": "str_replace_editor str_replace /repo/missing_colon.py --old_str 'def f(x)' --new_str 'def f(x):'",
         "observation": "edited", "response": "", "thought": "Add the colon.", "execution_time": 0.2, "state": {},
         "query": []},
        {"action": "python -m pytest -q tests", "observation": "1 passed", "response": "", "thought": "",
         "execution_time": 1.5, "state": {}, "query": []},
        {"action": "submit", "observation": "diff --git ...", "response": "", "thought": "Submitting.",
         "execution_time": 0.1, "state": {}, "query": []},
    ],
    "history": [
        {"role": "system", "content": "SETTING", "agent": "main", "message_type": "system_prompt"},
        {"role": "assistant", "content": "Let me find it.", "thought": "Let me find it.",
         "action": "find_file missing_colon.py", "agent": "main", "message_type": "action"},
        {"role": "user", "content": "Found 1 matches", "agent": "main", "message_type": "observation"},
        {"role": "assistant", "content": "Submitting.", "thought": "Submitting.", "action": "submit",
         "agent": "main", "message_type": "action"},
    ],
    "info": {"exit_status": "submitted", "submission": "diff --git a/missing_colon.py b/missing_colon.py\n",
             "model_stats": {"total_cost": 0.53839, "instance_cost": 0.53839, "tokens_sent": 52861,
                             "tokens_received": 326, "api_calls": 5},
             "swe_agent_version": "1.1.0"},
    "replay_config": json.dumps({"agent": {"model": {"name": "gpt-4o", "per_instance_cost_limit": 3.0}}}),
}


def test_swe_agent() -> None:
    b = parse(json.dumps(SWE_AGENT, indent=2))
    assert (b.format, b.status, b.llm_calls, b.agent_turns, b.session_id) == ("swe-agent", "parsed", 5, 5, None)
    assert b.tool_calls == (
        ToolCall("search", "find_file", {"action": "find_file missing_colon.py"}),
        ToolCall("read", "str_replace_editor", {"action": "str_replace_editor view /repo/missing_colon.py"}),
        ToolCall("edit", "str_replace_editor", {"action": "str_replace_editor str_replace /repo/missing_colon.py "
                                                          "--old_str 'def f(x)' --new_str 'def f(x):'"}),
        ToolCall("shell", "bash", {"command": "python -m pytest -q tests"}, "python -m pytest -q tests"),
        ToolCall("other", "submit", {"action": "submit"}))
    assert b.tokens == Tokens(input=52861, cache_read=None, cache_write=None, output=326, reasoning=None)
    assert (b.cost_usd, b.cost_source, b.final_message, b.model) == (0.53839, "agent", "Submitting.", "gpt-4o")
    assert b.timeline == ("text", "tool", "tool", "text", "tool", "tool", "text", "tool")


def test_swe_agent_without_exit_status_is_partial() -> None:
    b = parse(json.dumps({**SWE_AGENT, "info": {"model_stats": SWE_AGENT["info"]["model_stats"]}}))  # type: ignore[index]
    assert (b.status, len(b.tool_calls)) == ("partial", 5)


ATIF = {
    "schema_version": "ATIF-v1.6",
    "session_id": "atif-session-7",
    "agent": {"name": "claude-code", "version": "2.0.58", "model_name": "claude-sonnet-4-5-20250929"},
    "steps": [
        {"step_id": 1, "source": "user", "message": "Fix add() in calc.py."},
        {"step_id": 2, "source": "agent", "message": "Looking at the code.",
         "tool_calls": [{"tool_call_id": "t1", "function_name": "Bash", "arguments": {"command": "grep -n add calc.py"}},
                        {"tool_call_id": "t2", "function_name": "Read", "arguments": {"file_path": "calc.py"}}],
         "observation": {"results": [{"source_call_id": "t1", "content": "1:def add"},
                                     {"source_call_id": "t2", "content": "def add(a, b): ..."}]},
         "metrics": {"prompt_tokens": 5000, "completion_tokens": 120, "cached_tokens": 4000, "cost_usd": 0.01}},
        {"step_id": 3, "source": "agent", "message": [{"type": "text", "text": "Fixing."}], "llm_call_count": 2,
         "tool_calls": [{"tool_call_id": "t3", "function_name": "Edit",
                         "arguments": {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}],
         "observation": {"results": [{"source_call_id": "t3", "content": "ok"}]},
         "metrics": {"prompt_tokens": 7000, "completion_tokens": 200, "cached_tokens": 5000,
                     "extra": {"cache_creation_input_tokens": 1000}, "cost_usd": 0.02}},
        {"step_id": 4, "source": "agent", "message": "Done: add() adds.",
         "tool_calls": [{"tool_call_id": "t4", "function_name": "Bash", "arguments": {"command": "pytest -q"}}]},
    ],
    "final_metrics": {"total_prompt_tokens": 12000, "total_completion_tokens": 320, "total_cached_tokens": 9000,
                      "total_cost_usd": 0.0312, "total_steps": 4,
                      "extra": {"total_cache_creation_input_tokens": 1000}},
}


def test_atif() -> None:
    b = parse(json.dumps(ATIF, indent=2))
    assert (b.format, b.status, b.session_id, b.llm_calls, b.agent_turns) == (
        "atif", "parsed", "atif-session-7", 4, None)
    assert b.tool_calls == (
        ToolCall("shell", "Bash", {"command": "grep -n add calc.py"}, "grep -n add calc.py", None, "unknown"),
        ToolCall("read", "Read", {"file_path": "calc.py"}, None, None, "unknown"),
        ToolCall("edit", "Edit", {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}, None, None,
                 "unknown"),
        ToolCall("shell", "Bash", {"command": "pytest -q"}, "pytest -q", None, "interrupted"))
    assert b.tokens == Tokens(input=2000, cache_read=9000, cache_write=1000, output=320, reasoning=None)
    assert (b.cost_usd, b.cost_source, b.model) == (0.0312, "agent", "claude-sonnet-4-5-20250929")
    assert (b.final_message, b.timeline) == ("Done: add() adds.", ("text", "tool", "tool", "text", "tool", "text",
                                                                  "tool"))


def test_atif_without_final_metrics_sums_the_steps_and_is_partial() -> None:
    doc = {k: v for k, v in ATIF.items() if k != "final_metrics"}
    b = parse(json.dumps(doc))
    assert (b.status, b.reason) == ("partial", "the trajectory has no final_metrics (written before the agent finished)")
    assert b.tokens == Tokens(input=2000, cache_read=9000, cache_write=1000, output=320, reasoning=0)
    assert b.cost_usd == pytest.approx(0.03)


@pytest.mark.parametrize(("doc", "expected"), [
    (MINI_V2_TEXT, "mini-swe-agent"), (SWE_AGENT, "swe-agent"), (ATIF, "atif")])
def test_detection_of_whole_documents(doc: dict, expected: str) -> None:  # type: ignore[type-arg]
    assert detect(json.dumps(doc, indent=2)) == expected
    assert detect(json.dumps(doc)) == expected


@pytest.mark.parametrize(("fmt", "text", "reason"), [
    ("atif", '{"schema_version": "ATIF-v1.6", "steps": {}}', "TypeError: ATIF trajectory without a steps list"),
    ("swe-agent", "[1, 2]", "TypeError: expected one JSON object, got list"),
    ("mini-swe-agent", '{"trajectory_format": "mini-swe-agent-1.1", "messages": [', "JSONDecodeError: "),
])
def test_a_malformed_trajectory_is_unparsed_with_the_reason(fmt: str, text: str, reason: str) -> None:
    b = parse(text, fmt)
    assert (b.format, b.status, b.tool_calls, b.tokens) == (fmt, "unparsed", (), Tokens())
    assert b.reason.startswith(reason)


def test_a_cut_off_trajectory_file_is_unparsed_in_its_format_not_plain_text() -> None:
    text = json.dumps(ATIF, indent=2)[:200]
    assert detect(text) == "atif"
    record = parse(text)
    assert (record.format, record.status) == ("atif", "unparsed") and record.reason.startswith("JSONDecodeError: ")
    assert detect("{\n  \"note\": \"not a trajectory") == "none"


def test_readers_name_the_model() -> None:
    assert parse(CLAUDE + CLAUDE_RESULT).model == "claude-opus-4"
    assert parse(GEMINI).model == "auto"
    assert parse('{"type": "thread.started", "thread_id": "t"}\n{"type": "turn.completed"}\n').model is None
