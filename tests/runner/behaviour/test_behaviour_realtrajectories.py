"""Trajectory files as the agents write them (mini-swe-agent v2 tool calling and Responses API, Harbor's ATIF
from Claude Code) asserted whole, and every stream format under the ways real output breaks: cut mid-line by
the timeout, a malformed line, log lines before the first event."""

from __future__ import annotations

import json

import pytest

from runner.behaviour.parse import detect, parse
from runner.runs.behaviour_record import Behaviour, Tokens, ToolCall
from tests.runner.behaviour.test_behaviour_realformats import CLAUDE, CLAUDE_RESULT, CODEX, GEMINI, OPENCODE


def chat_usage(prompt: int, completion: int, cached: int, written: int = 0) -> dict:  # type: ignore[type-arg]
    """litellm's usage of an Anthropic model: prompt_tokens counts the cache reads and writes inside it."""
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached}, "cache_creation_input_tokens": written,
            "cache_read_input_tokens": cached}


MINI_TOOLCALL = {
    "info": {"model_stats": {"instance_cost": 0.0421, "api_calls": 2},
             "config": {"model": {"model_name": "anthropic/claude-sonnet-4-5"},
                        "model_type": "minisweagent.models.litellm_toolcall_model.LitellmToolcallModel"},
             "mini_version": "2.4.6", "exit_status": "Submitted", "submission": ""},
    "messages": [
        {"role": "system", "content": "You are a helpful assistant that can interact with a computer."},
        {"role": "user", "content": "Fix add() in calc.py."},
        {"role": "assistant", "content": "Let me run the tests.", "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {
                "name": "bash", "arguments": json.dumps({"command": "cd /repo && python -m pytest -q"})}}],
         "extra": {"actions": [{"command": "cd /repo && python -m pytest -q", "tool_call_id": "toolu_1"}],
                   "response": {"id": "r1", "usage": chat_usage(4200, 90, cached=0, written=4100)},
                   "cost": 0.0201, "timestamp": 1760000000.0}},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "<returncode>1</returncode>\n<output>1 failed</output>",
         "extra": {"raw_output": "1 failed", "returncode": 1, "timestamp": 1760000002.0}},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "toolu_2", "type": "function", "function": {
                "name": "bash", "arguments": json.dumps({"command": "sed -i 's/a - b/a + b/' calc.py && "
                                                                    "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"})}}],
         "extra": {"actions": [{"command": "sed -i 's/a - b/a + b/' calc.py && "
                                           "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "tool_call_id": "toolu_2"}],
                   "response": {"id": "r2", "usage": chat_usage(4400, 60, cached=4100, written=200)},
                   "cost": 0.022, "timestamp": 1760000004.0}},
        # v2: the environment raises Submitted from the action's output, so the exit message answers it
        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}},
    ],
    "trajectory_format": "mini-swe-agent-1.1",
}


def test_mini_swe_agent_v2_tool_calling_whole_record() -> None:
    text = json.dumps(MINI_TOOLCALL, indent=2)
    assert detect(text) == "mini-swe-agent"
    submit = "sed -i 's/a - b/a + b/' calc.py && echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
    assert parse(text) == Behaviour(
        "mini-swe-agent", "parsed", "", None, 2, 2, (
            ToolCall("shell", "bash", {"command": "cd /repo && python -m pytest -q"},
                     "cd /repo && python -m pytest -q", 1, "error"),
            ToolCall("shell", "bash", {"command": submit}, submit, 0, "ok")),
        # prompt 8600 = uncached 0 + 200, cache reads 4100, cache writes 4300
        Tokens(input=200, cache_read=4100, cache_write=4300, output=150, reasoning=0), 0.0421, "agent",
        "Let me run the tests.", ("text", "tool", "tool"), (), 0, "anthropic/claude-sonnet-4-5")


MINI_RESPONSES = {
    "info": {"config": {"model": {"model_name": "openai/gpt-5"}}, "mini_version": "2.4.6",
             "exit_status": "LimitsExceeded", "submission": ""},
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix add() in calc.py."},
        {"object": "response", "id": "resp_1", "model": "gpt-5-2025-08-07", "status": "completed", "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "message", "id": "msg_1", "role": "assistant",
             "content": [{"type": "output_text", "text": "Listing files first."}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash",
             "arguments": json.dumps({"command": "ls -la"})}],
         "usage": {"input_tokens": 3000, "input_tokens_details": {"cached_tokens": 2048}, "output_tokens": 400,
                   "output_tokens_details": {"reasoning_tokens": 320}, "total_tokens": 3400},
         "extra": {"actions": [{"command": "ls -la", "tool_call_id": "call_1"}], "cost": 0.0045}},
        {"type": "function_call_output", "call_id": "call_1", "output": "<returncode>0</returncode>",
         "extra": {"raw_output": "calc.py", "returncode": 0}},
        {"object": "response", "id": "resp_2", "output": [
            {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "bash",
             "arguments": json.dumps({"command": "python -m pytest -q"})}],
         "usage": {"input_tokens": 3500, "input_tokens_details": {"cached_tokens": 3000}, "output_tokens": 100,
                   "output_tokens_details": {"reasoning_tokens": 60}, "total_tokens": 3600},
         "extra": {"actions": [{"command": "python -m pytest -q", "tool_call_id": "call_2"}], "cost": 0.0015}},
        {"role": "exit", "content": "", "extra": {"exit_status": "LimitsExceeded", "submission": ""}},
    ],
    "trajectory_format": "mini-swe-agent-1.1",
}


