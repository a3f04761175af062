"""Gemini CLI 0.61.0 fixes the project against the scripted Gemini API."""

from __future__ import annotations

import json
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
from tests.testing.model_provider.dialects import GEMINI
from tests.testing.model_provider.server import ScriptedProvider

pytestmark = pytest.mark.agents

MODEL = "gemini-2.5-pro"
SETTINGS = {"security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "tools": {"useRipgrep": False}}
"""~/.gemini/settings.json: an API key, no login prompt (without it the CLI exits 41)."""


def gemini_command(gemini: Path) -> list[str]:
    """Gemini CLI's non-interactive command line: the prompt follows."""
    return [str(gemini), "--output-format", "stream-json", "--yolo", "--skip-trust", "--model", MODEL, "--prompt"]


def gemini_env(home: Path, url: str) -> dict[str, str]:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(SETTINGS))
    return agent_env(home, {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "scripted-key"})


def test_gemini_fixes_the_project(agent_bin: Callable[[str], Path], workspace: GitRepo, home: Path,
                                  tmp_path: Path) -> None:
    script = fixing_script()
    with ScriptedProvider(script, GEMINI, workspace.path, tmp_path / "requests.jsonl") as provider:
        run = run_cli([*gemini_command(agent_bin("gemini")), PROMPT], workspace.path, gemini_env(home, provider.url))
    save_capture("gemini", {"stdout.jsonl": run.stdout})

    assert run.returncode == 0, run.explain()
    assert (workspace.path / "calc.py").read_text() == FIXED
    log = assert_played(provider, script, "gemini",
                        ["run_shell_command", "read_file", "replace", "run_shell_command", None])
    assert {entry["path"] for entry in log} == {f"/v1beta/models/{MODEL}:streamGenerateContent"}
    assert {entry["query"]["alt"][0] for entry in log} == {"sse"}
    assert {entry["headers"]["x-goog-api-key"] for entry in log} == {"<redacted>"}
    events = run.jsonl()
    assert [event["tool_name"] for event in events if event["type"] == "tool_use"] == [
        "run_shell_command", "read_file", "replace", "run_shell_command"]
    assert [event["status"] for event in events if event["type"] == "tool_result"] == ["success"] * 4
    assert "".join(event["content"] for event in events
                   if event["type"] == "message" and event["role"] == "assistant") == FINAL
    (result,) = (event for event in events if event["type"] == "result")
    total = script.total()
    stats = {key: result["stats"][key] for key in ("input_tokens", "cached", "input", "output_tokens", "total_tokens",
                                                    "tool_calls")}
    assert stats == {"input_tokens": total.prompt, "cached": total.cache_read, "input": total.prompt - total.cache_read,
                     "output_tokens": total.output - total.reasoning, "total_tokens": total.prompt + total.output,
                     "tool_calls": 4}
