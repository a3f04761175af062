"""opencode 1.18.33 fixes the project against the scripted OpenAI Chat Completions API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import FIXED, PROMPT, agent_env, fixing_script, run_cli, save_capture
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
    """The file OPENCODE_CONFIG names: one openai-compatible provider, no updates, sharing or git snapshots."""
    return {"$schema": "https://opencode.ai/config.json",
            "provider": {"scripted": {"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
                                      "options": {"baseURL": f"{url}/v1", "apiKey": "sk-scripted"},
                                      "models": {MODEL: {"name": "Hindcast scripted"}}}},
            "model": f"scripted/{MODEL}", "autoupdate": False, "share": "disabled", "snapshot": False}


def opencode_env(home: Path, url: str) -> dict[str, str]:
    """The config lives outside opencode's config directory: an opencode.json there makes opencode npm-install
    @opencode-ai/plugin into that directory on every start."""
    config = home / "opencode-scripted.json"
    config.write_text(json.dumps(opencode_config(url), indent=2))
    return agent_env(home, {**ENV, "OPENCODE_CONFIG": str(config)})


def test_opencode_fixes_the_project(agent_bin: Callable[[str], Path], workspace: GitRepo, home: Path,
                                    tmp_path: Path) -> None:
    script = fixing_script()
    with ScriptedProvider(script, OPENCODE, workspace.path, tmp_path / "requests.jsonl") as provider:
        run = run_cli([*opencode_command(agent_bin("opencode")), PROMPT], workspace.path,
                      opencode_env(home, provider.url))
    requests = provider.requests()
    print(run.explain())
    for r in requests:
        print(r["method"], r["path"], r.get("kind"), r.get("step"), r.get("status"), r.get("error"), r.get("offered"), r.get("model"))
    assert run.returncode == 0, run.explain()
    assert provider.errors == []
    assert (workspace.path / "calc.py").read_text() == FIXED
