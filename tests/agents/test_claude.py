"""Claude Code 2.1.197 fixes the project against the scripted Anthropic Messages API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import (
    FINAL,
    FIXED,
    PROMPT,
    agent_env,
    assert_played,
    fixing_script,
    run_cli,
    save_capture,
)
from tests.testing.gitrepo import GitRepo
from tests.testing.model_provider.dialects import CLAUDE
from tests.testing.model_provider.server import ScriptedProvider

pytestmark = pytest.mark.agents

MODEL = "claude-sonnet-4-5"


def claude_command(claude: Path) -> list[str]:
    """Claude Code's non-interactive command line: the prompt follows."""
    return [str(claude), "-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions",
            "--model", MODEL]


def claude_env(home: Path, url: str) -> dict[str, str]:
    """ANTHROPIC_BASE_URL at the provider; IS_SANDBOX=1 lets root skip permissions; no update checks, telemetry,
    error reports or title request (the nonessential traffic, which otherwise also reaches api.anthropic.com)."""
    return agent_env(home, {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-ant-scripted", "IS_SANDBOX": "1",
                            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})


def test_claude_fixes_the_project(agent_bin: Callable[[str], Path], workspace: GitRepo, home: Path,
                                  tmp_path: Path) -> None:
    script = fixing_script()
    with ScriptedProvider(script, CLAUDE, workspace.path, tmp_path / "requests.jsonl") as provider:
        run = run_cli([*claude_command(agent_bin("claude")), PROMPT], workspace.path,
                      claude_env(home, provider.url))
    save_capture("claude", {"stdout.jsonl": run.stdout})

    assert run.returncode == 0, run.explain()
    assert (workspace.path / "calc.py").read_text() == FIXED
    log = assert_played(provider, script, "anthropic", ["Bash", "Read", "Edit", "Bash", None])
    assert {entry["path"] for entry in log} == {"/v1/messages"}
    assert {entry["headers"]["x-api-key"] for entry in log} == {"<redacted>"}
    events = run.jsonl()
    assert events[0]["type"] == "system" and events[0]["subtype"] == "init"
    used = [block["name"] for event in events if event["type"] == "assistant"
            for block in event["message"]["content"] if block["type"] == "tool_use"]
    assert used == ["Bash", "Read", "Edit", "Bash"]
    (result,) = (event for event in events if event["type"] == "result")
    assert result["subtype"] == "success" and result["result"] == FINAL
    total = script.total()
    assert {key: result["usage"][key] for key in ("input_tokens", "cache_read_input_tokens",
                                                 "cache_creation_input_tokens", "output_tokens")} == {
        "input_tokens": total.input, "cache_read_input_tokens": total.cache_read,
        "cache_creation_input_tokens": total.cache_write, "output_tokens": total.output}
    model_usage = result["modelUsage"][MODEL]
    assert (model_usage["inputTokens"], model_usage["cacheReadInputTokens"],
            model_usage["cacheCreationInputTokens"], model_usage["outputTokens"]) == (
        total.input, total.cache_read, total.cache_write, total.output)
    assert result["total_cost_usd"] > 0
