"""opencode 1.18.33 fixes the project against the scripted OpenAI Chat Completions API."""

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
from tests.testing.model_provider.dialects import OPENCODE
from tests.testing.model_provider.server import ScriptedProvider

pytestmark = pytest.mark.agents

MODEL = "hindcast-scripted"


def opencode_command(opencode: Path) -> list[str]:
    """opencode's non-interactive command line: the prompt follows."""
    return [str(opencode), "run", "--format", "json", "--auto", "--pure", "--model", f"scripted/{MODEL}"]


ENV = {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
       "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1", "OPENCODE_DISABLE_SHARE": "1"}
"""What keeps opencode off the network: no models.dev catalog, updates, LSP downloads, default plugins or
sharing, and no reading of ~/.claude."""


def opencode_config(url: str) -> dict[str, object]:
    """opencode.json: one openai-compatible provider, no updates, sharing or git snapshots."""
    return {"$schema": "https://opencode.ai/config.json",
            "provider": {"scripted": {"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
                                      "options": {"baseURL": f"{url}/v1", "apiKey": "sk-scripted"},
                                      "models": {MODEL: {"name": "Hindcast scripted"}}}},
            "model": f"scripted/{MODEL}", "autoupdate": False, "share": "disabled", "snapshot": False}


def opencode_env(home: Path, url: str) -> dict[str, str]:
    """opencode.json in opencode's config directory, and that directory marked as holding its plugin package:
    on every start opencode npm-installs @opencode-ai/plugin into each config directory (in the background, or
    first if it has no node_modules) unless node_modules exists and package-lock.json lists the package."""
    env = agent_env(home, ENV)
    config = Path(env["XDG_CONFIG_HOME"]) / "opencode"
    (config / "node_modules").mkdir(parents=True)
    lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}}}
    (config / "package-lock.json").write_text(json.dumps(lock))
    (config / "opencode.json").write_text(json.dumps(opencode_config(url), indent=2))
    return env


def test_opencode_fixes_the_project(agent_bin: Callable[[str], Path], workspace: GitRepo, home: Path,
                                    tmp_path: Path) -> None:
    script = fixing_script()
    with ScriptedProvider(script, OPENCODE, workspace.path, tmp_path / "requests.jsonl") as provider:
        run = run_cli([*opencode_command(agent_bin("opencode")), PROMPT], workspace.path,
                      opencode_env(home, provider.url))
    save_capture("opencode", {"stdout.jsonl": run.stdout})

    assert run.returncode == 0, run.explain()
    assert (workspace.path / "calc.py").read_text() == FIXED
    log = assert_played(provider, script, "chat", ["bash", "read", "edit", "bash", None], sides=1)
    assert {entry["path"] for entry in log} == {"/v1/chat/completions"}
    assert {entry["body"]["stream"] for entry in log} == {True}
    (title,) = (entry for entry in log if entry["kind"] == "side")
    assert "title" in title["body"]["messages"][0]["content"].lower()
    events = run.jsonl()
    assert [event["part"]["tool"] for event in events if event["type"] == "tool_use"] == ["bash", "read", "edit", "bash"]
    assert [event["part"]["state"]["status"] for event in events if event["type"] == "tool_use"] == ["completed"] * 4
    assert [event["part"]["text"] for event in events if event["type"] == "text"] == [FINAL]
    finishes = [event["part"]["tokens"] for event in events if event["type"] == "step_finish"]
    assert finishes == [{"total": u.prompt + u.output, "input": u.prompt - u.cache_read,
                         "output": u.output - u.reasoning, "reasoning": u.reasoning,
                         "cache": {"write": 0, "read": u.cache_read}} for u in script.usage]
    assert not (workspace.path / ".opencode").exists()
