"""mini-swe-agent 2.4.6 fixes the project through its bash tool against the scripted Chat Completions API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import (
    FIXED,
    PROMPT,
    agent_env,
    assert_played,
    fixing_script,
    run_cli,
    save_capture,
)
from tests.testing.gitrepo import GitRepo
from tests.testing.model_provider.dialects import MINI
from tests.testing.model_provider.server import ScriptedProvider

pytestmark = pytest.mark.agents

MODEL = "openai/gpt-4o-mini"
"""A model litellm has a price for: mini stops when it cannot price a call."""


def mini_command(mini: Path, trajectory: Path) -> list[str]:
    """mini's non-interactive command line: the task follows."""
    return [str(mini), "--model", MODEL, "--yolo", "--exit-immediately", "--cost-limit", "0",
            "--output", str(trajectory), "--task"]


def mini_env(home: Path, url: str) -> dict[str, str]:
    return agent_env(home, {"OPENAI_API_BASE": f"{url}/v1", "OPENAI_BASE_URL": f"{url}/v1",
                            "OPENAI_API_KEY": "sk-scripted", "MSWEA_CONFIGURED": "true",
                            "MSWEA_GLOBAL_CONFIG_DIR": str(home / ".config" / "mini-swe-agent"),
                            "MSWEA_SILENT_STARTUP": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"})


def test_mini_fixes_the_project(agent_bin: Callable[[str], Path], workspace: GitRepo, home: Path,
                                tmp_path: Path) -> None:
    script = fixing_script()
    trajectory = tmp_path / "trajectory.json"
    with ScriptedProvider(script, MINI, workspace.path, tmp_path / "requests.jsonl") as provider:
        run = run_cli([*mini_command(agent_bin("mini"), trajectory), PROMPT], workspace.path,
                      mini_env(home, provider.url))
    save_capture("mini", {"stdout.txt": run.stdout, "trajectory.json": trajectory})

    assert run.returncode == 0, run.explain()
    assert (workspace.path / "calc.py").read_text() == FIXED
    log = assert_played(provider, script, "chat", ["bash"] * 5)
    assert {entry["path"] for entry in log} == {"/v1/chat/completions"}
    assert {entry["model"] for entry in log} == {"gpt-4o-mini"}
    assert log[-1]["reply"]["arguments"] == {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}
    saved = json.loads(trajectory.read_text())
    assert saved["trajectory_format"].startswith("mini-swe-agent")
    assert saved["info"]["model_stats"]["api_calls"] == len(script.steps)
    assert saved["info"]["model_stats"]["instance_cost"] > 0
    assert saved["info"]["exit_status"] == "Submitted"
    usages = [message["extra"]["response"]["usage"] for message in saved["messages"]
              if message["role"] == "assistant"]
    assert usages == [{"prompt_tokens": u.prompt, "completion_tokens": u.output, "total_tokens": u.prompt + u.output,
                       "prompt_tokens_details": {"cached_tokens": u.cache_read},
                       "completion_tokens_details": {"reasoning_tokens": u.reasoning}} for u in script.usage]
