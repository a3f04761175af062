"""Codex 0.171.0 fixes the project against the scripted OpenAI Responses API."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import (
    BUGGY,
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
from tests.testing.model_provider.dialects import CODEX
from tests.testing.model_provider.server import ScriptedProvider

pytestmark = pytest.mark.agents

MODEL = "hindcast-scripted"
CATALOG_TEMPLATE = "gpt-5.5"
"""The bundled model whose catalog entry (tools, instructions) the scripted model copies."""


def codex_command(codex: Path, workspace: Path) -> list[str]:
    """Codex's non-interactive command line; the prompt comes on stdin."""
    return [str(codex), "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check",
            "-C", str(workspace), "-"]


def write_catalog(codex: Path, env: dict[str, str], target: Path) -> None:
    """A model catalog of one entry: the bundled CATALOG_TEMPLATE (from `codex debug models`) renamed MODEL, so
    Codex offers that model's tools (apply_patch among them) for a name it does not know."""
    bundled = subprocess.run([str(codex), "debug", "models"], env=env, capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL, check=True).stdout
    (entry,) = (model for model in json.loads(bundled)["models"] if model["slug"] == CATALOG_TEMPLATE)
    entry.update(slug=MODEL, display_name=MODEL, upgrade=None, availability_nux=None)
    target.write_text(json.dumps({"models": [entry]}))


def codex_config(url: str, catalog: Path | None, workspace: Path) -> str:
    """$CODEX_HOME/config.toml: the scripted provider over the Responses API, no retries, no approvals, no update
    check, plugin sync or analytics (those reach api.github.com and chatgpt.com)."""
    return "\n".join([
        f'model = "{MODEL}"',
        'model_provider = "scripted"',
        *([f"model_catalog_json = {json.dumps(str(catalog))}"] if catalog else []),
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        "check_for_update_on_startup = false",
        "",
        "[features]",
        "plugins = false",
        "",
        "[analytics]",
        "enabled = false",
        "",
        "[model_providers.scripted]",
        'name = "Scripted"',
        f'base_url = "{url}/v1"',
        'env_key = "SCRIPTED_API_KEY"',
        'wire_api = "responses"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
        f"[projects.{json.dumps(str(workspace))}]",
        'trust_level = "trusted"',
        "",
    ])


def test_codex_fixes_the_project(agent_bin: Callable[[str], Path], workspace: GitRepo, home: Path,
                                 tmp_path: Path) -> None:
    codex = agent_bin("codex")
    script = fixing_script()
    codex_home = home / ".codex"
    codex_home.mkdir()
    env = agent_env(home, {"CODEX_HOME": str(codex_home), "SCRIPTED_API_KEY": "sk-scripted"})
    write_catalog(codex, env, home / "catalog.json")
    with ScriptedProvider(script, CODEX, workspace.path, tmp_path / "requests.jsonl") as provider:
        (codex_home / "config.toml").write_text(codex_config(provider.url, home / "catalog.json", workspace.path))
        run = run_cli(codex_command(codex, workspace.path), workspace.path, env, stdin=PROMPT)
    (rollout,) = codex_home.glob("sessions/*/*/*/rollout-*.jsonl")
    save_capture("codex", {"stdout.jsonl": run.stdout, "rollout.jsonl": rollout})

    assert run.returncode == 0, run.explain()
    assert (workspace.path / "calc.py").read_text() == FIXED
    log = assert_played(provider, script, "responses", ["exec_command", "exec_command", "apply_patch",
                                                        "exec_command", None])
    assert {entry["path"] for entry in log} == {"/v1/responses"}
    assert {entry["model"] for entry in log} == {MODEL}
    (apply_patch,) = (tool for tool in log[0]["body"]["tools"] if tool.get("name") == "apply_patch")
    assert apply_patch["type"] == "custom"
    events = run.jsonl()
    items = [event["item"] for event in events if event["type"] == "item.completed"]
    assert [item["type"] for item in items] == ["command_execution", "command_execution", "file_change",
                                                "command_execution", "agent_message"]
    assert items[-1]["text"] == FINAL
    (done,) = (event for event in events if event["type"] == "turn.completed")
    total = script.total()
    assert done["usage"] == {"input_tokens": total.prompt, "cached_input_tokens": total.cache_read,
                             "cache_write_input_tokens": total.cache_write, "output_tokens": total.output,
                             "reasoning_output_tokens": total.reasoning}
    records = [json.loads(line) for line in rollout.read_text().splitlines()]
    assert {record["payload"]["model"] for record in records if record["type"] == "turn_context"} == {MODEL}
    counts = [record["payload"]["info"] for record in records
              if record["type"] == "event_msg" and record["payload"]["type"] == "token_count"
              and record["payload"].get("info")]
    assert counts[-1]["total_token_usage"]["input_tokens"] == total.prompt
    assert counts[-1]["total_token_usage"]["output_tokens"] == total.output


def test_codex_offers_no_apply_patch_for_a_model_it_does_not_know(agent_bin: Callable[[str], Path],
                                                                  workspace: GitRepo, home: Path,
                                                                  tmp_path: Path) -> None:
    """Without model_catalog_json a model name Codex does not know gets fallback metadata and no apply_patch
    tool: the provider answers the edit step with HTTP 500 naming the tools offered, and Codex (no retries) ends
    the turn failed and exits 1."""
    script = fixing_script()
    codex_home = home / ".codex"
    codex_home.mkdir()
    env = agent_env(home, {"CODEX_HOME": str(codex_home), "SCRIPTED_API_KEY": "sk-scripted"})
    with ScriptedProvider(script, CODEX, workspace.path, tmp_path / "requests.jsonl") as provider:
        (codex_home / "config.toml").write_text(codex_config(provider.url, None, workspace.path))
        run = run_cli(codex_command(agent_bin("codex"), workspace.path), workspace.path, env, stdin=PROMPT)

    assert run.returncode == 1, run.explain()
    assert (workspace.path / "calc.py").read_text() == BUGGY
    (error,) = provider.errors
    assert "step 'edit' needs one of the tools [apply_patch]" in error and "exec_command" in error
    log = provider.requests()
    assert [(entry["step"], entry["status"]) for entry in log] == [(0, 200), (1, 200), (2, 500)]
    assert log[-1]["error"] == error
    events = run.jsonl()
    warnings = [event["item"]["message"] for event in events
                if event["type"] == "item.completed" and event["item"]["type"] == "error"]
    assert warnings == [(f"Model metadata for `{MODEL}` not found. Defaulting to fallback metadata; this can degrade "
                         "performance and cause issues.")]
    assert [event["type"] for event in events][-1] == "turn.failed"  # its message hides the body of the 500