def test_mini_swe_agent_responses_api_without_model_stats() -> None:
    b = parse(json.dumps(MINI_RESPONSES, indent=2))
    assert b == Behaviour(
        "mini-swe-agent", "parsed", "", None, 2, None, (
            ToolCall("shell", "bash", {"command": "ls -la"}, "ls -la", 0, "ok"),
            # the agent stopped at its limit before the command's output: no exit code
            ToolCall("shell", "bash", {"command": "python -m pytest -q"}, "python -m pytest -q", None, "unknown")),
        Tokens(input=1452, cache_read=5048, cache_write=0, output=500, reasoning=380), 0.006, "agent",
        "Listing files first.", ("text", "tool", "tool"), (), 0, "openai/gpt-5")


ATIF_CLAUDE = {
    "schema_version": "ATIF-v1.5", "session_id": "9408bea7-3c2e-4a57-9f4c-0b1f0d3f2a11",
    "agent": {"name": "claude-code", "version": "2.1.247", "model_name": "claude-opus-5"},
    "steps": [
        {"step_id": 1, "timestamp": "2026-08-23T10:50:00.000Z", "source": "user", "message": "Fix add()."},
        {"step_id": 2, "source": "agent", "model_name": "claude-opus-5", "message": "Running the tests.",
         "reasoning_content": "Look at calc.py",
         "tool_calls": [{"tool_call_id": "toolu_01", "function_name": "Bash",
                         "arguments": {"command": "python -m pytest -q"}}],
         "observation": {"results": [{"source_call_id": "toolu_01", "content": "1 failed"}]},
         "metrics": {"prompt_tokens": 3770, "completion_tokens": 61, "cached_tokens": 1247,
                     "extra": {"cache_creation_input_tokens": 2521}}},
        {"step_id": 3, "source": "agent", "model_name": "claude-opus-5", "message": "",
         "tool_calls": [{"tool_call_id": "toolu_02", "function_name": "Edit", "arguments": {
             "file_path": "/repo/src/calc.py", "old_string": "a - b", "new_string": "a + b"}}],
         "metrics": {"prompt_tokens": 3899, "completion_tokens": 50, "cached_tokens": 3828,
                     "extra": {"cache_creation_input_tokens": 70}}},
        {"step_id": 4, "source": "agent", "model_name": "claude-opus-5", "message": "Fixed add().",
         "metrics": {"prompt_tokens": 3898, "completion_tokens": 8, "cached_tokens": 3898}},
    ],
    "final_metrics": {"total_prompt_tokens": 11567, "total_completion_tokens": 119, "total_cached_tokens": 8973,
                      "total_cost_usd": 0.031, "total_steps": 4,
                      "extra": {"service_tiers": ["standard"], "total_cache_creation_input_tokens": 2591,
                                "total_cache_read_input_tokens": 8973}},
}


def test_harbor_atif_from_claude_code_whole_record() -> None:
    text = json.dumps(ATIF_CLAUDE, indent=2)
    assert detect(text) == "atif"
    assert parse(text) == Behaviour(
        "atif", "parsed", "", "9408bea7-3c2e-4a57-9f4c-0b1f0d3f2a11", 3, None, (
            ToolCall("shell", "Bash", {"command": "python -m pytest -q"}, "python -m pytest -q", None, "unknown"),
            # no observation names it: the call never finished
            ToolCall("edit", "Edit", {"file_path": "/repo/src/calc.py", "old_string": "a - b",
                                      "new_string": "a + b"}, None, None, "interrupted")),
        # total_prompt_tokens counts cache reads and writes inside it: 11567 - 8973 - 2591 uncached
        Tokens(input=3, cache_read=8973, cache_write=2591, output=119, reasoning=None), 0.031, "agent",
        "Fixed add().", ("text", "tool", "tool", "text"), (), 0, "claude-opus-5")


def test_an_atif_exporter_writing_a_bare_version_number_is_atif() -> None:
    text = json.dumps({**ATIF_CLAUDE, "schema_version": "1.4"})
    assert detect(text) == "atif" and parse(text).llm_calls == 3


