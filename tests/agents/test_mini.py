"""mini-swe-agent 2.4.6 fixes the project through its bash tool against the scripted Chat Completions API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import FIXED, PROMPT, agent_env, fixing_script, run_cli, save_capture
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
    requests = provider.requests()
    print(run.explain())
    for r in requests:
        print(r["method"], r["path"], r.get("kind"), r.get("step"), r.get("status"), r.get("error"), r.get("offered"), r.get("model"))
    assert run.returncode == 0, run.explain()
    assert provider.errors == []
    assert (workspace.path / "calc.py").read_text() == FIXED
