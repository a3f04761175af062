"""Gemini CLI 0.61.0 fixes the project against the scripted Gemini API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import FIXED, PROMPT, agent_env, fixing_script, run_cli, save_capture
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
    requests = provider.requests()
    print(run.explain())
    for r in requests:
        print(r["method"], r["path"], r.get("kind"), r.get("step"), r.get("status"), r.get("error"), r.get("offered"), r.get("model"))
    assert run.returncode == 0, run.explain()
    assert provider.errors == []
    assert (workspace.path / "calc.py").read_text() == FIXED
