"""`runner doctor`: one line per check of this machine, exit 0 when all pass and 1 when one fails, each failing
line with its fix."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

import runner.doctor
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli


def call(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, str]]:
    """The exit code and each line keyed by the name of its check."""
    code = run_cli(cli, "runner", ["doctor", *argv])
    out, _ = capsys.readouterr()
    lines = {}
    for line in out.splitlines():
        status, _, rest = line.partition(" ")
        name, _, detail = rest.strip().partition(": ")
        lines[name] = f"{status} {detail}"
    return code, lines


def program(directory: Path, name: str) -> Path:
    """An executable stand-in for an agent CLI."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_a_machine_that_can_run_passes_every_check_naming_where_scratch_and_cache_live(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = call(["--env-cache", str(tmp_path / "envs")], capsys)
    assert code == ExitCode.OK
    assert list(lines) == ["sandbox", "user namespaces", "interpreters", "uv", "scratch", "environment cache"]
    assert lines["sandbox"].startswith("ok bubblewrap ") and "started a sandbox" in lines["sandbox"]
    assert lines["interpreters"].startswith("ok ") and f"{sys.version_info.major}." in lines["interpreters"]
    assert lines["uv"].startswith("ok uv ")
    scratch = Path(tempfile.gettempdir()) / f"hindcast-{os.getuid()}"
    assert lines["scratch"].startswith(f"ok {scratch}, ") and lines["scratch"].endswith(" GiB free")
    assert lines["environment cache"].startswith(f"ok {tmp_path / 'envs'}, ")
    assert not list(scratch.glob("hindcast-doctor-*"))  # the probe's sandbox leaves nothing behind


def test_without_bubblewrap_the_sandbox_fails_with_how_to_install_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    code, lines = call(["--no-env-cache"], capsys)
    assert code == ExitCode.FAILED
    assert lines["sandbox"].startswith("FAIL bubblewrap (bwrap) is not on PATH; fix: install bubblewrap (Debian")
    assert lines["user namespaces"].startswith("WARN ")
    assert lines["environment cache"] == "ok off (--no-env-cache): every setup runs afresh"


def test_a_preset_needs_its_cli_on_path_and_a_key_or_a_login(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, lines = call(["--agent", "codex", "--no-env-cache"], capsys)
    assert code == ExitCode.FAILED
    assert lines["agent codex"].startswith("FAIL 'codex' is not a program on PATH; fix: install the codex CLI")
    assert lines["agent codex login"] == ("FAIL no OPENAI_API_KEY in the environment or a login in ~/.codex/auth.json; "
                                          "fix: export OPENAI_API_KEY=..., or log in with codex and pass --agent-home")
    cli_dir = program(tmp_path / "tools", "codex").parent
    monkeypatch.setenv("PATH", f"{cli_dir}{os.pathsep}{os.environ['PATH']}")
    login = Path.home() / ".codex" / "auth.json"
    login.parent.mkdir(parents=True)
    login.write_text("{}")
    code, lines = call(["--agent", "codex", "--no-env-cache"], capsys)
    assert code == ExitCode.OK
    assert lines["agent codex"] == f"ok {cli_dir / 'codex'}"
    assert lines["agent codex login"] == f"ok {login} (copy it into trials with --agent-home {login})"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    _, lines = call(["--agent", "mine=preset:codex", "--no-env-cache"], capsys)
    assert lines["agent mine login"] == "ok OPENAI_API_KEY is set (trials inherit it)"


def test_a_cli_under_home_warns_that_trials_need_it_bound(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "key")
    cli_dir = program(Path.home() / ".local" / "bin", "claude").parent
    monkeypatch.setenv("PATH", f"{cli_dir}{os.pathsep}{os.environ['PATH']}")
    code, lines = call(["--agent", "claude", "--no-env-cache"], capsys)
    assert code == ExitCode.OK
    assert lines["agent claude"] == (f"WARN {cli_dir / 'claude'} is under your home directory, which trials do not "
                                     f"see; fix: --agent-bind {os.path.realpath(cli_dir)} (and its install directory)")


def test_a_command_agent_has_its_programs_checked(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = call(["--agent", "mine=no-such-cli --json < {prompt_file}", "--agent", "ok=true",
                        "--no-env-cache"], capsys)
    assert code == ExitCode.FAILED
    assert lines["agent mine"] == "FAIL 'no-such-cli' is not a program on PATH; fix: install it, or give its full path"
    assert lines["agent ok"] == "ok its command's programs are on PATH"


def test_too_little_free_disk_fails_naming_the_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(runner.doctor, "MIN_FREE_BYTES", 1 << 62)  # more than any disk holds
    code, lines = call(["--env-cache", str(tmp_path / "envs")], capsys)
    assert code == ExitCode.FAILED
    assert lines["environment cache"].startswith(f"FAIL {tmp_path / 'envs'}, ")
    assert "GiB free (under 4294967296 GiB); fix: runner env prune, or --env-cache DIR" in lines["environment cache"]
    assert lines["scratch"].endswith("; fix: set TMPDIR to a directory on a disk with room")
