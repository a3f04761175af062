"""aider 0.86.2 fixes the project with a SEARCH/REPLACE block against the scripted Chat Completions API."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import FIXED, PROMPT, agent_env, run_cli, save_capture
from tests.testing.gitrepo import GitRepo
from tests.testing.model_provider.dialects import AIDER
from tests.testing.model_provider.script import Edit, Script, numbered_usage
from tests.testing.model_provider.server import ScriptedProvider

pytestmark = pytest.mark.agents

MODEL = "openai/gpt-4o-mini"


def aider_command(aider: Path, url: str, state: Path) -> list[str]:
    """aider's non-interactive command line; the files to edit follow. Its history files go to state, not the
    repository."""
    return [str(aider), "--model", MODEL, "--openai-api-base", f"{url}/v1", "--edit-format", "diff",
            "--yes-always", "--no-check-update", "--analytics-disable", "--no-show-model-warnings", "--no-pretty",
            "--no-fancy-input", "--no-gitignore", "--map-tokens", "0", "--no-detect-urls",
            "--input-history-file", str(state / "input.history"),
            "--chat-history-file", str(state / "chat.history.md"),
            "--message", PROMPT]


def seed_price_cache(aider: Path, home: Path) -> None:
    """aider downloads litellm's price list into ~/.aider/caches unless a day-old copy is there: the copy litellm
    ships in aider's own venv, put there, keeps it off the network."""
    (bundled,) = aider.parent.parent.glob("lib/python*/site-packages/litellm/model_prices_and_context_window_backup.json")
    caches = home / ".aider" / "caches"
    caches.mkdir(parents=True)
    shutil.copyfile(bundled, caches / "model_prices_and_context_window.json")


def test_aider_fixes_the_project(agent_bin: Callable[[str], Path], workspace: GitRepo, home: Path,
                                 tmp_path: Path) -> None:
    steps = (Edit("calc.py", "    return a - b\n", "    return a + b\n"),)
    script = Script(steps=steps, usage=numbered_usage(1))
    state = tmp_path / "aider-state"
    state.mkdir()
    seed_price_cache(agent_bin("aider"), home)
    with ScriptedProvider(script, AIDER, workspace.path, tmp_path / "requests.jsonl") as provider:
        env = agent_env(home, {"OPENAI_API_KEY": "sk-scripted", "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
        run = run_cli([*aider_command(agent_bin("aider"), provider.url, state), "calc.py"], workspace.path, env)
    requests = provider.requests()
    print(run.explain())
    for r in requests:
        print(r["method"], r["path"], r.get("kind"), r.get("step"), r.get("status"), r.get("error"), r.get("offered"), r.get("model"))
    print(workspace.git("status", "--short"), workspace.git("log", "--oneline"))
    assert run.returncode == 0, run.explain()
    assert provider.errors == []
    assert (workspace.path / "calc.py").read_text() == FIXED