STREAMS = {"codex": CODEX, "claude": CLAUDE + CLAUDE_RESULT, "gemini": GEMINI, "opencode": OPENCODE}


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_a_stream_cut_mid_line_keeps_what_it_had_and_is_partial(fmt: str) -> None:
    text = STREAMS[fmt]
    lines = text.splitlines()
    cut = "\n".join(lines[:-2]) + "\n" + lines[-2][: len(lines[-2]) // 2]  # killed while writing a line
    whole, partial = parse(text), parse(cut)
    assert detect(cut) == fmt and (partial.format, partial.status) == (fmt, "partial")
    assert partial.skipped_lines == 1 and partial.reason.startswith("the stream ended before")
    assert partial.session_id == whole.session_id and partial.tool_calls[:2] == whole.tool_calls[:2]


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_a_malformed_line_inside_a_finished_stream_marks_it_partial(fmt: str) -> None:
    lines = STREAMS[fmt].splitlines()
    lines.insert(len(lines) // 2, '{"type": "item.completed", "item": {"id": "x", "text": "un')
    b = parse("\n".join(lines) + "\n")
    whole = parse(STREAMS[fmt])
    assert (b.format, b.status, b.reason, b.skipped_lines) == (fmt, "partial", "1 line(s) were not JSON", 1)
    assert (b.tool_calls, b.tokens, b.final_message) == (whole.tool_calls, whole.tokens, whole.final_message)


NOISE = ("npm warn deprecated node-domexception@1.0.0: Use your platform's native DOMException instead\n"
         "(node:4121) [DEP0040] DeprecationWarning: The `punycode` module is deprecated.\n"
         "Reading prompt from stdin...\n\x1b[33mwarning\x1b[0m: proxy settings ignored\n")


@pytest.mark.parametrize("fmt", sorted(STREAMS))
def test_log_lines_before_the_stream_change_nothing(fmt: str) -> None:
    assert detect(NOISE + STREAMS[fmt]) == fmt
    assert parse(NOISE + STREAMS[fmt]) == parse(STREAMS[fmt])


def test_log_lines_around_a_trajectory_document_change_nothing() -> None:
    text = json.dumps(ATIF_CLAUDE, indent=2)
    assert parse(NOISE + text + "\nDone.\n") == parse(text)


def test_a_stream_of_objects_is_not_taken_for_one_document() -> None:
    first, *rest = CLAUDE.splitlines()
    assert detect(json.dumps(json.loads(first), indent=2) + "\n" + "\n".join(rest)) == "claude"


def test_claude_json_verbose_prints_the_stream_as_one_array() -> None:
    events = [json.loads(line) for line in (CLAUDE + CLAUDE_RESULT).splitlines()]
    text = NOISE + json.dumps(events, indent=2) + "\n"
    assert detect(text) == "claude"
    assert parse(text) == parse(CLAUDE + CLAUDE_RESULT)


def test_claude_json_without_verbose_is_its_result_line() -> None:
    b = parse(CLAUDE_RESULT)
    assert (b.format, b.status, b.session_id, b.llm_calls, b.agent_turns, b.final_message, b.cost_usd) == (
        "claude", "parsed", "9408bea7", None, 5, "Fixed add().", 0.0324675)
    assert b.tokens == Tokens(input=924, cache_read=12741, cache_write=2651, output=181, reasoning=None)


def test_generic_jsonl_with_openai_style_string_arguments() -> None:
    text = ('{"name": "bash", "arguments": "{\\"command\\": \\"bash -lc \'make test\'\\"}", "exit_code": 0}\n'
            '{"type": "final", "message": "ok"}\n')
    assert detect(text) == "generic"
    assert parse(text).tool_calls == (
        ToolCall("shell", "bash", {"command": "bash -lc 'make test'"}, "make test", 0, "ok"),)


def test_an_odd_value_in_one_event_leaves_the_rest_of_the_record() -> None:
    odd = ('{"type": {"kind": "x"}}\n'
           '{"type": "item.completed", "item": {"id": "item_9", "type": ["command_execution"]}}\n'
           '{"type": "item.completed", "item": {"id": "item_10", "type": "command_execution", '
           '"command": ["bash", "-lc", 7], "exit_code": 0, "status": "completed"}}\n')
    lines = CODEX.splitlines()
    text = "\n".join([lines[0], odd.rstrip("\n"), *lines[1:]]) + "\n"
    b = parse(text)
    assert (b.format, b.status) == ("codex", "parsed")
    assert b.tool_calls == (ToolCall("shell", "command_execution", {"command": ["bash", "-lc", 7]}, "7", 0, "ok"),
                            *parse(CODEX).tool_calls)
    mini = json.loads(json.dumps(MINI_TOOLCALL))
    mini["messages"][2]["tool_calls"][0]["function"]["arguments"] = "{not json"
    assert parse(json.dumps(mini)).tool_calls[0] == ToolCall("shell", "bash", {}, None, 1, "error")
