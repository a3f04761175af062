"""The settings of how commands run: the way back to CLI words goes through the CLI's own options unchanged, and
run.json's record reads back, older runs' included."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from corpus.errors import UsageError
from runner.commands.options import SETTINGS_FLAGS, settings_options
from runner.runs.manifest import read_manifest, write_manifest
from runner.settings import DEFAULT_ENV_CACHE, RecordedSettings, Settings, resume_command
from tests.testing.runbuilder import write_run

EVERY_CHANGE = Settings(jobs=3, sandbox="bwrap", agent_network="none",
                        agent_allow_hosts=("llm.lan:8443", "[::1]:8000"), agent_binds=(Path("/opt/cli"), Path("/srv/x")),
                        agent_home=(Path("/home/u/.codex"),), env_cache=Path("/var/envs"), keep=True, max_errors=4,
                        prices=Path("/etc/prices.yaml"), executor="ray", ray_address="ray://head:10001", retries=5,
                        trial_cpus=0.5, trial_memory=4 * 1024 ** 3)


def parsed(words: list[str]) -> tuple[Settings, frozenset[str]]:
    """What `runner run`'s settings options make of words."""
    seen: list[tuple[Settings, frozenset[str]]] = []

    @click.command()
    @settings_options(*SETTINGS_FLAGS)
    def command(settings: Settings, given: frozenset[str]) -> None:
        seen.append((settings, given))

    result = CliRunner().invoke(command, words, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return seen[0]


@pytest.mark.parametrize("settings", [
    EVERY_CHANGE,
    Settings(env_cache=DEFAULT_ENV_CACHE),
    Settings(env_cache=None),
    Settings(sandbox="none"),
    Settings(executor="ray"),
])
def test_cli_words_give_the_settings_back(settings: Settings) -> None:
    assert parsed(settings.cli_words())[0] == settings


def test_the_cli_defaults_are_no_words_and_every_setting_can_be_named() -> None:
    assert parsed([]) == (Settings(env_cache=DEFAULT_ENV_CACHE), frozenset())
    _, given = parsed(EVERY_CHANGE.cli_words())
    assert given == {"jobs", "agent_network", "agent_allow_hosts", "agent_binds", "agent_home", "env_cache", "keep", "max_errors",
                     "prices", "executor", "ray_address", "retries", "trial_cpus", "trial_memory"}
    assert resume_command(Path("/r/a b"), EVERY_CHANGE).startswith("runner run --resume '/r/a b' --jobs 3 ")


def test_the_default_cache_is_the_sandbox_s_and_a_cache_without_it_is_refused() -> None:
    assert Settings(sandbox="none", env_cache=DEFAULT_ENV_CACHE).env_cache is None
    assert Settings(sandbox="none").cli_words() == ["--sandbox", "none"]
    with pytest.raises(UsageError, match=r"^--env-cache with --sandbox none: "):
        Settings(sandbox="none", env_cache=Path("/var/envs")).check()


def test_a_resume_takes_the_given_settings_and_names_them() -> None:
    recorded = Settings(jobs=2, agent_binds=(Path("/opt/cli"),), env_cache=DEFAULT_ENV_CACHE)
    given = Settings(jobs=1, sandbox="none", env_cache=DEFAULT_ENV_CACHE)
    restored = recorded.over(given, ["sandbox"])
    assert restored == Settings(jobs=2, sandbox="none", agent_binds=(Path("/opt/cli"),), env_cache=None)
    assert [str(c) for c in recorded.changes(restored)] == ["--sandbox bwrap -> none", "--env-cache default -> off"]


def test_run_json_records_the_settings_and_older_runs_still_load(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path, "old", {"cart": "p."})
    data = json.loads((run_dir / "run.json").read_text())
    assert "settings" not in data
    assert read_manifest(run_dir).settings is None  # a run that recorded no sandbox: made elsewhere
    data["runtime"]["sandbox"] = {"kind": "bwrap", "version": "0.8.0", "agent_network": False,
                                  "binds": ["/opt/cli"], "home_copies": []}
    (run_dir / "run.json").write_text(json.dumps(data))
    inferred = read_manifest(run_dir).settings
    assert inferred == RecordedSettings(Settings(agent_network="none", agent_binds=(Path("/opt/cli"),),
                                                 env_cache=DEFAULT_ENV_CACHE), "0.8.0", inferred=True)
    write_manifest(run_dir, read_manifest(run_dir))
    assert "settings" not in json.loads((run_dir / "run.json").read_text())  # never written back
    recorded = RecordedSettings(EVERY_CHANGE, "0.9.0")
    write_manifest(run_dir, replace(read_manifest(run_dir), settings=recorded))
    assert read_manifest(run_dir).settings == recorded
    assert json.loads((run_dir / "run.json").read_text())["settings"]["env_cache"] == "/var/envs"
    data = json.loads((run_dir / "run.json").read_text())
    data["settings"]["sandbox"] = "docker"
    (run_dir / "run.json").write_text(json.dumps(data))
    with pytest.raises(UsageError, match=r"run.json: not a run manifest \(ValueError: settings: sandbox: 'docker'"):
        read_manifest(run_dir)


@pytest.mark.parametrize(("network", "allow", "words"), [
    ("model", (), []),
    ("model", ("llm.lan:8443", "127.0.0.1:8000"), ["--agent-allow-host", "llm.lan:8443", "--agent-allow-host",
                                                   "127.0.0.1:8000"]),
    ("none", (), ["--agent-network", "none"]),
    ("host", (), ["--agent-network", "host"]),
])
def test_the_agent_network_reads_back_from_words_and_run_json(network: str, allow: tuple[str, ...],
                                                              words: list[str]) -> None:
    settings = Settings(agent_network=network, agent_allow_hosts=allow,  # type: ignore[arg-type]
                        env_cache=DEFAULT_ENV_CACHE)
    assert settings.cli_words() == words
    assert parsed(words)[0] == settings
    assert Settings.from_json(settings.to_json()) == settings
    assert settings.open_network is (network == "host")


def test_runs_recorded_before_the_model_network_keep_theirs() -> None:
    assert Settings.from_json({"agent_network": True}).agent_network == "host"
    assert Settings.from_json({"agent_network": False}).agent_network == "none"
    assert Settings.from_json({}).agent_network == "model"
    with pytest.raises(ValueError, match="settings: agent_network: 'wifi' is not a valid value"):
        Settings.from_json({"agent_network": "wifi"})
    with pytest.raises(ValueError, match="settings: agent_allow_hosts"):
        Settings.from_json({"agent_allow_hosts": "api.example.com"})


def test_allowed_hosts_need_the_model_network_in_the_sandbox() -> None:
    for settings in (Settings(agent_network="host", agent_allow_hosts=("x.lan",)),
                     Settings(sandbox="none", agent_allow_hosts=("x.lan",))):
        with pytest.raises(UsageError, match=r"^--agent-allow-host x.lan: only the sandbox's network model"):
            settings.check()
    assert Settings(sandbox="none").open_network
