"""aider 0.86.2 fixes the project with a SEARCH/REPLACE block against the scripted Chat Completions API."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import (
    FIXED,
    PROMPT,
    agent_env,
    assert_played,
    run_cli,
    save_capture,
)
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
            "--no-stream", "--yes-always", "--no-check-update", "--analytics-disable", "--no-show-model-warnings", "--no-pretty",
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
    aider = agent_bin("aider")
    script = Script(steps=(Edit("calc.py", "    return a - b\n", "    return a + b\n"),), usage=numbered_usage(1))
    state = tmp_path / "aider-state"
    state.mkdir()
    seed_price_cache(aider, home)
    env = agent_env(home, {"OPENAI_API_KEY": "sk-scripted", "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    with ScriptedProvider(script, AIDER, workspace.path, tmp_path / "requests.jsonl") as provider:
        run = run_cli([*aider_command(aider, provider.url, state), "calc.py"], workspace.path, env)
    save_capture("aider", {"stdout.txt": run.stdout})

    assert run.returncode == 0, run.explain()
    assert (workspace.path / "calc.py").read_text() == FIXED
    log = assert_played(provider, script, "chat", [None], sides=1)
    assert {entry["path"] for entry in log} == {"/v1/chat/completions"}
    assert {entry["body"].get("stream", False) for entry in log} == {False}
    main, side = log
    assert main["kind"] == "main" and "<<<<<<< SEARCH" in main["reply"]["text"]
    assert "commit message" in side["body"]["messages"][0]["content"]
    assert "Applied edit to calc.py" in run.stdout
    assert f"Commit {workspace.git('rev-parse', '--short', 'HEAD')} {script.side_text}" in run.stdout
    assert workspace.git("status", "--short") == ""
    assert workspace.git("show", "HEAD:calc.py") == FIXED.rstrip("\n")
    assert not (workspace.path / ".gitignore").exists()
    assert sorted(path.name for path in workspace.path.iterdir()) == [".git", "calc.py", "test_calc.py"]
    usage = script.usage[0]
    assert f"Tokens: {usage.prompt / 1000:.1f}k sent, {usage.output} received." in run.stdout
