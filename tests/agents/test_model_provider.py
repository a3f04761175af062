"""The scripted provider on its own, driven over HTTP as the CLIs drive it: each API's shapes, the step a
request's history asks for, side and meta requests, the log, and the loud failures."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.testing.model_provider.dialects import CLAUDE, CODEX, GEMINI, MINI, OPENCODE, Dialect
from tests.testing.model_provider.script import Edit, Finish, Read, Script, Shell, numbered_usage
from tests.testing.model_provider.server import ScriptedProvider

STEPS = (Shell("cat calc.py", expect="a - b"), Read("calc.py"), Edit("calc.py", "    return a - b\n",
                                                                      "    return a + b\n"), Finish("Done."))
SCRIPT = Script(steps=STEPS, usage=numbered_usage(len(STEPS)))
U1 = SCRIPT.usage[0]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    providers: list[ScriptedProvider] = []

    def start(dialect: Dialect) -> ScriptedProvider:
        provider = ScriptedProvider(SCRIPT, dialect, tmp_path / "work", tmp_path / f"{dialect.name}.jsonl")
        providers.append(provider.__enter__())
        return provider

    yield start
    for provider in providers:
        provider.__exit__(None, None, None)


def post(url: str, body: object, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with direct.open(request, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def events(payload: bytes) -> list[dict[str, Any]]:
    """The data of each server-sent event ([DONE] left out)."""
    return [json.loads(line[6:]) for line in payload.decode().splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"]


def test_responses_streams_a_function_call_then_reads_its_result(serve: Any) -> None:
    provider = serve(CODEX)
    tools = [{"type": "function", "name": "exec_command"}, {"type": "custom", "name": "apply_patch"}]
    status, kind, payload = post(f"{provider.url}/v1/responses", {
        "model": "m", "stream": True, "tools": tools,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix"}]}]})
    assert (status, kind) == (200, "text/event-stream")
    sse = events(payload)
    assert [event["type"] for event in sse][:2] == ["response.created", "response.in_progress"]
    (done,) = (event["item"] for event in sse if event["type"] == "response.output_item.done")
    assert done["type"] == "function_call" and done["name"] == "exec_command"
    assert json.loads(done["arguments"])["cmd"] == "cat calc.py"
    assert sse[-1]["type"] == "response.completed"
    assert sse[-1]["response"]["usage"] == {
        "input_tokens": U1.prompt, "input_tokens_details": {"cached_tokens": U1.cache_read,
                                                            "cache_write_tokens": U1.cache_write},
        "output_tokens": U1.output, "output_tokens_details": {"reasoning_tokens": U1.reasoning},
        "total_tokens": U1.prompt + U1.output}

    history = [{"type": "message", "role": "user", "content": "fix"}, done,
               {"type": "function_call_output", "call_id": done["call_id"], "output": "def add(a, b):\n  return a - b"},
               {"type": "function_call", "call_id": "call_hindcast_1", "name": "exec_command", "arguments": "{}"},
               {"type": "function_call_output", "call_id": "call_hindcast_1", "output": "..."}]
    status, _, payload = post(f"{provider.url}/v1/responses", {"model": "m", "stream": True, "tools": tools,
                                                               "input": history})
    (patch,) = (event["item"] for event in events(payload) if event["type"] == "response.output_item.done")
    assert patch["type"] == "custom_tool_call" and patch["name"] == "apply_patch"
    assert patch["input"] == ("*** Begin Patch\n*** Update File: calc.py\n@@\n-    return a - b\n+    return a + b\n"
                              "*** End Patch\n")
    log = provider.requests()
    assert [entry["step"] for entry in log] == [0, 2]
    assert log[1]["tool_result"] == "..."


def test_a_tool_the_request_does_not_offer_is_a_logged_500(serve: Any) -> None:
    provider = serve(CLAUDE)
    status, _, payload = post(f"{provider.url}/v1/messages", {
        "model": "claude", "stream": True, "tools": [{"name": "Read"}, {"name": "Edit"}],
        "messages": [{"role": "user", "content": "fix"}]}, headers={"x-api-key": "secret-key"})
    assert status == 500
    message = json.loads(payload)["error"]["message"]
    assert message == ("scripted provider: claude: step 'shell' needs one of the tools [Bash], the request offers "
                       "[Edit, Read]")
    assert provider.errors == [message]
    (entry,) = provider.requests()
    assert (entry["status"], entry["error"], entry["headers"]["x-api-key"]) == (500, message, "<redacted>")
    assert "secret-key" not in Path(provider.log_path).read_text()


def test_a_result_without_the_expected_text_fails_the_next_step(serve: Any) -> None:
    provider = serve(MINI)
    history = [{"role": "user", "content": "fix"},
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "call_hindcast_0", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
               {"role": "tool", "tool_call_id": "call_hindcast_0", "content": "cat: calc.py: No such file"}]
    status, _, payload = post(f"{provider.url}/v1/chat/completions",
                              {"model": "m", "tools": [{"type": "function", "function": {"name": "bash"}}],
                               "messages": history})
    assert status == 500
    assert "step 1's bash result lacks 'a - b'" in json.loads(payload)["error"]["message"]


def test_chat_completions_plain_and_streamed(serve: Any) -> None:
    provider = serve(OPENCODE)
    body = {"model": "m", "tools": [{"type": "function", "function": {"name": "bash"}}],
            "messages": [{"role": "user", "content": "fix"}]}
    status, kind, payload = post(f"{provider.url}/v1/chat/completions", body)
    whole = json.loads(payload)
    assert (status, kind) == (200, "application/json")
    (call,) = whole["choices"][0]["message"]["tool_calls"]
    assert (call["id"], call["function"]["name"], json.loads(call["function"]["arguments"])["command"]) == (
        "call_hindcast_0", "bash", "cat calc.py")
    assert whole["choices"][0]["finish_reason"] == "tool_calls"
    assert whole["usage"] == {"prompt_tokens": U1.prompt, "completion_tokens": U1.output,
                              "total_tokens": U1.prompt + U1.output,
                              "prompt_tokens_details": {"cached_tokens": U1.cache_read},
                              "completion_tokens_details": {"reasoning_tokens": U1.reasoning}}
    status, kind, payload = post(f"{provider.url}/v1/chat/completions", {**body, "stream": True})
    chunks = events(payload)
    assert payload.decode().rstrip().endswith("data: [DONE]")
    deltas = [chunk["choices"][0]["delta"] for chunk in chunks if chunk["choices"]]
    assert "".join(d["tool_calls"][0]["function"].get("arguments", "") for d in deltas if "tool_calls" in d) == \
        call["function"]["arguments"]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == whole["usage"]
    status, _, payload = post(f"{provider.url}/v1/chat/completions", {
        "model": "m", "messages": [{"role": "system", "content": "Generate a title"}, {"role": "user", "content": "x"}]})
    assert json.loads(payload)["choices"][0]["message"]["content"] == SCRIPT.side_text
    assert [entry["kind"] for entry in provider.requests()] == ["main", "main", "side"]


def test_anthropic_messages_whole_and_the_final_text(serve: Any) -> None:
    provider = serve(CLAUDE)
    history: list[dict[str, Any]] = [{"role": "user", "content": "fix"}]
    for index in range(3):
        history += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_hindcast_{index}",
                                                       "name": "Bash", "input": {}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_hindcast_{index}",
                                                  "content": [{"type": "text", "text": "a - b"}]}]}]
    status, _, payload = post(f"{provider.url}/v1/messages", {"model": "claude", "tools": [{"name": "Bash"}],
                                                              "messages": history})
    message = json.loads(payload)
    last = SCRIPT.usage[3]
    assert (status, message["content"], message["stop_reason"]) == (200, [{"type": "text", "text": "Done."}],
                                                                     "end_turn")
    assert message["usage"] == {"input_tokens": last.input, "cache_creation_input_tokens": last.cache_write,
                                "cache_read_input_tokens": last.cache_read, "output_tokens": last.output}
    status, _, payload = post(f"{provider.url}/v1/messages/count_tokens", {"model": "claude", "messages": history})
    assert json.loads(payload)["input_tokens"] > 0
    assert [entry["kind"] for entry in provider.requests()] == ["main", "meta"]


def test_anthropic_stream_carries_the_tool_input_as_json_deltas(serve: Any) -> None:
    provider = serve(CLAUDE)
    status, _, payload = post(f"{provider.url}/v1/messages", {
        "model": "claude", "stream": True, "tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "x"}]})
    sse = events(payload)
    assert status == 200
    assert [event["type"] for event in sse] == ["message_start", "content_block_start", "content_block_delta",
                                                "content_block_stop", "message_delta", "message_stop"]
    assert sse[0]["message"]["usage"]["cache_read_input_tokens"] == U1.cache_read
    assert sse[1]["content_block"]["type"] == "tool_use"
    assert json.loads(sse[2]["delta"]["partial_json"])["command"] == "cat calc.py"
    assert sse[4]["delta"]["stop_reason"] == "tool_use" and sse[4]["usage"]["output_tokens"] == U1.output


def test_gemini_generate_content_and_stream(serve: Any, tmp_path: Path) -> None:
    provider = serve(GEMINI)
    tools = [{"functionDeclarations": [{"name": "run_shell_command"}, {"name": "read_file"}]}]
    body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": "fix"}]}], "tools": tools}
    status, _, payload = post(f"{provider.url}/v1beta/models/gemini-x:generateContent", body,
                              headers={"x-goog-api-key": "k"})
    whole = json.loads(payload)
    (part,) = whole["candidates"][0]["content"]["parts"]
    assert part["functionCall"]["name"] == "run_shell_command"
    assert whole["usageMetadata"] == {"promptTokenCount": U1.prompt, "cachedContentTokenCount": U1.cache_read,
                                      "candidatesTokenCount": U1.output - U1.reasoning,
                                      "thoughtsTokenCount": U1.reasoning, "totalTokenCount": U1.prompt + U1.output}
    body["contents"] += [{"role": "model", "parts": [part]},
                         {"role": "user", "parts": [{"functionResponse": {
                             "id": part["functionCall"]["id"], "name": "run_shell_command",
                             "response": {"output": "return a - b"}}}]}]
    status, kind, payload = post(f"{provider.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse", body)
    (chunk,) = events(payload)
    assert kind == "text/event-stream"
    assert chunk["candidates"][0]["content"]["parts"][0]["functionCall"] == {
        "id": "hindcast_1", "name": "read_file", "args": {"file_path": str(tmp_path / "work" / "calc.py")}}
    status, _, payload = post(f"{provider.url}/v1beta/models/gemini-x:countTokens", body)
    assert status == 200 and json.loads(payload)["totalTokens"] > 0
    log = provider.requests()
    assert [(entry["kind"], entry.get("step")) for entry in log] == [("main", 0), ("main", 1), ("meta", None)]
    assert log[1]["tool_result"] == json.dumps({"output": "return a - b"})


def test_model_lists_unknown_paths_and_an_exhausted_script(serve: Any) -> None:
    provider = serve(CODEX)
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with direct.open(f"{provider.url}/v1/models") as response:
        assert json.load(response)["data"][0]["id"] == "hindcast-scripted"
    status, _, _ = post(f"{provider.url}/v1/embeddings", {})
    assert status == 404
    finished = [{"type": "message", "role": "assistant", "content": "x"}] * len(STEPS)
    status, _, payload = post(f"{provider.url}/v1/responses", {"model": "m", "input": finished,
                                                               "tools": [{"type": "function", "name": "exec_command"}]})
    assert status == 500 and "the script has 4 steps" in json.loads(payload)["error"]["message"]
    assert [(entry["kind"], entry["status"]) for entry in provider.requests()] == [
        ("meta", 200), ("unknown", 404), ("main", 500)]
