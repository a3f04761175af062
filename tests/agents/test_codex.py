"""Codex 0.171.0 fixes the project against the scripted OpenAI Responses API."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import FIXED, PROMPT, agent_env, fixing_script, run_cli, save_capture
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


def codex_config(url: str, catalog: Path, workspace: Path) -> str:
    """$CODEX_HOME/config.toml: the scripted provider over the Responses API, no retries, no approvals."""
    return "\n".join([
        f'model = "{MODEL}"',
        'model_provider = "scripted"',
        f"model_catalog_json = {json.dumps(str(catalog))}",
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
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
    requests = provider.requests()
    print(run.explain())
    for r in requests:
        print(r["method"], r["path"], r.get("kind"), r.get("step"), r.get("status"), r.get("error"), r.get("offered"))
    assert run.returncode == 0, run.explain()
    assert provider.errors == []
    assert (workspace.path / "calc.py").read_text() == FIXED
