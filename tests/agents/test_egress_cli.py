"""A real agent CLI completes a trial through the egress proxy: `runner run` in the default sandbox with
--agent-network model, the CLI's base URL on a host only the proxy lets through (mapped to the scripted provider
by the proxy's test-only address table), and every connection in network.json."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from runner.runs.result import trial_path
from runner.sandbox.bwrap import WORKSPACE
from runner.sandbox.confine import HOME_INSIDE
from runner.sandbox.egress import NEVER_REACHED
from tests.agents.harness import agent_env, assert_played, fixing_script
from tests.agents.test_codex import codex_config, write_catalog
from tests.testing.helloserver import name_host
from tests.testing.model_provider.dialects import CLAUDE, CODEX
from tests.testing.model_provider.server import ScriptedProvider
from tests.testing.trialkit import SANDBOX_BINDS, graded_quickly, variants

pytestmark = pytest.mark.agents

HOST = "api.scripted.test"
"""The provider's name inside: resolvable by nothing but the proxy's test table."""


def claude_command(claude: Path) -> str:
    """Claude Code's preset command line with its base URL on HOST."""
    return (f"cd {{workspace}} && ANTHROPIC_BASE_URL=http://{HOST} ANTHROPIC_API_KEY=sk-ant-scripted IS_SANDBOX=1 "
            f"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 {shlex.quote(str(claude))} -p --output-format "
            "stream-json --verbose --dangerously-skip-permissions --model claude-sonnet-4-5 < {prompt_file}")


def installed(cli: Path, name: str) -> Path:
    """The CLI's install directory in the agent cache (<cache>/NAME-VERSION), bound into the sandbox."""
    return next(p for p in cli.parents if p.name.startswith(f"{name}-"))


def test_claude_code_completes_a_trial_through_the_egress_proxy(agent_bin: Callable[[str], Path], tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    claude = agent_bin("claude")
    install = installed(claude, "claude")
    bench = graded_quickly(tmp_path)
    script = fixing_script()
    command = claude_command(claude)
    with ScriptedProvider(script, CLAUDE, Path(WORKSPACE), tmp_path / "requests.jsonl") as provider:
        name_host(monkeypatch, HOST, int(provider.url.rsplit(":", 1)[1]))
        loaded = bench.run(variants=variants(claude=command), agent_allow_hosts=(HOST,),
                           agent_binds=(*SANDBOX_BINDS, install), agent_timeout=120)
    (result,) = loaded.trials
    folder = trial_path(loaded.directory, "claude", "calc-add", 1)
    transcript = (folder / "transcript.log").read_text()
    assert result.outcome == "pass", (result.reason, transcript[-3000:])
    assert_played(provider, script, "anthropic", ["Bash", "Read", "Edit", "Bash", None])
    network = json.loads((folder / "network.json").read_text())
    to_model = [a for a in network["attempts"] if a["host"] == HOST]
    assert to_model and all(a["allowed"] and a["kind"] == "http" and a["port"] == 80 for a in to_model)
    assert sum(a["bytes_up"] for a in to_model) > 1000 and sum(a["bytes_down"] for a in to_model) > 1000
    assert network["allowed_bytes"] == sum(a["bytes_up"] + a["bytes_down"] for a in to_model)
    assert [a for a in network["attempts"] if not a["allowed"]] == []  # nonessential traffic off: nothing else


def test_claude_code_whose_provider_is_down_is_an_error_not_a_fail(agent_bin: Callable[[str], Path], tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    claude = agent_bin("claude")
    with ScriptedProvider(fixing_script(), CLAUDE, Path(WORKSPACE), tmp_path / "requests.jsonl") as provider:
        port = int(provider.url.rsplit(":", 1)[1])
    name_host(monkeypatch, HOST, port)  # the provider is gone: nothing listens there now
    loaded = graded_quickly(tmp_path).run(variants=variants(claude=claude_command(claude)),
                                          agent_allow_hosts=(HOST,), agent_timeout=20,
                                          agent_binds=(*SANDBOX_BINDS, installed(claude, "claude")))
    (result,) = loaded.trials
    assert (result.outcome, result.grader_outcome) == ("error", None)
    assert NEVER_REACHED in result.reason, result.reason  # beside the agent's own retry event, when it saw one
    network = json.loads((trial_path(loaded.directory, "claude", "calc-add", 1) / "network.json").read_text())
    assert network["allowed_bytes"] == 0 and network["attempts"]
    assert all(a["host"] == HOST and a["status"] == 502 for a in network["attempts"])


def test_codex_completes_a_trial_through_the_egress_proxy(agent_bin: Callable[[str], Path], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    codex = agent_bin("codex")
    codex_home = Path.home() / ".codex"  # the test's own HOME, copied into the trial's (--agent-home)
    codex_home.mkdir()
    write_catalog(codex, agent_env(tmp_path / "host-home", {"CODEX_HOME": str(codex_home)}),
                  codex_home / "catalog.json")
    script = fixing_script()
    command = (f"CODEX_HOME=$HOME/.codex SCRIPTED_API_KEY=sk-scripted {shlex.quote(str(codex))} exec --json "
               "--dangerously-bypass-approvals-and-sandbox --skip-git-repo-check -C {workspace} - < {prompt_file}")
    with ScriptedProvider(script, CODEX, Path(WORKSPACE), tmp_path / "requests.jsonl") as provider:
        name_host(monkeypatch, HOST, int(provider.url.rsplit(":", 1)[1]))
        (codex_home / "config.toml").write_text(codex_config(
            f"http://{HOST}", Path(HOME_INSIDE) / ".codex" / "catalog.json", Path(WORKSPACE)))
        loaded = graded_quickly(tmp_path).run(variants=variants(codex=command), agent_allow_hosts=(HOST,),
                                              agent_home=(codex_home,), agent_timeout=120,
                                              agent_binds=(*SANDBOX_BINDS, installed(codex, "codex")))
    (result,) = loaded.trials
    folder = trial_path(loaded.directory, "codex", "calc-add", 1)
    assert result.outcome == "pass", (result.reason, (folder / "transcript.log").read_text()[-3000:])
    assert_played(provider, script, "responses", ["exec_command", "exec_command", "apply_patch", "exec_command",
                                                  None])
    network = json.loads((folder / "network.json").read_text())
    to_model = [a for a in network["attempts"] if a["host"] == HOST]
    assert to_model and all(a["allowed"] and a["kind"] == "http" for a in to_model)
    assert network["allowed_bytes"] > 2000 and network["denied"] == 0
