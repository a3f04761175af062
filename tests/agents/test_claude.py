"""Claude Code 2.1.197 fixes the project against the scripted Anthropic Messages API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import FIXED, PROMPT, agent_env, fixing_script, run_cli, save_capture
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
    return agent_env(home, {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-ant-scripted", "IS_SANDBOX": "1",
                            "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"})


def test_claude_fixes_the_project(agent_bin: Callable[[str], Path], workspace: GitRepo, home: Path,
                                  tmp_path: Path) -> None:
    script = fixing_script()
    with ScriptedProvider(script, CLAUDE, workspace.path, tmp_path / "requests.jsonl") as provider:
        run = run_cli([*claude_command(agent_bin("claude")), PROMPT], workspace.path,
                      claude_env(home, provider.url))
    requests = provider.requests()
    print(run.explain())
    for r in requests:
        print(r["method"], r["path"], r.get("kind"), r.get("step"), r.get("status"), r.get("error"))
    assert run.returncode == 0, run.explain()
    assert provider.errors == []
    assert (workspace.path / "calc.py").read_text() == FIXED
